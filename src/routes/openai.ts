// The OpenAI-compatible API at /openai (API.md "OpenAI-compatible API"): any OpenAI client calls a
// flow with baseURL {base_url}/openai and an edgeflow API key. Thin: bodies are validated here (a
// failure is OpenAI's 400 naming the field), the flow found and its run rule applied (runnable.ts,
// as POST /prediction with a bearer token required), the rest is services/openai. Every error of
// these paths has OpenAI's body (middleware/error-handler.ts).
import { OpenAPIHono, type RouteConfig, createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bearerTokenOf, requireAuth, resolvePrincipal } from "../auth/bearer";
import { assertMayRun } from "../auth/prediction-access";
import type { AppEnv } from "../env";
import { ApiError, unauthorized } from "../errors";
import { isUuid } from "../lib/ids";
import { workerSecretValues } from "../lib/secrets";
import {
  ChatCompletion,
  ChatCompletionRequest,
  OpenAIErrorResponse,
  OpenAIModelList,
  OpenAIResponse,
  ResponseIdParam,
  ResponseRequest,
} from "../schemas/openai";
import { type ChatTarget, completeChat, streamChat } from "../services/openai/chat";
import { checkChatRequest, chatRunOf } from "../services/openai/chat-request";
import { askedSessionOf } from "../services/openai/request-common";
import { OpenAIError, modelNotFound } from "../services/openai/errors";
import { listModels, lookUpModel, resolveModel } from "../services/openai/models";
import { checkResponseRequest, responseRunOf } from "../services/openai/responses-request";
import { createResponse, streamResponse } from "../services/openai/responses";
import { continuedResponse, findResponse } from "../services/openai/responses-store";
import { type FlowRunDeps, type RunLookups, type SessionAsked, findFlow, lookUpFlow } from "../services/openai/run-flow";
import type { LateStream } from "../services/openai/stream";
import { SSE_HEADERS } from "../stream/sse";
import { describeIssues } from "./router";
import { runnableFlow } from "./runnable";

const BEARER_REQUIRED = "Unauthorized: the OpenAI-compatible API needs an API key (Authorization: Bearer <key>)";
const tags = ["openai"];
const security = [{ bearerAuth: [] }];
const NEEDS_RUN =
  "Needs: any valid bearer token; a flow bound to an API key takes only that key (or the admin key), and a key " +
  "limited to chatflows only those.";

type Issue = { path: PropertyKey[]; message: string; code?: string };

/** A body or path that fails its schema: OpenAI's 400, `param` naming the first field at fault. */
function openAIValidationHook(
  result: { success: boolean; target: string; error?: { issues: readonly Issue[] } },
  c: Context<AppEnv>,
): void {
  if (result.success || !result.error) return;
  if (result.target === "json" && !c.req.header("content-type"))
    throw new OpenAIError(400, "Request body is required (application/json)", null, "invalid_request_body");
  const first = result.error.issues[0];
  const param = first?.path.length
    ? first.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("")
    : null;
  const missing = first?.code === "invalid_type" && /received undefined/.test(first.message);
  const where = result.target === "json" ? "body" : result.target === "param" ? "path" : result.target;
  throw new OpenAIError(
    400,
    `Invalid request ${where}: ${describeIssues(result.error.issues)}`,
    param,
    missing ? "missing_required_parameter" : "invalid_value",
  );
}

export const openaiRoutes = new OpenAPIHono<AppEnv>({ strict: false, defaultHook: openAIValidationHook });

const errors = (statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [s, { description: "OpenAI's error body", content: { "application/json": { schema: OpenAIErrorResponse } } }]),
  );

const jsonOrStream = (schema: z.ZodType, description: string) => ({
  200: { description, content: { "application/json": { schema }, "text/event-stream": { schema: z.string() } } },
});

const route = <R extends RouteConfig>(config: R) => createRoute({ tags, security, ...config });

const _depsOf = (c: Context<AppEnv>): FlowRunDeps => c.var.services;
const signalOf = (c: Context<AppEnv>): AbortSignal => c.req.raw.signal ?? new AbortController().signal;
const logOf = (c: Context<AppEnv>) => ({ requestId: c.get("requestId"), secrets: workerSecretValues(c.env) });

/**
 * The flow `model` names, once the caller may run it (401, 403, 404 as unknown model, 429). A flow
 * id goes out in the one D1 batch of a prediction (flow, variables, credentials, the caller's key,
 * the memory of the `session` the request names); so does a name slug that only one flow's name can
 * hold (services/openai/models.ts lookUpModel); any other slug needs the caller's flows first.
 */
