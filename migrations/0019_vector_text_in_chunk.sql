ALTER TABLE `vector_document` ADD `chunkId` text;--> statement-breakpoint
CREATE INDEX `idx_vector_document_chunk` ON `vector_document` (`chunkId`) WHERE "vector_document"."chunkId" IS NOT NULL;--> statement-breakpoint
-- A vector whose text is its chunk's (chunkId set) gets the text back before the chunk changes or
-- goes: it keeps answering what it was indexed with (as before, when every vector held its text).
CREATE TRIGGER `chunk_delete_keeps_vector_text` BEFORE DELETE ON `document_store_file_chunk`
BEGIN
  UPDATE `vector_document` SET `pageContent` = OLD.`pageContent`, `chunkId` = NULL WHERE `chunkId` = OLD.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `chunk_edit_keeps_vector_text` BEFORE UPDATE OF `pageContent`, `id` ON `document_store_file_chunk`
BEGIN
  UPDATE `vector_document` SET `pageContent` = OLD.`pageContent`, `chunkId` = NULL WHERE `chunkId` = OLD.`id`;
END;
--> statement-breakpoint
-- INSERT OR REPLACE (an import) removes a chunk without its delete triggers: the text goes first.
CREATE TRIGGER `chunk_replace_keeps_vector_text` BEFORE INSERT ON `document_store_file_chunk`
BEGIN
  UPDATE `vector_document` SET `pageContent` = (SELECT c.`pageContent` FROM `document_store_file_chunk` c WHERE c.`id` = NEW.`id`),
    `chunkId` = NULL
  WHERE `chunkId` = NEW.`id` AND EXISTS (SELECT 1 FROM `document_store_file_chunk` c WHERE c.`id` = NEW.`id`);
END;
