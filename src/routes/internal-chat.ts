// The studio's test chat: POST /internal-prediction/{id}, the `internal` trigger's adapter over the
// run door (its messages are chatType INTERNAL; the Executions page's human input resumes through it
// too), and GET /internal-chatmessage/{id}, the test chat's history. Only the studio's own origin
// (or no browser) and only someone: the signed-in person (session cookie with `x-request-from:
// internal`), who may run any flow, or a bearer with the prediction's rights.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { resolvePrincipal } from "../auth/bearer";
import { onPathRecord } from "../auth/record-guards";
import { assertSameOrigin } from "../auth/session";
import type { AppEnv } from "../env";
import { badRequest, unauthorized } from "../errors";
import { ChatMessage, ChatMessageQuery } from "../schemas/chatmessages";
import { ChatflowIdParam, IdParam } from "../schemas/common";
import { PredictionRequest, PredictionResponse } from "../schemas/prediction";
import { findConversationOwner } from "../services/chatflows";
import { listChatMessages } from "../services/chatmessages";
import { executionsByIds } from "../services/executions";
import { type Caller, runFlow } from "../services/runs";
import { readPredictionBody } from "./prediction-body";
import {
  OPTIONAL_BEARER,
  bodyReadByHandler,
  createRouter,
  errorResponsesFor,
  jsonResponse,
  multipartWithFiles,
  protectedRoute,
} from "./router";
import { answered, callerOf, disconnectSignal, plainRefusal } from "./run-adapter";

/** The caller, once it is someone from the studio's origin: its bearer (checked by the door) or its session. */
async function studioCaller(c: Context<AppEnv>): Promise<Caller> {
  assertSameOrigin(c);
  const caller = callerOf(c);
  if (caller.authorization) return caller;
  const principal = await resolvePrincipal(c); // without Authorization: the session, or null
  if (!principal) throw unauthorized("Unauthorized: sign in to the studio, or send a bearer token");
  return { ...caller, principal };
}

export const internalPredictionRoutes = createRouter();

const route = createRoute({
  method: "post",
  path: "/{id}",
  tags: ["prediction"],
  summary: "The studio's test chat: run a flow as POST /prediction does (JSON, or the same event stream), its messages chatType INTERNAL",
  description:
    "For the signed-in person (session cookie with `x-request-from: internal`, from the worker's own origin) or a bearer " +
    "token with the prediction's rights; never anonymous, even on a public flow. `async` is not offered here.",
  security: OPTIONAL_BEARER,
  request: {
    params: IdParam,
    body: bodyReadByHandler(
      internalPredictionRoutes,
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

internalPredictionRoutes.openapi(route, async (c) => {
  const { id } = c.req.valid("param");
  const caller = await studioCaller(c);
  const { input, uploads } = await readPredictionBody(c);
  if (input.async) throw badRequest("async is not offered by the test chat: use POST /prediction/{id} with async: true");
  try {
    const delivered = await runFlow(c.var.services, {
      trigger: "internal",
      flowId: id,
      input,
      uploads,
      caller,
      delivery: input.streaming ? "sse" : "json",
      signal: disconnectSignal(c),
    });
    return answered(c, delivered);
  } catch (err) {
    const refusal = plainRefusal(c, err, input.streaming);
    if (refusal) return refusal;
    throw err;
  }
});

const { chatType: _one, "chatType[]": _many, ...historyFilters } = ChatMessageQuery.shape;

export const internalChatMessageRoutes = createRouter().openapi(
  protectedRoute({
    method: "get",
    path: "/{chatflowid}",
    permission: onPathRecord("chatflowid", "view"),
    tags: ["chatmessage"],
    summary: "The test chat's messages of a chatflow (chatType INTERNAL), filtered as GET /chatmessage/{id}",
    request: { params: ChatflowIdParam, query: z.object(historyFilters) },
    responses: jsonResponse(z.array(ChatMessage.extend({ execution: z.record(z.string(), z.unknown()).optional() }))),
  }),
  async (c) => {
    assertSameOrigin(c);
    const { chatflowid } = c.req.valid("param");
    const { order, feedback, feedbackType, ...filter } = c.req.valid("query");
    await findConversationOwner(c.var.services, chatflowid);
    const messages = await listChatMessages(
      c.var.services,
      { ...filter, chatTypes: ["INTERNAL"], chatflowid },
      { order, feedback, feedbackType },
    );
    // An agentflow's answers carry their execution, as Flowise's do: reopened, the chat still shows each "Process Flow".
    const ran = (m: (typeof messages)[number]) => (m.role === "apiMessage" && typeof m.executionId === "string" ? m.executionId : "");
    const runs = await executionsByIds(c.var.services, [...new Set(messages.map(ran).filter(Boolean))]);
    const shown = messages.map((m) => {
      const run = runs.get(ran(m));
      return run ? { ...m, execution: run } : m;
    });
    return c.json(shown as (z.infer<typeof ChatMessage> & { execution?: Record<string, unknown> })[], 200);
  },
);
