CREATE TABLE `document_store_loader` (
	`id` text PRIMARY KEY NOT NULL,
	`storeId` text NOT NULL,
	`position` integer NOT NULL,
	`loaderId` text NOT NULL,
	`loaderName` text NOT NULL,
	`loaderConfig` text DEFAULT '{}' NOT NULL,
	`splitterId` text,
	`splitterName` text,
	`splitterConfig` text,
	`totalChunks` integer DEFAULT 0 NOT NULL,
	`totalChars` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`files` text DEFAULT '[]' NOT NULL,
	`leaseId` text,
	`leaseUntil` integer,
	`createdDate` text NOT NULL,
	`updatedDate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idx_document_store_loader_store` ON `document_store_loader` (`storeId`,`position`);