async function targetOf(c: Context<AppEnv>, model: string, session?: SessionAsked): Promise<ChatTarget> {
  let id = model;
  let lookups: RunLookups | undefined;
  if (!isUuid(model)) {
    // The slug's only flow found in the run's own batch; anything else resolved as the listing says.
    const named = await lookUpModel(c.var.services, model, bearerTokenOf(c), session, (findKey) => resolvePrincipal(c, findKey));
    if (named) ({ id, lookups } = named);
    else {
      const principal = await resolvePrincipal(c);
      if (!principal) throw unauthorized(BEARER_REQUIRED);
      id = await resolveModel(c.var.services, principal, model);
    }
  }
  lookups ??= lookUpFlow(c.var.services, id.toLowerCase(), bearerTokenOf(c), session);
  const found = lookups.flow.catch((err: unknown) => {
    throw err instanceof ApiError && err.status === 404 ? modelNotFound(model) : err;
  });
  const flow = await runnableFlow(c, found, { bearerRequired: BEARER_REQUIRED, checkOrigin: true }, lookups.findKey);
  return { flow, lookups, model };
}

/** The stream's answer once it opens; a run that failed before answers its own error instead. */
async function streamed(c: Context<AppEnv>, stream: LateStream): Promise<Response> {
  c.executionCtx.waitUntil(stream.work);
  return new Response(await stream.readable, { status: 200, headers: SSE_HEADERS });
}

openaiRoutes.openapi(
  route({
    method: "get",
    path: "/models",
    operationId: "openaiListModels",
    middleware: [requireAuth],
    summary: "The flows this key may run, as OpenAI models (id = the flow's id; its name slug is accepted as a model too)",
    description:
      "Needs: any valid bearer token; lists only the flows that token may run (a key's chatflow limit, flows bound " +
      "to another key left out).",
    responses: { 200: { description: "OK", content: { "application/json": { schema: OpenAIModelList } } }, ...errors([401, 403]) },
  }),
  async (c) => c.json({ object: "list" as const, data: await listModels(c.var.services, (await resolvePrincipal(c))!) }, 200),
);

openaiRoutes.openapi(
  route({
    method: "post",
    path: "/chat/completions",
    operationId: "openaiCreateChatCompletion",
    summary: "Run a flow as an OpenAI chat completion (JSON, or chat.completion.chunk frames ending with data: [DONE])",
    description: NEEDS_RUN,
    request: { body: { required: true, content: { "application/json": { schema: ChatCompletionRequest } } } },
    responses: {
      ...jsonOrStream(ChatCompletion, "A chat.completion, or its chunks when stream is true"),
      ...errors([400, 401, 403, 404, 409, 413, 415, 429, 502, 504]),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    checkChatRequest(body);
    const target = await targetOf(c, body.model, askedSessionOf(body));
    const run = chatRunOf(body, target.flow);
    if (body.stream) return streamed(c, streamChat(c.var.services, target, run, body, logOf(c), signalOf(c)));
    return c.json(await completeChat(c.var.services, target, run, signalOf(c)), 200);
  },
);

openaiRoutes.openapi(
  route({
    method: "post",
    path: "/responses",
    operationId: "openaiCreateResponse",
    summary: "Run a flow as an OpenAI Responses API response (JSON, or its event stream); previous_response_id continues that chat",
    description: NEEDS_RUN,
    request: { body: { required: true, content: { "application/json": { schema: ResponseRequest } } } },
    responses: {
      ...jsonOrStream(OpenAIResponse, "A response, or its events when stream is true"),
      ...errors([400, 401, 403, 404, 409, 413, 415, 429, 502, 504]),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    checkResponseRequest(body);
    // A continued response is read in the run's batch, with its session's memory; awaited after the
    // caller's checks: no 404 for a caller who may not run the flow.
    const previousId = body.previous_response_id;
    const target = await targetOf(c, body.model, previousId ? { responseId: previousId, memory: true } : askedSessionOf(body));
    const previous = previousId ? await continuedResponse(c.var.services, target.lookups, previousId) : undefined;
    const run = responseRunOf(body, target.flow, previous);
    if (body.stream) return streamed(c, streamResponse(c.var.services, target, run, logOf(c), signalOf(c)));
    return c.json(await createResponse(c.var.services, target, run, signalOf(c)), 200);
  },
);

openaiRoutes.openapi(
  route({
    method: "get",
    path: "/responses/{id}",
    operationId: "openaiGetResponse",
    middleware: [requireAuth],
    summary: "A stored response (created with store not false)",
    description: "Needs: a bearer token that may run the response's flow (as POST /openai/responses).",
    request: { params: ResponseIdParam },
    responses: { 200: { description: "OK", content: { "application/json": { schema: OpenAIResponse } } }, ...errors([400, 401, 403, 404]) },
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const row = await findResponse(c.var.services, id);
    const flow = await findFlow(c.var.services, row.chatflowid).catch(() => {
      throw new OpenAIError(404, `Response with id '${id}' not found: its flow was deleted`, null, "response_not_found");
    });
    await assertMayRun(c, { id: flow.id, isPublic: false, apikeyid: flow.apikeyid });
    return c.json(JSON.parse(row.response), 200);
  },
);
