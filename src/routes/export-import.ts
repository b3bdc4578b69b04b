// Flowise 3.1.4's /export-import: the export file written (POST /export) and taken back in
// (POST /import), so a Flowise deployment moves here in one step, and back. Thin: the import
// reads the body as a stream (a file of up to MAX_IMPORT_MB, never held whole), the export answers
// one; both live in services/export-import.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, type Env, maxImportBytes } from "../env";
import type { BodyLimit } from "../lib/counted-body";
import { requireAuth } from "../auth/bearer";
import { type Guard, guard, lacking } from "../auth/guard";
import { allowsAny } from "../services/callers/access";
import { badRequest, forbidden, unsupportedMediaType } from "../errors";
import { EXPORT_FLAGS, exportFile, exportFlags } from "../services/export-import/export";
import { importFile } from "../services/export-import/import";
import { createRouter, errorResponsesFor } from "./router";

const tags = ["export-import"];

/** The import's own body limit (MAX_IMPORT_MB): its file is read as a stream, never held whole. */
export const isImport = (method: string, path: string) => method === "POST" && /\/export-import\/import\/?$/.test(path);
export const importLimit = (env: Env): BodyLimit => ({
  maxBytes: maxImportBytes(env),
  message: `The import file is larger than the limit of ${Math.round(maxImportBytes(env) / 1024 / 1024)} MB (MAX_IMPORT_MB)`,
});

/** A workspace permission, held by a key that reaches every chatflow: these routes span the whole deployment. */
const workspace = (permission: string): Guard =>
  guard(`${permission}, on a key not limited to some chatflows`, (_c, access) => {
    if (!allowsAny(access, [permission])) throw lacking([permission]);
    if (access.chatflows !== null)
      throw forbidden(`Forbidden: an API key limited to some chatflows cannot use ${permission} (it spans every record of the deployment)`);
  });

const isJson = (c: Context<AppEnv>) => {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!type) throw badRequest("Request body is required (application/json: Flowise's export file)");
  if (type !== "application/json" && !type.endsWith("+json"))
    throw unsupportedMediaType(`Content type ${type} is not accepted: send application/json`);
};

export const exportImportRoutes = createRouter();

const flagsSchema = z.object(Object.fromEntries(EXPORT_FLAGS.map((f) => [f, z.boolean().optional()]))).openapi("ExportFlags");
const fileSchema = z.record(z.string(), z.unknown()).openapi("FlowiseExportFile", {
  description:
    "Flowise 3.1.4's export file: {FileDefaultName, AgentFlow, AgentFlowV2, AssistantCustom, AssistantFlow, " +
    "AssistantOpenAI, AssistantAzure, ChatFlow, ChatMessage, ChatMessageFeedback, CustomTemplate, DocumentStore, " +
    "DocumentStoreFileChunk, Execution, Tool, Variable}, each an array of records",
});

exportImportRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/export",
  tags,
  summary: "Export records as Flowise's export file (variables' values empty, credentials never)",
  description: "Needs: workspace:export, on a key not limited to some chatflows.",
  security: [{ bearerAuth: [] }],
  request: { body: { required: true, content: { "application/json": { schema: flagsSchema } } } },
  responses: {
    200: { description: "The export file", content: { "application/json": { schema: fileSchema } } },
    ...errorResponsesFor([400, 401, 403, 415]),
  },
});

exportImportRoutes.post("/export", requireAuth, workspace("workspace:export"), async (c) => {
  isJson(c);
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw badRequest("Malformed JSON in request body");
  }
  const flags = exportFlags(body);
  return new Response(exportFile(c.var.db, flags), { status: 200, headers: { "content-type": "application/json; charset=UTF-8" } });
});

const ImportResult = z
  .object({
    message: z.literal("success"),
    imported: z.record(z.string(), z.number().int()),
    replaced: z.record(z.string(), z.number().int()),
    skipped: z.record(z.string(), z.number().int()),
    warnings: z.array(z.object({ id: z.string(), name: z.string(), warning: z.string() })),
  })
  .openapi("ImportResult");

exportImportRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/import",
  tags,
  summary: "Import Flowise's export file: every id kept, all or nothing, records already here replaced by the file's",
  description: "Needs: workspace:import, on a key not limited to some chatflows. The body may be up to MAX_IMPORT_MB (default 50 MB).",
  security: [{ bearerAuth: [] }],
  request: { body: { required: true, content: { "application/json": { schema: fileSchema } } } },
  responses: {
    200: { description: "Imported", content: { "application/json": { schema: ImportResult } } },
    ...errorResponsesFor([400, 401, 403, 413, 415]),
  },
});

exportImportRoutes.post("/import", requireAuth, workspace("workspace:import"), async (c) => {
  isJson(c);
  const maxBytes = maxImportBytes(c.env);
  const body = c.req.raw.body;
  if (!body) throw badRequest("Request body is required (application/json: Flowise's export file)");
  return c.json(await importFile(c.var.db, body, { maxBytes, outbound: c.env }), 200);
});
