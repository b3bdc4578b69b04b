// GET /openapi.json: the OpenAPI 3.1 document generated from the routes' zod schemas, with an
// operationId on every operation, built once per isolate (it cannot change while one runs).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import pkg from "../../package.json";
import { BEARER_SCHEME } from "./router";

// Flowise's own names where its API description has the operation, so clients generated for
// Flowise keep their method names; ours for the rest. An operation not listed gets one derived
// from its method and path (derivedOperationId), so a new route never leaves one without.
const OPERATION_IDS: Record<string, string> = {
  "GET /ping": "pingServer",
  "GET /version": "getVersion",
  "POST /tools": "createTool",
  "GET /tools": "getAllTools",
  "GET /tools/{id}": "getToolById",
  "PUT /tools/{id}": "updateTool",
  "DELETE /tools/{id}": "deleteTool",
  "POST /apikey": "createApiKey",
  "GET /apikey": "getAllApiKeys",
  "GET /apikey/{id}": "getApiKeyById",
  "PUT /apikey/{id}": "updateApiKey",
  "DELETE /apikey/{id}": "deleteApiKey",
  "POST /chatflows": "createChatflow",
  "GET /chatflows": "listChatflows",
  "GET /chatflows/apikey/{apikey}": "getChatflowByApiKey",
  "GET /chatflows/{id}": "getChatflowById",
  "PUT /chatflows/{id}": "updateChatflow",
  "DELETE /chatflows/{id}": "deleteChatflow",
  "POST /assistants": "createAssistant",
  "GET /assistants": "listAssistants",
  "GET /assistants/{id}": "getAssistantById",
  "PUT /assistants/{id}": "updateAssistant",
  "DELETE /assistants/{id}": "deleteAssistant",
  "POST /leads": "createLead",
  "GET /leads/{chatflowid}": "getAllLeadsForChatflow",
  "GET /chatmessage/{chatflowid}": "getAllChatMessages",
  "DELETE /chatmessage/{chatflowid}": "removeAllChatMessages",
  "POST /feedback": "createChatMessageFeedbackForChatflow",
  "POST /feedback/{id}": "createChatMessageFeedbackWithChatflowId",
  "GET /feedback/{id}": "getAllChatMessageFeedback",
  "PUT /feedback/{id}": "updateChatMessageFeedbackForChatflow",
  "POST /variables": "createVariable",
  "GET /variables": "getAllVariables",
  "PUT /variables/{id}": "updateVariable",
  "DELETE /variables/{id}": "deleteVariable",
  "POST /credentials": "createCredential",
  "GET /credentials": "getAllCredentials",
  "GET /credentials/{id}": "getCredentialById",
  "PUT /credentials/{id}": "updateCredential",
  "DELETE /credentials/{id}": "deleteCredential",
  "GET /upsert-history/{chatflowid}": "getAllUpsertHistory",
  "PATCH /upsert-history": "patchDeleteUpsertHistory",
  "PATCH /upsert-history/{chatflowid}": "patchDeleteUpsertHistoryOfChatflow",
  "POST /prediction/{id}": "createPrediction",
  "GET /chatflows-streaming/{id}": "getChatflowStreaming",
  "GET /public-chatbotConfig/{id}": "getPublicChatbotConfig",
  "PUT /chatmessage/abort/{chatflowid}/{chatId}": "abortChatMessage",
  "POST /document-store/store": "createDocumentStore",
  "GET /document-store/store": "getAllDocumentStores",
  "GET /document-store/store/{id}": "getDocumentStoreById",
  "PUT /document-store/store/{id}": "updateDocumentStore",
  "DELETE /document-store/store/{id}": "deleteDocumentStore",
  "GET /document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}": "getDocumentStoreFileChunks",
  "PUT /document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}": "editDocumentStoreFileChunk",
  "DELETE /document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}": "deleteDocumentStoreFileChunk",
  "DELETE /document-store/loader/{storeId}/{loaderId}": "deleteLoaderFromDocumentStore",
  "POST /document-store/refresh/{id}": "refreshDocument",
  "POST /document-store/vectorstore/query": "queryVectorStore",
  "DELETE /document-store/vectorstore/{id}": "deleteVectorStoreFromStore",
  "POST /document-store/upsert/{id}": "upsertDocument",
  "POST /vector/upsert/{id}": "vectorUpsert",
};

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const camel = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map(capitalize)
    .join("");

/** `get /document-store/store/{id}` → `getDocumentStoreStoreById`. */
const derivedOperationId = (method: string, path: string): string =>
  method.toLowerCase() +
  path
    .split("/")
    .filter(Boolean)
    .map((seg) => (seg.startsWith("{") ? `By${camel(seg)}` : camel(seg)))
    .join("");

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Fills in every operation's operationId (listed, else derived); answers the same document. */
function withOperationIds<D extends { paths?: object }>(doc: D): D {
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Record<string, { operationId?: string }>][]) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || op.operationId) continue;
      op.operationId = OPERATION_IDS[`${method.toUpperCase()} ${path}`] ?? derivedOperationId(method, path);
    }
  }
  return doc;
}

/**
 * Registers the bearer scheme and GET /openapi.json on the API router mounted at `base`. The scheme
 * is also the document's default requirement (each operation still names its own: anonymous for
 * public routes), so clients and the reference page ask for a key by default.
 */
export function serveOpenApiDocument(api: OpenAPIHono<AppEnv>, base: string): void {
  api.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "An API key (from POST /apikey or ADMIN_API_KEY) or an HS256 JWT signed with JWT_SECRET",
  });
  let document: string | undefined;
  api.get("/openapi.json", (c) => {
    document ??= JSON.stringify(
      withOperationIds(
        api.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "edgeflow API",
            version: pkg.version,
            description: "Flowise-compatible workflow builder API on Cloudflare Workers",
          },
          servers: [{ url: base }],
          security: [{ [BEARER_SCHEME]: [] }],
        }),
      ),
    );
    return c.body(document, 200, { "content-type": "application/json; charset=UTF-8" });
  });
}
