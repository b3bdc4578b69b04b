import { z } from "@hono/zod-openapi";
import { DOCUMENT_STORE_STATUSES } from "../db/enums";
import { jsonString, name, text, uuid } from "./common";

// Config fields are "JSON serialized as a string" ({name, config}) as Flowise stores them.
const configString = () => jsonString(200_000, true).nullish();

export const DocumentStoreCreate = z
  .object({
    id: uuid().optional(),
    name: name(),
    description: text(100_000).nullish(),
    whereUsed: jsonString(100_000).optional(),
    vectorStoreConfig: configString(),
    embeddingConfig: configString(),
    recordManagerConfig: configString(),
  })
  .openapi("DocumentStoreCreate");

export const DocumentStoreUpdate = z
  .object({
    name: name().optional(),
    description: text(100_000).nullish(),
    whereUsed: jsonString(100_000).optional(),
    vectorStoreConfig: configString(),
    embeddingConfig: configString(),
    recordManagerConfig: configString(),
  })
  .openapi("DocumentStoreUpdate");

export const DocumentStore = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    loaders: z.string().openapi({
      description:
        "JSON array of loaders: {id, loaderId, loaderName, loaderConfig, splitterId, splitterName, splitterConfig, " +
        "totalChunks, totalChars, status, files, error?, progress?}. " +
        "`progress` {bytesRead, totalBytes, chunks}: while text or JSON Lines files are read a window at a time, " +
        "and after such a run stopped unfinished",
    }),
    whereUsed: z.string(),
    status: z.enum(DOCUMENT_STORE_STATUSES),
    vectorStoreConfig: z.string().nullable(),
    embeddingConfig: z.string().nullable(),
    recordManagerConfig: z.string().nullable(),
    totalChunks: z.number().int(),
    totalChars: z.number().int(),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("DocumentStore");

export const LoaderParams = z.object({ storeId: uuid(), loaderId: uuid() });
// `/chunks/{storeId}/{loaderId}/…` is one path to OpenAPI, so the last segment has one name for
// every method: a page number for GET, a chunk id for PUT and DELETE (the URLs are Flowise's).
export const ChunkParams = z.object({
  storeId: uuid(),
  loaderId: uuid(),
  pageNoOrChunkId: uuid().openapi({ description: "The chunk id" }),
});
export const ChunkPageParams = z.object({
  storeId: uuid(),
  loaderId: z.union([z.literal("all"), uuid()]).openapi({ description: "A loader id, or `all`" }),
  pageNoOrChunkId: z
    .string()
    .regex(/^\d+$/, "must be a positive integer")
    .transform(Number)
    .pipe(z.number().int().min(1).max(1_000_000))
    .openapi({ type: "string", description: "The page number, from 1 (50 chunks a page)" }),
});

const DocumentStoreFileChunk = z
  .object({
    id: z.string(),
    docId: z.string(),
    storeId: z.string(),
    chunkNo: z.number().int(),
    pageContent: z.string(),
    metadata: z.string(),
  })
  .openapi("DocumentStoreFileChunk");

export const DocumentStoreFileChunkPagedResponse = z
  .object({
    chunks: z.array(DocumentStoreFileChunk),
    count: z.number().int(),
    characters: z.number().int(),
    file: z.record(z.string(), z.unknown()).optional().openapi({ description: "The loader (absent for `all`)" }),
    currentPage: z.number().int(),
    storeName: z.string(),
    description: z.string().nullable(),
    docId: z.string(),
  })
  .openapi("DocumentStoreFileChunkPagedResponse");

export const ChunkEdit = z
  .object({
    pageContent: text(1_000_000).pipe(z.string().min(1, "must not be empty")),
    metadata: z.union([z.record(z.string(), z.unknown()), jsonString(100_000, true)]).optional(),
  })
  .openapi("DocumentStoreChunkEdit");

