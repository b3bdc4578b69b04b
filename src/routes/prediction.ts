// POST /prediction/{id}: the `prediction` trigger's adapter over the run door (services/runs) —
// the body read and validated, the caller as data, the answer as JSON or Flowise's event stream.
import { createRoute, z } from "@hono/zod-openapi";
import { IdParam } from "../schemas/common";
import { DetachedRunResponse, PredictionRequest, PredictionResponse } from "../schemas/prediction";
import { runFlow } from "../services/runs";
import { readPredictionBody } from "./prediction-body";
import { OPTIONAL_BEARER, bodyReadByHandler, createRouter, errorResponsesFor, multipartWithFiles } from "./router";
import { answered, callerWithSession, disconnectSignal, plainRefusal } from "./run-adapter";

export const predictionRoutes = createRouter();

const route = createRoute({
  method: "post",
  path: "/{id}",
  tags: ["prediction"],
  summary: "Run a chatflow (JSON answer, Flowise's event stream with streaming: true, or 202 and a detached run with async: true)",
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
    202: {
      description: "async: true — the run was accepted and runs detached; follow it at GET /executions/{executionId}(/events)",
      content: { "application/json": { schema: DetachedRunResponse } },
    },
    ...errorResponsesFor([400, 401, 403, 404, 413, 415, 429, 499, 502, 504]),
  },
});

predictionRoutes.openapi(route, async (c) => {
  const { id } = c.req.valid("param");
  const { input, uploads } = await readPredictionBody(c);
  try {
    // async: true is the `async` trigger: accepted (202) and run detached; a disconnect no longer matters.
    const delivered = await runFlow(c.var.services, {
      trigger: input.async ? "async" : "prediction",
      flowId: id,
      input,
      uploads,
      caller: await callerWithSession(c),
      delivery: input.async ? "detached" : input.streaming ? "sse" : "json",
      signal: input.async ? undefined : disconnectSignal(c),
    });
    return answered(c, delivered);
  } catch (err) {
    const refusal = plainRefusal(c, err, input.streaming);
    if (refusal) return refusal;
    throw err;
  }
});
