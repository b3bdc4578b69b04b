import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { AppEnv } from "./env";
import { checkBindings } from "./middleware/bindings";
import { init } from "./middleware/init";
import { corsPolicy } from "./middleware/cors";
import { limitBody, limitMcpBody, limitWebhookBody } from "./middleware/body-limit";
import { isMcpPath, isWebhookPath } from "./auth/public-paths";
import { handleError, handleNotFound } from "./middleware/error-handler";
import { validationHook } from "./routes/router";
import { metaRoutes } from "./routes/meta";
import { toolsRoutes } from "./routes/tools";
import { apiKeyRoutes } from "./routes/apikeys";
import { authRoutes } from "./routes/auth";
import { chatflowRoutes } from "./routes/chatflows";
import { assistantRoutes } from "./routes/assistants";
import { leadRoutes } from "./routes/leads";
import { chatMessageRoutes } from "./routes/chatmessages";
import { feedbackRoutes } from "./routes/feedback";
import { variableRoutes } from "./routes/variables";
import { credentialRoutes } from "./routes/credentials";
import { upsertHistoryRoutes } from "./routes/upsert-history";
import { predictionRoutes } from "./routes/prediction";
import { widgetRoutes } from "./routes/widget";
import { documentStoreRoutes, isDocumentStoreUpload, limitUpload } from "./routes/document-store";
import { isVectorUpsert, vectorUpsertRoutes } from "./routes/vector-upsert";
import { serveOpenApiDocument } from "./routes/openapi";
import { executionRoutes, publicExecutionRoutes } from "./routes/executions";
import { mcpServerRoutes } from "./routes/mcp-server";
import { mcpRoutes } from "./routes/mcp";
import { openaiRoutes } from "./routes/openai";
import { exportImportRoutes, isImport } from "./routes/export-import";
import { catalogueRoutes } from "./routes/catalogue";
import { flowCanvasRoutes } from "./routes/flow-canvas";
import { webhookRoutes } from "./routes/webhook";
import { chatflowTriggerRoutes } from "./routes/chatflow-triggers";
import { marketplaceRoutes } from "./routes/marketplaces";
import { validationRoutes } from "./routes/validation";
import { generatorRoutes } from "./routes/agentflow-generator";

const API_BASE = "/api/v1";

export function createApp() {
  // strict: false → every path matches with or without a trailing slash (the widget posts to /leads/).
  const app = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });

  app.use("*", requestId({ headerName: "X-Request-Id" }));
  app.use("*", corsPolicy);
  app.use("*", checkBindings);
  // Document store and chatflow vector upserts carry files: their own, larger limit (MAX_UPLOAD_MB).
  // MCP's JSON-RPC bodies and webhooks: 1 MB. An import reads its body as a stream under its own limit (MAX_IMPORT_MB).
  app.use("*", (c, next) => {
    if (isImport(c.req.method, c.req.path)) return next();
    if (isDocumentStoreUpload(c.req.method, c.req.path) || isVectorUpsert(c.req.method, c.req.path)) return limitUpload(c, next);
    if (isWebhookPath(c.req.path)) return limitWebhookBody(c, next);
    return isMcpPath(c.req.path) ? limitMcpBody(c, next) : limitBody(c, next);
  });
  app.use("*", init);

  const api = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });
  api.route("/", metaRoutes);
  api.route("/tools", toolsRoutes);
  api.route("/apikey", apiKeyRoutes);
  api.route("/auth", authRoutes);
  api.route("/chatflows", chatflowRoutes);
  api.route("/chatflows", chatflowTriggerRoutes);
  api.route("/assistants", assistantRoutes);
  api.route("/leads", leadRoutes);
  api.route("/chatmessage", chatMessageRoutes);
  api.route("/feedback", feedbackRoutes);
  api.route("/variables", variableRoutes);
  api.route("/credentials", credentialRoutes);
  api.route("/upsert-history", upsertHistoryRoutes);
  api.route("/prediction", predictionRoutes);
  api.route("/", widgetRoutes);
  api.route("/document-store", documentStoreRoutes);
  api.route("/vector", vectorUpsertRoutes);
  api.route("/executions", executionRoutes);
  api.route("/public-executions", publicExecutionRoutes);
  api.route("/mcp-server", mcpServerRoutes);
  api.route("/mcp", mcpRoutes);
  api.route("/openai", openaiRoutes);
  api.route("/export-import", exportImportRoutes);
  api.route("/webhook", webhookRoutes);
  api.route("/", catalogueRoutes);
  api.route("/", flowCanvasRoutes);
  api.route("/marketplaces", marketplaceRoutes);
  api.route("/validation", validationRoutes);
  api.route("/agentflowv2-generator", generatorRoutes);

  serveOpenApiDocument(api, API_BASE);

  app.route(API_BASE, api);
  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
