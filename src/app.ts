import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env";
import { checkBindings } from "./middleware/bindings";
import { init } from "./middleware/init";
import { requestId } from "./middleware/request-id";
import { studioShapes } from "./middleware/studio-shapes";
import { corsPolicy } from "./middleware/cors";
import { MCP_BODY_LIMIT, WEBHOOK_BODY_LIMIT, defaultBodyLimit, limitBody } from "./middleware/body-limit";
import { isMcpPath, isWebhookPath } from "./auth/public-paths";
import { handleError, handleNotFound } from "./middleware/error-handler";
import { validationHook } from "./routes/router";
import { metaRoutes } from "./routes/meta";
import { toolsRoutes } from "./routes/tools";
import { customMcpServersRoutes } from "./routes/custom-mcp-servers";
import { webhookListenerRoutes } from "./routes/webhook-listener";
import { apiKeyRoutes } from "./routes/apikeys";
import { authRoutes } from "./routes/auth";
import { signInRoutes } from "./routes/sign-in";
import { accountSettingsRoutes } from "./routes/account-settings";
import { chatflowRoutes } from "./routes/chatflows";
import { assistantRoutes } from "./routes/assistants";
import { assistantComponentRoutes, assistantGenerateRoutes } from "./routes/assistant-components";
import { openaiAssistantsRoutes } from "./routes/openai-assistants";
import { leadRoutes } from "./routes/leads";
import { chatMessageRoutes } from "./routes/chatmessages";
import { feedbackRoutes } from "./routes/feedback";
import { variableRoutes } from "./routes/variables";
import { credentialRoutes } from "./routes/credentials";
import { oauth2Routes } from "./routes/oauth2";
import { upsertHistoryRoutes } from "./routes/upsert-history";
import { predictionRoutes } from "./routes/prediction";
import { internalChatMessageRoutes, internalPredictionRoutes } from "./routes/internal-chat";
import { widgetRoutes } from "./routes/widget";
import { textToSpeechRoutes } from "./routes/text-to-speech";
import { documentStoreRoutes, isDocumentStoreUpload, uploadLimit } from "./routes/document-store";
import { documentStoreWizardRoutes, isWizardUpload, nodeCategoryRoutes, wizardUploadLimit } from "./routes/document-store-wizard";
import { isVectorUpsert, vectorUpsertRoutes } from "./routes/vector-upsert";
import { serveOpenApiDocument } from "./routes/openapi";
import { executionRoutes, publicExecutionRoutes } from "./routes/executions";
import { mcpServerRoutes } from "./routes/mcp-server";
import { mcpRoutes } from "./routes/mcp";
import { openaiRoutes } from "./routes/openai";
import { exportImportRoutes, importLimit, isImport } from "./routes/export-import";
import { catalogueRoutes } from "./routes/catalogue";
import { flowCanvasRoutes } from "./routes/flow-canvas";
import { webhookRoutes } from "./routes/webhook";
import { chatflowTriggerRoutes } from "./routes/chatflow-triggers";
import { marketplaceRoutes } from "./routes/marketplaces";
import { validationRoutes } from "./routes/validation";
import { generatorRoutes } from "./routes/agentflow-generator";
import { chatFileRoutes, isAttachmentUpload } from "./routes/chat-files";
import { chatExtraRoutes } from "./routes/chat-extras";

const API_BASE = "/api/v1";

export function createApp() {
  // strict: false → every path matches with or without a trailing slash (the widget posts to /leads/).
  const app = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });

  app.use("*", requestId);
  app.use("*", corsPolicy);
  app.use("*", checkBindings);
  // Each body under its route's limit, counted as it streams: document store and chatflow vector
  // upserts carry files (MAX_UPLOAD_MB), an import its export file (MAX_IMPORT_MB), MCP's JSON-RPC
  // bodies and webhooks 1 MB, the rest MAX_BODY_MB.
  app.use(
    "*",
    limitBody((c) => {
      const { method, path } = c.req;
      if (isImport(method, path)) return importLimit(c.env);
      if (isDocumentStoreUpload(method, path) || isVectorUpsert(method, path) || isAttachmentUpload(method, path)) return uploadLimit(c);
      if (isWizardUpload(method, path)) return wizardUploadLimit(c);
      if (isWebhookPath(path)) return WEBHOOK_BODY_LIMIT;
      return isMcpPath(path) ? MCP_BODY_LIMIT : defaultBodyLimit(c.env);
    }),
  );
  app.use("*", init);
  app.use("/api/v1/*", studioShapes);

  const api = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: validationHook });
  api.route("/", metaRoutes);
  api.route("/tools", toolsRoutes);
  api.route("/custom-mcp-servers", customMcpServersRoutes);
  api.route("/webhook-listener", webhookListenerRoutes);
  api.route("/apikey", apiKeyRoutes);
  api.route("/auth", authRoutes);
  api.route("/", signInRoutes);
  api.route("/", accountSettingsRoutes);
  api.route("/chatflows", chatflowRoutes);
  api.route("/chatflows", chatflowTriggerRoutes);
  api.route("/assistants/components", assistantComponentRoutes);
  api.route("/assistants/generate", assistantGenerateRoutes);
  api.route("/assistants", assistantRoutes);
  api.route("/leads", leadRoutes);
  api.route("/chatmessage", chatMessageRoutes);
  api.route("/feedback", feedbackRoutes);
  api.route("/variables", variableRoutes);
  api.route("/credentials", credentialRoutes);
  api.route("/oauth2-credential", oauth2Routes);
  api.route("/upsert-history", upsertHistoryRoutes);
  api.route("/prediction", predictionRoutes);
  api.route("/internal-prediction", internalPredictionRoutes);
  api.route("/internal-chatmessage", internalChatMessageRoutes);
  api.route("/", widgetRoutes);
  api.route("/", textToSpeechRoutes);
  api.route("/", openaiAssistantsRoutes);
  api.route("/document-store", documentStoreRoutes);
  api.route("/document-store", documentStoreWizardRoutes);
  api.route("/vector", vectorUpsertRoutes);
  api.route("/executions", executionRoutes);
  api.route("/public-executions", publicExecutionRoutes);
  api.route("/mcp-server", mcpServerRoutes);
  api.route("/mcp", mcpRoutes);
  api.route("/openai", openaiRoutes);
  api.route("/export-import", exportImportRoutes);
  api.route("/webhook", webhookRoutes);
  api.route("/", nodeCategoryRoutes);
  api.route("/", catalogueRoutes);
  api.route("/", flowCanvasRoutes);
  api.route("/marketplaces", marketplaceRoutes);
  api.route("/validation", validationRoutes);
  api.route("/agentflowv2-generator", generatorRoutes);
  api.route("/", chatFileRoutes);
  api.route("/", chatExtraRoutes);

  serveOpenApiDocument(api, API_BASE);

  app.route(API_BASE, api);
  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
