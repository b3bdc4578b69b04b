// POST /vector/upsert/{chatflowid}: JSON {stopNodeId?, overrideConfig?}, or multipart with `files`
// (each to the loader input its extension names) and the same fields — other form fields are
// overrideConfig entries, as Flowise reads them. A bearer token is always needed (Flowise 3.0.13
// stopped letting anyone upsert); a chatflow bound to an API key needs that key or the admin key.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest } from "../errors";
import type { LoaderFile } from "../services/document-store/types";
import { IdParam } from "../schemas/common";
import { type VectorUpsertRequest, findChatflow, upsertChatflowVectors } from "../services/vector-upsert";
import { readJsonOrForm } from "./request-body";
import { bodyReadByHandler, createRouter, describeIssues, errorResponsesFor, multipartWithFiles } from "./router";
import { abortOnDisconnect, runnableFlow } from "./runnable";

const tags = ["vector"];

/** Vector upserts carry files: they get the upload limit (MAX_UPLOAD_MB), as document store upserts do. */
export const isVectorUpsert = (method: string, path: string) => method === "POST" && /\/vector\/upsert(\/|$)/.test(path);

const VectorUpsertBody = z
  .object({
    stopNodeId: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: "The vector store node to upsert into, when the chatflow has several" }),
    overrideConfig: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Node parameters, as for prediction (gated by apiConfig.overrideConfig)" }),
  })
  .openapi("VectorUpsertRequest");

const VectorUpsertResult = z
  .object({
    numAdded: z.number().int(),
    numUpdated: z.number().int(),
    numSkipped: z.number().int(),
    numDeleted: z.number().int(),
    addedDocs: z.array(z.object({ pageContent: z.string(), metadata: z.record(z.string(), z.unknown()) })),
  })
  .openapi("VectorUpsertResult");

/** JSON (or no body at all), or multipart: `files`, `stopNodeId`, `overrideConfig` (JSON), other fields as overrides. */
async function readBody(c: Context<AppEnv>): Promise<{ request: VectorUpsertRequest; files: LoaderFile[] }> {
  // Every field is optional: a POST without any body upserts the chatflow as saved.
  if (!c.req.header("content-type") && !(await c.req.raw.clone().text()).trim()) return { request: {}, files: [] };
  const body = await readJsonOrForm(c);
  const files: LoaderFile[] = [];
  let raw: Record<string, unknown>;
  if (body.kind === "json") raw = body.body;
  else {
    for (const f of body.files) files.push({ name: f.name, mime: f.type, bytes: new Uint8Array(await f.arrayBuffer()) });
    const { stopNodeId, overrideConfig, ...overrides } = body.fields;
    let given: unknown;
    if (overrideConfig !== undefined) {
      try {
        given = JSON.parse(overrideConfig);
      } catch {
        throw badRequest("overrideConfig must be JSON in a multipart body");
      }
    }
    raw = { stopNodeId, overrideConfig: Object.keys(overrides).length ? { ...overrides, ...(given as object) } : given };
  }
  const parsed = VectorUpsertBody.safeParse(raw);
  if (!parsed.success) throw badRequest(`Invalid request body: ${describeIssues(parsed.error.issues)}`);
  return { request: parsed.data, files };
}

export const vectorUpsertRoutes = createRouter();

const route = createRoute({
  method: "post",
  path: "/upsert/{id}",
  tags,
  summary: "Run the chatflow's loader → splitter → embeddings → vector store branch (JSON, or multipart with files)",
  security: [{ bearerAuth: [] }],
  request: {
    params: IdParam,
    body: bodyReadByHandler(
      vectorUpsertRoutes,
      { name: "VectorUpsertRequest", schema: VectorUpsertBody },
      multipartWithFiles({ stopNodeId: {}, overrideConfig: { description: "JSON; other form fields are overrideConfig entries too" } }),
      false,
    ),
  },
  responses: {
    200: { description: "The upsert's counts", content: { "application/json": { schema: VectorUpsertResult } } },
    ...errorResponsesFor([400, 401, 404, 413, 415, 429, 502, 504]),
  },
});

vectorUpsertRoutes.openapi(route, async (c) => {
  const { id } = c.req.valid("param");
  const flow = await runnableFlow(c, findChatflow(c.var.services, id), {
    bearerRequired: "Unauthorized: a bearer token is required to upsert",
  });
  const { request, files } = await readBody(c);

  const controller = new AbortController();
  abortOnDisconnect(c, controller);
  const result = await upsertChatflowVectors(c.var.services, flow, request, files, controller.signal);
  return c.json(result, 200);
});
