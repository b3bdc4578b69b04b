// Document stores: stores, loaders, chunks, the local vector store's documents and embeddings,
// and the record manager's keys.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { DocumentStoreStatus } from "../enums";
import { createdDate, updatedDate } from "./columns";

export const documentStore = sqliteTable(
  "document_store",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description"),
    whereUsed: text("whereUsed").notNull().default("[]"),
    status: text("status").$type<DocumentStoreStatus>().notNull().default("EMPTY"),
    vectorStoreConfig: text("vectorStoreConfig"),
    embeddingConfig: text("embeddingConfig"),
    recordManagerConfig: text("recordManagerConfig"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_document_store_created").on(t.createdDate)],
);

/**
 * A document store's loaders (Flowise's IDocumentStoreLoader), one row each so that concurrent
 * upserts and chunk edits each change only their own row; the store's `loaders` JSON string is
 * built from these rows. `position` keeps the order they were added in. Work on a loader holds a
 * lease: `leaseId` names the upsert doing it, `leaseUntil` (ms since the epoch) is when it runs out
 * unless the worker renews it — a lease that ran out with the work unfinished means that worker
 * died, and the loader reads STALE. `files` and the configs are JSON text, as Flowise shapes them.
 */
export const documentStoreLoader = sqliteTable(
  "document_store_loader",
  {
    id: text("id").primaryKey(),
    storeId: text("storeId").notNull(),
    position: integer("position").notNull(),
    loaderId: text("loaderId").notNull(),
    loaderName: text("loaderName").notNull(),
    loaderConfig: text("loaderConfig").notNull().default("{}"),
    splitterId: text("splitterId"),
    splitterName: text("splitterName"),
    splitterConfig: text("splitterConfig"),
    totalChunks: integer("totalChunks").notNull().default(0),
    totalChars: integer("totalChars").notNull().default(0),
    status: text("status").$type<DocumentStoreStatus>().notNull(),
    error: text("error"),
    files: text("files").notNull().default("[]"),
    leaseId: text("leaseId"),
    leaseUntil: integer("leaseUntil"),
    /**
     * A streamed upsert's position (JSON): how far it read, the run it belongs to and where the next
     * window starts; null when no streamed run is under way or left unfinished.
     */
    progress: text("progress"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_document_store_loader_store").on(t.storeId, t.position)],
);

export const documentStoreFileChunk = sqliteTable(
  "document_store_file_chunk",
  {
    id: text("id").primaryKey(),
    docId: text("docId").notNull(),
    storeId: text("storeId").notNull(),
    chunkNo: integer("chunkNo").notNull(),
    pageContent: text("pageContent").notNull(),
    metadata: text("metadata").notNull().default("{}"),
  },
  (t) => [index("idx_chunk_store_doc_no").on(t.storeId, t.docId, t.chunkNo)],
);

/**
 * The documents a vector store holds, per provider and namespace (a document store's id unless
 * configured): the text stays in D1 for every provider, so Vectorize metadata carries only ids.
 * `id` is the vector id (the record manager's content hash, or a fresh UUID without one).
 */
export const vectorDocument = sqliteTable(
  "vector_document",
  {
    provider: text("provider").notNull(),
    namespace: text("namespace").notNull(),
    id: text("id").notNull(),
    docId: text("docId"),
    pageContent: text("pageContent").notNull(),
    metadata: text("metadata").notNull().default("{}"),
    // The chunk (of loader docId) this vector was last indexed from: a hint for matching query hits
    // to chunks without comparing texts (checked against the text, which wins when they differ).
    chunkNo: integer("chunkNo"),
    // Set: the text is that document store chunk's (pageContent is left empty, so an upsert writes
    // its text once). Triggers of migration 0019 copy the text here and clear this before the chunk
    // is edited or deleted, so a vector keeps answering the text it was indexed with.
    chunkId: text("chunkId"),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.namespace, t.id] }),
    index("idx_vector_document_doc").on(t.provider, t.namespace, t.docId),
    index("idx_vector_document_chunk").on(t.chunkId).where(sql`${t.chunkId} IS NOT NULL`),
  ],
);

/**
 * The local vector store's embeddings, apart from the text so a query scans only compact rows:
 * each vector normalised, quantised to int8 (`scale` restores it) and base64-encoded.
 */
export const localEmbedding = sqliteTable(
  "local_embedding",
  {
    namespace: text("namespace").notNull(),
    id: text("id").notNull(),
    dims: integer("dims").notNull(),
    scale: real("scale").notNull(),
    vector: text("vector").notNull(),
  },
  (t) => [primaryKey({ columns: [t.namespace, t.id] })],
);

/**
 * A random token per local vector namespace, replaced by every write to its vectors (in the same
 * batch), so an isolate can tell whether the vectors it decoded earlier are still current.
 */
export const localEmbeddingVersion = sqliteTable("local_embedding_version", {
  namespace: text("namespace").primaryKey(),
  version: text("version").notNull(),
});

/**
 * The record manager (LangChain indexing): one row per indexed chunk hash. `groupId` is the
 * chunk's source (sourceIdKey), `docId` its loader; `updatedAt` is a millisecond clock.
 */
export const recordManager = sqliteTable(
  "record_manager",
  {
    namespace: text("namespace").notNull(),
    key: text("key").notNull(),
    groupId: text("groupId"),
    docId: text("docId"),
    updatedAt: real("updatedAt").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.namespace, t.key] }),
    index("idx_record_manager_time").on(t.namespace, t.updatedAt),
    index("idx_record_manager_group").on(t.namespace, t.groupId),
    index("idx_record_manager_doc").on(t.namespace, t.docId),
  ],
);
