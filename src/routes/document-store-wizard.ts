// The studio's document store wizard (Flowise's document store pages): component lists, the loader
// page's preview / save / process, the vector store page's saved choice, the upsert API dialog's
// configs and the tool description generator. Thin: services/document-store/wizard-*.ts do the work.
import { z } from "@hono/zod-openapi";
import { AUTHENTICATED, assertAllowed, can } from "../auth/guard";
import { type AppEnv, maxBodyBytes, maxUploadBytes } from "../env";
import type { Context } from "hono";
import type { BodyLimit } from "../lib/counted-body";
import { text, uuid } from "../schemas/common";
import { DocumentStore, DocumentStoreFileChunkPagedResponse, UpsertAccepted } from "../schemas/document-store";
import {
  ComponentKindParam,
  LoaderConfigBody,
  LoaderIdParam,
  PreviewBody,
  PreviewResponse,
  StoreConfigParams,
  ToolDescBody,
  VectorConfigBody,
} from "../schemas/document-store-wizard";
import { nodesOfCategory, wizardComponents } from "../services/document-store/wizard-components";
import { previewChunks, processLoader, saveLoader } from "../services/document-store/wizard-loader";
import { generateToolDescription } from "../services/document-store/wizard-tool-desc";
import { saveVectorConfig, storeConfigs, updateVectorStoreConfig } from "../services/document-store/wizard-vector";
import { isAccepted } from "../services/document-store/upsert";
import { createRouter, errorResponsesFor, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["document-store"];
const Descriptor = z.record(z.string(), z.unknown()).openapi("NodeDescriptor");
const LoaderEntry = z.record(z.string(), z.unknown()).openapi("DocumentStoreLoaderEntry");
const OverrideConfig = z.object({ node: z.string(), nodeId: z.string(), label: z.string(), name: z.string(), type: z.string() });

/**
 * The loader page sends its files inside the JSON body, as base64 data URIs: room for a file of
 * MAX_UPLOAD_MB so encoded, plus MAX_BODY_MB for the rest.
 */
export const isWizardUpload = (method: string, path: string) =>
  method === "POST" && /\/document-store\/loader\/(preview|save|process\/[^/]+)\/?$/.test(path);
export const wizardUploadLimit = (c: Context<AppEnv>): BodyLimit => {
  const max = Math.ceil((maxUploadBytes(c.env) * 4) / 3) + maxBodyBytes(c.env);
  return {
    maxBytes: max,
    message:
      `Request body is larger than the limit of ${Math.round(max / 1024 / 1024)} MB ` +
      "(a MAX_UPLOAD_MB file as base64, plus MAX_BODY_MB)",
  };
};

export const documentStoreWizardRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/components/{kind}",
      permission: can("documentStores:add-loader", "documentStores:upsert-config"),
      tags,
      summary: "The loaders, embeddings, vector stores or record managers a document store here runs (node descriptors)",
      request: { params: ComponentKindParam },
      responses: jsonResponse(z.array(Descriptor)),
    }),
    async (c) => {
      const { kind } = c.req.valid("param");
      // Flowise's: the loader list for adding loaders, the others for configuring the upsert.
      await assertAllowed(c, [kind === "loaders" ? "documentStores:add-loader" : "documentStores:upsert-config"]);
      return c.json(await wizardComponents(c.env, kind), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/loader/preview",
      permission: can("documentStores:preview-process"),
      tags,
      summary: "The first chunks a loader and splitter make of their input (nothing is stored)",
      request: { body: jsonBody(PreviewBody) },
      responses: { ...jsonResponse(PreviewResponse), ...errorResponsesFor([413, 415]) },
    }),
    async (c) => c.json(await previewChunks(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/loader/save",
      permission: can("documentStores:preview-process"),
      tags,
      summary: "Save a loader with its config and files (SYNCING until processed)",
      request: { body: jsonBody(LoaderConfigBody) },
      responses: { ...jsonResponse(LoaderEntry), ...errorResponsesFor([409, 413, 415]) },
    }),
    async (c) => c.json(await saveLoader(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/loader/process/{loaderId}",
      permission: can("documentStores:preview-process"),
      tags,
      summary: "Read and split a saved loader's files into chunks (SYNC); answers the first page of them",
      description: "Larger than a request processes (UPSERT_QUEUE_MB, UPSERT_QUEUE_CHUNKS): 202, continued in the upsert queue.",
      request: { params: LoaderIdParam, body: jsonBody(z.object({ storeId: uuid() }).passthrough()) },
      responses: {
        ...jsonResponse(DocumentStoreFileChunkPagedResponse),
        202: { description: "Accepted: continues in the upsert queue", content: { "application/json": { schema: UpsertAccepted } } },
        ...errorResponsesFor([409, 413, 415]),
      },
    }),
    async (c) => {
      const result = await processLoader(c.var.services, c.req.valid("json").storeId, c.req.valid("param").loaderId);
      return "status" in result && isAccepted(result as never) ? c.json(result as never, 202) : c.json(result as never, 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/store-configs/{storeId}/{loaderId}",
      permission: can("documentStores:view"),
      tags,
      summary: "The inputs an upsert of this loader may override (the upsert API dialog's table)",
      request: { params: StoreConfigParams },
      responses: jsonResponse(z.array(OverrideConfig)),
    }),
    async (c) => {
      const { storeId, loaderId } = c.req.valid("param");
      return c.json(await storeConfigs(c.var.services, storeId, loaderId), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/vectorstore/save",
      permission: can("documentStores:upsert-config"),
      tags,
      summary: "Save the store's embeddings, vector store and record manager (not given: cleared) without upserting",
      request: { body: jsonBody(VectorConfigBody) },
      responses: jsonResponse(DocumentStore),
    }),
    async (c) => c.json(await saveVectorConfig(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/vectorstore/update",
      permission: can("documentStores:upsert-config"),
      tags,
      summary: "Change only the store's vector store config (the query page's settings); `{}` when none is given",
      request: { body: jsonBody(VectorConfigBody) },
      responses: jsonResponse(z.union([DocumentStore, z.object({})])),
    }),
    async (c) => c.json(await updateVectorStoreConfig(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/generate-tool-desc/{id}",
      permission: can("documentStores:view"),
      tags,
      summary: "A chosen chat model writes a tool description from the store's first chunks",
      request: { params: z.object({ id: uuid() }), body: jsonBody(ToolDescBody) },
      responses: { ...jsonResponse(z.object({ content: z.string() })), ...errorResponsesFor([502, 504]) },
    }),
    async (c) => {
      const { selectedChatModel } = c.req.valid("json");
      return c.json(await generateToolDescription(c.var.services, c.req.valid("param").id, selectedChatModel, c.req.raw.signal), 200);
    },
  );

/** Flowise's GET /nodes/category/{name} (the loader page's splitter list). */
export const nodeCategoryRoutes = createRouter().openapi(
  protectedRoute({
    method: "get",
    path: "/nodes/category/{name}",
    permission: AUTHENTICATED,
    tags: ["studio"],
    summary: "The catalogue's nodes of one category (the document store wizard's ones: those it runs)",
    request: { params: z.object({ name: text(200) }) },
    responses: jsonResponse(z.array(Descriptor)),
  }),
  async (c) => c.json(await nodesOfCategory(c.env, c.req.valid("param").name), 200),
);
