import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { resolvePrincipal } from "../auth/bearer";
import { assertMayRun, assertOriginAllowed } from "../auth/prediction-access";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";
import { IdParam } from "../schemas/common";
import { PredictionRequest, PredictionResponse } from "../schemas/prediction";
import { executeRun, findRunnable, predictionAnswer, prepareRun, type PreparedRun } from "../services/prediction";
import { SSE_HEADERS, SseWriter } from "../stream/sse";
import { loadVariables } from "../services/prediction/vars";
import { prefetchCredentials } from "../services/prediction/credentials";
import { readPredictionBody } from "./prediction-body";
import { errorText } from "../lib/redact";
import { OPTIONAL_BEARER, createRouter, errorResponsesFor, validationHook } from "./router";

// The widget shows a 401/403/429 body to the person chatting as it is, so on a streaming request
// those three answer the bare message as text/plain (API.md, "Streaming").
const PLAIN_ON_STREAM = new Set([401, 403, 429]);

const settled = <T>(result: PromiseSettledResult<T>): T => {
  if (result.status === "rejected") throw result.reason;
  return result.value;
};

function streamRun(c: Context<AppEnv>, run: PreparedRun): Response {
  const sse = new SseWriter(() => run.controller.abort(new Error("Client disconnected")));
  c.req.raw.signal?.addEventListener("abort", () => run.controller.abort(new Error("Client disconnected")));
  const work = (async () => {
    let tokens = 0;
    let toolsSent = 0; // how many used tools the run already streamed (agents send them as they complete)
    const sink = {
      token: (t: string) => {
        tokens++;
        sse.token(t);
      },
      sourceDocuments: (d: Parameters<SseWriter["sourceDocuments"]>[0]) => sse.sourceDocuments(d),
      usedTools: (t: Parameters<SseWriter["usedTools"]>[0]) => {
        toolsSent = t.length;
        sse.usedTools(t);
      },
    };
    try {
      const done = await executeRun(run, c.env.FILES, sink);
      const answer = predictionAnswer(run, done);
      if (!tokens && answer.text) sse.token(answer.text); // a node that could not stream still answers
      if (answer.sourceDocuments.length) sse.sourceDocuments(answer.sourceDocuments);
      if (answer.usedTools.length && answer.usedTools.length !== toolsSent) sse.usedTools(answer.usedTools);
      sse.event("metadata", {
        chatId: answer.chatId,
        chatMessageId: answer.chatMessageId,
        question: answer.question,
        sessionId: answer.sessionId,
        memoryType: answer.memoryType,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) console.error(`[${c.get("requestId")}] prediction stream failed: ${errorText(err)}`); // executeRun scrubbed it
      sse.error(err instanceof ApiError ? err.message : "The chatflow failed while answering");
    } finally {
      await sse.end();
    }
  })();
  c.executionCtx.waitUntil(work);
  return new Response(sse.readable, { status: 200, headers: SSE_HEADERS });
}

export const predictionRoutes = createRouter();

predictionRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/{id}",
  tags: ["prediction"],
  summary: "Run a chatflow (JSON answer, or Flowise's event stream with streaming: true)",
  security: OPTIONAL_BEARER,
  request: {
    params: IdParam,
    body: {
      required: true,
      content: {
        "application/json": { schema: PredictionRequest },
        "multipart/form-data": { schema: z.object({ question: z.string(), streaming: z.string().optional(), files: z.array(z.string().openapi({ format: "binary" })).optional() }) },
      },
    },
  },
  responses: {
    200: {
      description: "The answer (JSON), or text/event-stream frames when streaming",
      content: { "application/json": { schema: PredictionResponse }, "text/event-stream": { schema: z.string() } },
    },
    ...errorResponsesFor([400, 401, 403, 404, 413, 415, 429, 499, 502, 504]),
  },
});

predictionRoutes.post("/:id", async (c) => {
  const params = IdParam.safeParse({ id: c.req.param("id") });
  if (!params.success) validationHook({ success: false, target: "param", error: params.error }, c);
  const id = params.data!.id;
  const { input, uploads } = await readPredictionBody(c);

  // The lookups a run needs do not depend on each other: one wait instead of three in a row.
  // Variables are loaded even for a request refused below; the query is small.
  const [found, principal, storedVars, credentials] = await Promise.allSettled([
    findRunnable(c.var.db, id), resolvePrincipal(c), loadVariables(c.var.db, c.env),
    prefetchCredentials(c.var.db, c.env.CREDENTIAL_ENCRYPTION_KEY, id),
  ]);
  let flow;
  try {
    flow = settled(found); // 404 before 401, as when they ran one by one
    settled(principal);
    await assertMayRun(c, flow);
    assertOriginAllowed(flow.chatbotConfig, c.req.header("origin"));
    await enforceRateLimit(c.env, flow.id, flow.apiConfig, clientIpOf(c.req.raw.headers, c.env));
  } catch (err) {
    if (input.streaming && err instanceof ApiError && PLAIN_ON_STREAM.has(err.status)) {
      return c.text(err.message, err.status as 401);
    }
    throw err;
  }

  const run = await prepareRun(c.var.db, c.env, flow, input, uploads, { vars: settled(storedVars), getCredential: settled(credentials) });
  if (input.streaming && run.streamable) return streamRun(c, run);
  c.req.raw.signal?.addEventListener("abort", () => run.controller.abort(new Error("Client disconnected")));
  return c.json(predictionAnswer(run, await executeRun(run, c.env.FILES)), 200);
});
