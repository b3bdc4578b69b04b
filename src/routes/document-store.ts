import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, maxBodyBytes, maxUploadBytes } from "../env";
import { requireAuth } from "../auth/bearer";
import type { BodyLimit } from "../lib/counted-body";
import { badRequest } from "../errors";
import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import {
  ChunkEdit,
  ChunkPageParams,
  ChunkParams,
  DocumentStore,
  DocumentStoreCreate,
  DocumentStoreFileChunkPagedResponse,
  DocumentStoreUpdate,
  InsertBody,
  LoaderParams,
  QueryBody,
  QueryResponse,
  RefreshBody,
  UpsertAccepted,
  UpsertBody,
  type UpsertInput,
  VectorDeleteQuery,
  VectorUpsertResponse,
} from "../schemas/document-store";
import * as chunks from "../services/document-store/chunks";
import * as stores from "../services/document-store/stores";
import type { DocStoreDeps } from "../services/document-store/types";
import { isAccepted, refreshDocStore, upsertDocStore } from "../services/document-store/upsert";
import type { Uploads } from "../services/document-store/plan";
import { discardUpload, largestUpload, receiveForm } from "../services/document-store/uploads";
import { queryStore } from "../services/document-store/query";
import { deleteStoreVectors } from "../services/document-store/vectors";
import { insertStoredChunks } from "../services/document-store/insert";
import { readJsonOrForm } from "./request-body";
import { createRouter, describeIssues, errorResponsesFor, jsonBody, jsonResponse, protectedRoute, validationHook } from "./router";
import { assertAllowed, can } from "../auth/guard";

const tags = ["document-store"];

/** The request's services container (c.var.services): it is what document stores take. */
const depsOf = (c: Context<AppEnv>): DocStoreDeps => c.var.services;

/**
 * Upserts carry files. A chatflow's vector upsert: up to MAX_UPLOAD_MB (plus room for the form
 * fields). A document store upsert streams its files to R2 as they arrive and checks each against
 * its own limit (uploads.ts): its body may be as large as its largest file limit plus MAX_BODY_MB.
 */
export const isDocumentStoreUpload = (method: string, path: string) => method === "POST" && /\/document-store\/upsert(\/|$)/.test(path);
export const uploadLimit = (c: Context<AppEnv>): BodyLimit => {
  if (!isDocumentStoreUpload(c.req.method, c.req.path)) {
    const mb = Math.round(maxUploadBytes(c.env) / 1024 / 1024);
    return { maxBytes: maxUploadBytes(c.env) + 256 * 1024, message: `Upload is larger than the limit of ${mb} MB (MAX_UPLOAD_MB)` };
  }
  const max = largestUpload(c.env) + maxBodyBytes(c.env);
  return {
    maxBytes: max,
    message:
      `Upload is larger than the limit of ${Math.round(max / 1024 / 1024)} MB (the largest file limit, MAX_STREAMED_FILE_MB or ` +
      `MAX_UPLOAD_MB, plus MAX_BODY_MB for the fields)`,
  };
};

/**
 * The upsert body: JSON (files as data URIs), or multipart with `files` (staged in R2 as they
 * arrive) and the same fields (objects as JSON strings).
 */
async function readUpsertBody(c: Context<AppEnv>, storeId: string): Promise<{ input: UpsertInput; uploads: Uploads }> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data")) {
    const body = await readJsonOrForm(c);
    return { input: parseUpsertBody(body.kind === "json" ? body.body : body.fields), uploads: { files: [] } };
  }
  const form = await receiveForm(c.env, c.env.FILES, storeId, c.req.raw.body, c.req.header("content-type") ?? "");
  try {
    return { input: parseUpsertBody(form.fields), uploads: { files: form.files, id: form.uploadId } };
  } catch (err) {
    await discardUpload(c.env.FILES, storeId, form.uploadId);
    throw err;
  }
}