const component = z.object({
  name: text(200).pipe(z.string().trim().min(1, "must not be empty")),
  config: z.record(z.string(), z.unknown()).optional(),
});
/** Multipart sends objects as JSON strings; JSON may send either. */
const componentField = () =>
  z
    .preprocess((v) => {
      if (typeof v !== "string") return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    }, component)
    .optional();
const boolField = () => z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean()).optional();

export const UpsertBody = z
  .object({
    docId: uuid()
      .optional()
      .openapi({ description: "Reuse this loader's configuration (and, with replaceExisting, replace its chunks in place)" }),
    metadata: z.union([z.record(z.string(), z.unknown()), jsonString(100_000, true)]).optional(),
    replaceExisting: boolField(),
    createNewDocStore: boolField(),
    docStore: z
      .preprocess(
        (v) => {
          if (typeof v !== "string") return v;
          try {
            return JSON.parse(v);
          } catch {
            return v;
          }
        },
        z.object({ name: name(), description: text(100_000).nullish() }),
      )
      .optional(),
    loaderName: text(200).optional(),
    loader: componentField(),
    splitter: componentField(),
    embedding: componentField(),
    vectorStore: componentField(),
    recordManager: componentField(),
    async: boolField().openapi({
      description:
        "true: answer 202 at once and finish in the upsert queue; false: run now even when larger than " +
        "UPSERT_QUEUE_CHUNKS chunks or UPSERT_QUEUE_MB of text and JSON Lines files (absent: the queue takes those)",
    }),
  })
  .openapi("DocumentStoreLoaderForUpsert");
export type UpsertInput = z.infer<typeof UpsertBody>;

export const RefreshBody = z
  .object({
    items: z.array(UpsertBody).max(100).optional(),
    async: boolField(),
  })
  .openapi("DocumentStoreRefresh");

export const VectorUpsertResponse = z
  .object({
    numAdded: z.number().int(),
    numUpdated: z.number().int(),
    numSkipped: z.number().int(),
    numDeleted: z.number().int(),
    addedDocs: z.array(z.object({ pageContent: z.string(), metadata: z.record(z.string(), z.unknown()) })),
    docId: z.string(),
    storeId: z.string(),
  })
  .openapi("VectorUpsertResponse");

export const UpsertAccepted = z
  .object({
    docId: z.string(),
    storeId: z.string(),
    status: z.enum(DOCUMENT_STORE_STATUSES),
    message: z.string(),
  })
  .openapi("DocumentStoreUpsertAccepted");

export const QueryBody = z
  .object({
    storeId: uuid(),
    query: text(100_000).pipe(z.string().trim().min(1, "must not be empty")),
    inputs: z
      .object({ topK: z.union([z.number(), z.string()]).optional() })
      .catchall(z.unknown())
      .optional(),
  })
  .openapi("DocumentStoreQuery");

export const QueryResponse = z
  .object({
    timeTaken: z.number(),
    docs: z.array(
      z.object({ pageContent: z.string(), metadata: z.record(z.string(), z.unknown()), id: z.string(), chunkNo: z.number().int() }),
    ),
  })
  .openapi("DocumentStoreQueryResponse");

const componentName = () => text(200).pipe(z.string().trim().min(1, "must not be empty")).optional();
const componentConfig = () => z.record(z.string(), z.unknown()).optional();

/** Flowise's POST /vectorstore/insert: the stored chunks into the vector store (no loading, no splitting). */
export const InsertBody = z
  .object({
    storeId: uuid(),
    docId: uuid().optional().openapi({ description: "Only this loader's chunks (else every loader's)" }),
    embeddingName: componentName(),
    embeddingConfig: componentConfig(),
    vectorStoreName: componentName(),
    vectorStoreConfig: componentConfig(),
    recordManagerName: componentName(),
    recordManagerConfig: componentConfig(),
  })
  .openapi("DocumentStoreVectorInsert");

export const VectorDeleteQuery = z.object({ docId: uuid().optional() });
