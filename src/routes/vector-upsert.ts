// POST /vector/upsert/{chatflowid}: JSON {stopNodeId?, overrideConfig?}, or multipart with `files`
// (each to the loader input its extension names) and the same fields — other form fields are
// overrideConfig entries, as Flowise reads them. A bearer token is always needed (Flowise 3.0.13
// stopped letting anyone upsert); a chatflow bound to an API key needs that key or the admin key.
// POST /vector/internal-upsert/{chatflowid}: the same, for the studio canvas's Upsert button (the
// signed-in person from the worker's own origin, or a bearer), without the flow's rate limit.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest } from "../errors";
import type { LoaderFile } from "../services/document-store/types";
import { IdParam } from "../schemas/common";
import { type VectorUpsertRequest, findChatflow, upsertChatflowVectors } from "../services/vector-upsert";
import { readJsonOrForm } from "./request-body";
import { OPTIONAL_BEARER, bodyReadByHandler, createRouter, describeIssues, errorResponsesFor, multipartWithFiles } from "./router";
import { abortOnDisconnect, runnableFlow } from "./runnable";
import { assertSameOrigin } from "../auth/session";

const tags = ["vector"];

/** Vector upserts carry files: they get the upload limit (MAX_UPLOAD_MB), as document store upserts do. */
export const isVectorUpsert = (method: string, path: string) => method === "POST" && /\/vector\/(internal-)?upsert(\/|$)/.test(path);

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

const upsertRoute = (path: string, summary: string, studio?: { description: string }) =>
  createRoute({
    method: "post",
    path,
    tags,
    summary,
    description: studio?.description,
    // The studio's route also takes its session cookie, which is no bearer scheme of the document.
    security: studio ? OPTIONAL_BEARER : [{ bearerAuth: [] }],
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
      ...errorResponsesFor([400, 401, 403, 404, 413, 415, 429, 502, 504]),
    },
  });

/** The upsert once the caller passed: `studio` asks it from the worker's own origin, without the flow's rate limit. */
async function upsert(c: Context<AppEnv>, id: string, studio: boolean) {
  if (studio) assertSameOrigin(c);
  const flow = await runnableFlow(c, findChatflow(c.var.services, id), {
    bearerRequired: studio
      ? "Unauthorized: sign in to the studio, or send a bearer token, to upsert"
      : "Unauthorized: a bearer token is required to upsert",
    rateLimit: !studio,
  });
  const { request, files } = await readBody(c);
  const controller = new AbortController();
  abortOnDisconnect(c, controller);
  return c.json(await upsertChatflowVectors(c.var.services, flow, request, files, controller.signal), 200);
}

vectorUpsertRoutes.openapi(
  upsertRoute("/upsert/{id}", "Run the chatflow's loader → splitter → embeddings → vector store branch (JSON, or multipart with files)"),
  (c) => upsert(c, c.req.valid("param").id, false),
);

vectorUpsertRoutes.openapi(
  upsertRoute("/internal-upsert/{id}", "The studio canvas's Upsert button: POST /vector/upsert/{id} for the signed-in person", {
    description:
      "The signed-in person (session cookie with `x-request-from: internal`, from the worker's own origin) or a bearer " +
      "token with the upsert's rights; the flow's rate limit does not apply (Flowise's internal upsert).",
  }),
  (c) => upsert(c, c.req.valid("param").id, true),
);
