import { createRoute, z } from "@hono/zod-openapi";
import { bearerTokenOf } from "../auth/bearer";
import { ApiError } from "../errors";
import { IdParam } from "../schemas/common";
import { PredictionRequest, PredictionResponse } from "../schemas/prediction";
import { executeRun, predictionAnswer, prepareRun } from "../services/prediction";
import { lookUpRun } from "../services/prediction/lookups";
import { streamRun } from "../services/prediction/stream";
import { SSE_HEADERS } from "../stream/sse";
import { readPredictionBody } from "./prediction-body";
import { respondAgentflow } from "./prediction-agentflow";
import { runsOnAgentflowRuntime } from "../services/prediction/agentflow-check";
import { OPTIONAL_BEARER, bodyReadByHandler, createRouter, errorResponsesFor, multipartWithFiles } from "./router";
import { abortOnDisconnect, runnableFlow } from "./runnable";

// The widget shows a 401/403/429 body to the person chatting as it is, so on a streaming request
// those three answer the bare message as text/plain (API.md, "Streaming").
const PLAIN_ON_STREAM = new Set([401, 403, 429]);

export const predictionRoutes = createRouter();

const route = createRoute({
  method: "post",
  path: "/{id}",
  tags: ["prediction"],
  summary: "Run a chatflow (JSON answer, or Flowise's event stream with streaming: true)",
  security: OPTIONAL_BEARER,
  request: {
    params: IdParam,
    body: bodyReadByHandler(
      predictionRoutes,
      { name: "PredictionRequest", schema: PredictionRequest },
      multipartWithFiles({ question: {}, streaming: { description: '"true" to stream' } }, ["question"]),
    ),
  },
  responses: {
    200: {
      description: "The answer (JSON), or text/event-stream frames when streaming",
      content: { "application/json": { schema: PredictionResponse }, "text/event-stream": { schema: z.string() } },
    },
    ...errorResponsesFor([400, 401, 403, 404, 413, 415, 429, 499, 502, 504]),
  },
});

predictionRoutes.openapi(route, async (c) => {
  const { id } = c.req.valid("param");
  const { input, uploads } = await readPredictionBody(c);

  // The lookups a run needs go out at once, in one D1 batch with the caller's own (its key).
  // Variables are loaded even for a request refused below; the query is small.
  const lookups = lookUpRun(c.var.db, c.env, id, bearerTokenOf(c));
  let flow;
  try {
    flow = await runnableFlow(c, lookups.flow, { checkOrigin: true }, lookups.findKey);
  } catch (err) {
    if (input.streaming && err instanceof ApiError && PLAIN_ON_STREAM.has(err.status)) {
      return c.text(err.message, err.status as 401);
    }
    throw err;
  }

  const prefetched = await lookups.prefetched;
  if (runsOnAgentflowRuntime(flow.type)) return respondAgentflow(c, flow, input, uploads, prefetched);
  const run = await prepareRun(c.var.db, c.env, c.var.runtime, flow, input, uploads, prefetched);
  abortOnDisconnect(c, run.controller);
  if (input.streaming && run.streamable) {
    const body = streamRun(run, { files: c.env.FILES, requestId: c.get("requestId"), waitUntil: (p) => c.executionCtx.waitUntil(p) });
    return c.body(body, 200, SSE_HEADERS);
  }
  return c.json(predictionAnswer(run, await executeRun(run, c.env.FILES)), 200);
});
