// Bodies of the studio's document store wizard (routes/document-store-wizard.ts), as Flowise's page
// sends them: the loader page's config (preview, save, process) and the vector store page's choice.
import { z } from "@hono/zod-openapi";
import { text, uuid } from "./common";

const nodeName = () => text(200).pipe(z.string().trim().min(1, "must not be empty"));
/** The page sends `''` or null for a component it has none of. */
const optionalName = () => text(200).nullish();
const config = () => z.record(z.string(), z.unknown());

export const LoaderConfigBody = z
  .object({
    storeId: uuid(),
    id: uuid().optional().openapi({ description: "The loader being edited (absent: a new loader)" }),
    loaderId: nodeName().openapi({ description: "The document loader node, e.g. pdfFile" }),
    loaderName: text(1000).optional(),
    loaderConfig: config()
      .default({})
      .openapi({ description: "The loader's inputs; a file input holds data URIs (`data:…;base64,…,filename:x.pdf`)" }),
    splitterId: optionalName(),
    splitterName: text(200).nullish(),
    splitterConfig: config().nullish(),
    credential: text(100).nullish(),
  })
  .openapi("DocumentStoreLoaderConfig");

export const PreviewBody = LoaderConfigBody.extend({
  previewChunkCount: z.coerce.number().int().min(-1).max(100_000).default(20).openapi({ description: "-1: every chunk" }),
}).openapi("DocumentStoreLoaderPreview");

export const PreviewResponse = z
  .object({
    chunks: z.array(z.object({ pageContent: z.string(), metadata: z.record(z.string(), z.unknown()) })),
    totalChunks: z.number().int(),
    previewChunkCount: z.number().int(),
  })
  .openapi("DocumentStoreLoaderPreviewResult");

export const VectorConfigBody = z
  .object({
    storeId: uuid(),
    docId: uuid().nullish(),
    isStrictSave: z.boolean().optional(),
    embeddingName: optionalName(),
    embeddingConfig: config().nullish(),
    vectorStoreName: optionalName(),
    vectorStoreConfig: config().nullish(),
    recordManagerName: optionalName(),
    recordManagerConfig: config().nullish(),
  })
  .openapi("DocumentStoreVectorConfig");

export const ToolDescBody = z
  .object({
    selectedChatModel: z
      .object({
        name: nodeName().openapi({ description: "A chat model node, e.g. chatOpenAI" }),
        inputs: z.record(z.string(), z.unknown()).optional(),
        credential: text(100).nullish(),
      })
      .passthrough(),
  })
  .openapi("DocumentStoreToolDescRequest");

export const StoreConfigParams = z.object({ storeId: uuid(), loaderId: uuid() });
export const LoaderIdParam = z.object({ loaderId: uuid() });
export const ComponentKindParam = z.object({
  kind: z.enum(["loaders", "embeddings", "vectorstore", "recordmanager"], {
    message: "must be loaders, embeddings, vectorstore or recordmanager",
  }),
});