function parseUpsertBody(raw: unknown): UpsertInput {
  const parsed = UpsertBody.safeParse(raw);
  if (!parsed.success) throw badRequest(`Invalid request body: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

export const documentStoreRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/store",
      permission: can("documentStores:create"),
      tags,
      summary: "Create a document store",
      request: { body: jsonBody(DocumentStoreCreate) },
      responses: jsonResponse(DocumentStore),
    }),
    async (c) => c.json(await stores.createStore(c.var.db, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/store",
      permission: can("documentStores:view"),
      tags,
      summary: "List document stores",
      request: { query: PageQuery },
      responses: jsonResponse(listOf(DocumentStore)),
    }),
    async (c) => c.json(await stores.listStores(c.var.db, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/store/{id}",
      permission: can("documentStores:view", "documentStores:update", "documentStores:delete"),
      tags,
      summary: "Get a document store",
      request: { params: IdParam },
      responses: jsonResponse(DocumentStore),
    }),
    async (c) => c.json(await stores.getStore(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/store/{id}",
      permission: can("documentStores:create", "documentStores:update"),
      tags,
      summary: "Update a document store",
      request: { params: IdParam, body: jsonBody(DocumentStoreUpdate) },
      responses: jsonResponse(DocumentStore),
    }),
    async (c) => c.json(await stores.updateStore(c.var.db, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/store/{id}",
      permission: can("documentStores:delete"),
      tags,
      summary: "Delete a document store with its chunks, vectors, records and files",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await stores.deleteStore(c.var.db, c.env, c.env.FILES, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}",
      permission: can("documentStores:view"),
      tags,
      summary: "A page of 50 chunks of a loader (or `all`)",
      request: { params: ChunkPageParams },
      responses: jsonResponse(DocumentStoreFileChunkPagedResponse),
    }),
    async (c) => {
      const { storeId, loaderId, pageNoOrChunkId: pageNo } = c.req.valid("param");
      return c.json(await chunks.chunkPage(c.var.db, storeId, loaderId, pageNo), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}",
      permission: can("documentStores:update"),
      tags,
      summary: "Edit a chunk; answers the page it is on",
      request: { params: ChunkParams, body: jsonBody(ChunkEdit) },
      responses: jsonResponse(DocumentStoreFileChunkPagedResponse),
    }),
    async (c) => {
      const { storeId, loaderId, pageNoOrChunkId: chunkId } = c.req.valid("param");
      return c.json(await chunks.editChunk(c.var.db, storeId, loaderId, chunkId, c.req.valid("json")), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}",
      permission: can("documentStores:update", "documentStores:delete"),
      tags,
      summary: "Delete a chunk",
      request: { params: ChunkParams },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => {
      const { storeId, loaderId, pageNoOrChunkId: chunkId } = c.req.valid("param");
      return c.json(await chunks.deleteChunk(c.var.db, storeId, loaderId, chunkId), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/loader/{storeId}/{loaderId}",
      permission: can("documentStores:delete-loader"),
      tags,
      summary: "Delete a loader and its chunks (not its vectors)",
      request: { params: LoaderParams },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => {
      const { storeId, loaderId } = c.req.valid("param");
      return c.json(await chunks.deleteLoader(c.var.db, c.env.FILES, storeId, loaderId), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/refresh/{id}",
      permission: can("documentStores:upsert-config"),
      tags,
      summary: "Process the store's loaders again and upsert them",
      request: { params: IdParam, body: { required: false, content: { "application/json": { schema: RefreshBody } } } },
      responses: {
        ...jsonResponse(z.array(VectorUpsertResponse)),
        202: { description: "Accepted (async)", content: { "application/json": { schema: z.array(UpsertAccepted) } } },
        ...errorResponsesFor([502, 504]),
      },
    }),
    async (c) => {
      const body = (c.req.valid("json") ?? {}) as z.infer<typeof RefreshBody>;
      const result = await refreshDocStore(depsOf(c), c.env.FILES, c.req.valid("param").id, body);
      return c.json(result as never, body.async ? 202 : 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/vectorstore/insert",
      permission: can("documentStores:upsert-config"),
      tags,
      summary:
        "Insert the store's stored chunks into its vector store (no loading or splitting: how a store moved in " +
        "from Flowise gets its vectors back)",
      request: { body: jsonBody(InsertBody) },
      responses: { ...jsonResponse(VectorUpsertResponse), ...errorResponsesFor([502, 504]) },
    }),
    async (c) => c.json(await insertStoredChunks(depsOf(c), c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/vectorstore/query",
      permission: can("documentStores:view"),
      tags,
      summary: "Query a store's vector store",
      request: { body: jsonBody(QueryBody) },
      responses: { ...jsonResponse(QueryResponse), ...errorResponsesFor([502, 504]) },
    }),
    async (c) => c.json(await queryStore(depsOf(c), c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/vectorstore/{id}",
      permission: can("documentStores:upsert-config"),
      tags,
      summary: "Delete the vectors a record manager recorded (optionally of one loader: ?docId=)",
      request: { params: IdParam, query: VectorDeleteQuery },
      responses: { ...jsonResponse(DeletedResponse), ...errorResponsesFor([502, 504]) },
    }),
    async (c) => c.json(await deleteStoreVectors(depsOf(c), c.req.valid("param").id, c.req.valid("query").docId), 200),
  );

documentStoreRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/upsert/{id}",
  tags,
  summary: "Load, split and upsert into the store's vector store (JSON, or multipart with files)",
  description: "Needs: documentStores:upsert-config (and documentStores:create with createNewDocStore).",
  security: [{ bearerAuth: [] }],
  request: {
    params: IdParam,
    body: {
      required: true,
      content: {
        "application/json": { schema: UpsertBody },
        "multipart/form-data": {
          schema: z.object({
            files: z.array(z.string().openapi({ format: "binary" })).optional(),
            docId: z.string().optional(),
            loader: z.string().optional(),
            splitter: z.string().optional(),
            embedding: z.string().optional(),
            vectorStore: z.string().optional(),
            recordManager: z.string().optional(),
            metadata: z.string().optional(),
            replaceExisting: z.string().optional(),
            createNewDocStore: z.string().optional(),
            docStore: z.string().optional(),
            async: z.string().optional(),
          }),
        },
      },
    },
  },
  responses: {
    200: { description: "The upsert's counts", content: { "application/json": { schema: VectorUpsertResponse } } },
    202: {
      description:
        "Accepted: continues in the queue (`async: true`, or more than UPSERT_QUEUE_CHUNKS chunks or " +
        "UPSERT_QUEUE_MB of text and JSON Lines files)",
      content: { "application/json": { schema: UpsertAccepted } },
    },
    ...errorResponsesFor([400, 401, 403, 404, 413, 415, 502, 504]),
  },
});

documentStoreRoutes.post("/upsert/:id", requireAuth, can("documentStores:upsert-config"), async (c) => {
  const params = IdParam.safeParse({ id: c.req.param("id") });
  if (!params.success) validationHook({ success: false, target: "param", error: params.error }, c);
  const storeId = params.data!.id;
  const { input, uploads } = await readUpsertBody(c, storeId);
  if (input.createNewDocStore) {
    await assertAllowed(c, ["documentStores:create"]).catch(async (err: unknown) => {
      if (uploads.id) await discardUpload(c.env.FILES, storeId, uploads.id);
      throw err;
    });
  }
  const result = await upsertDocStore(depsOf(c), c.env.FILES, storeId, input, uploads);
  return c.json(result, isAccepted(result) ? 202 : 200);
});
