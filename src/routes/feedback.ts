import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { optionalAuth, resolvePrincipal } from "../auth/bearer";
import { assertMayRun } from "../auth/prediction-access";
import { ApiError, badRequest, unauthorized } from "../errors";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";
import { uuid } from "../schemas/common";
import { Feedback } from "../schemas/chatmessages";
import { FeedbackCreate, FeedbackQuery, FeedbackUpdate } from "../schemas/feedback";
import { type ConversationOwner, findConversationOwner } from "../services/chatflows";
import * as service from "../services/feedback";
import { onPathRecord } from "../auth/record-guards";
import { OPTIONAL_BEARER, createRouter, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["feedback"];

/** The widget's rule for writing feedback: whoever may run the chatflow, within its rate limit. */
async function assertMayRate(c: Context<AppEnv>, owner: ConversationOwner): Promise<void> {
  await assertMayRun(c, owner);
  await enforceRateLimit(c.env, owner.id, owner.apiConfig, clientIpOf(c.req.raw.headers, c.env), "feedback");
}

// `/feedback/{id}` is one path to OpenAPI, so every method names its segment `id`, as Flowise's
// own API description does: a chatflow id for GET and POST, a feedback id for PUT.
const ChatflowIdSegment = z.object({ id: uuid().openapi({ description: "The chatflow id" }) });
const FeedbackIdSegment = z.object({ id: uuid().openapi({ description: "The feedback id" }) });

async function create(c: Context<AppEnv>, input: z.infer<typeof FeedbackCreate>) {
  const message = await service.findRatedMessage(c.var.services, input);
  await assertMayRate(c, await findConversationOwner(c.var.services, message.chatflowid));
  service.assertMatchesMessage(message, input);
  return c.json(await service.createFeedback(c.var.services, message, input), 200);
}

export const feedbackRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "post",
      path: "/",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Rate an API message (open for public chatflows)",
      request: { body: jsonBody(FeedbackCreate) },
      responses: jsonResponse(Feedback),
    }),
    async (c) => create(c, c.req.valid("json")),
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/{id}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Rate an API message, chatflow id in the path (as Flowise's chat widget posts it)",
      request: { params: ChatflowIdSegment, body: jsonBody(FeedbackCreate) },
      responses: jsonResponse(Feedback),
    }),
    async (c) => {
      const { id: chatflowid } = c.req.valid("param");
      const input = c.req.valid("json");
      if (input.chatflowid !== undefined && input.chatflowid !== chatflowid) {
        throw badRequest("chatflowid in the body does not match the path");
      }
      return create(c, { ...input, chatflowid });
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: onPathRecord("id", "view"),
      tags,
      summary: "Feedback of a chatflow",
      request: { params: ChatflowIdSegment, query: FeedbackQuery },
      responses: jsonResponse(z.array(Feedback)),
    }),
    async (c) => {
      const { id: chatflowid } = c.req.valid("param");
      const { sortOrder, order, ...q } = c.req.valid("query");
      await findConversationOwner(c.var.services, chatflowid);
      return c.json(await service.listFeedback(c.var.services, chatflowid, { ...q, order: sortOrder ?? order ?? "asc" }), 200);
    },
  )
  .openapi(
    publicRoute({
      method: "put",
      path: "/{id}",
      tags,
      middleware: [optionalAuth],
      security: OPTIONAL_BEARER,
      summary: "Update a feedback (open for public chatflows); answers the updated record",
      request: { params: FeedbackIdSegment, body: jsonBody(FeedbackUpdate) },
      responses: jsonResponse(Feedback),
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      // Anonymous callers get the same 401 for an unknown id as for a private chatflow's feedback,
      // so they cannot probe which ids exist; only a bearer learns of a 404.
      const owner = await service
        .getFeedback(c.var.services, id)
        .then((current) => findConversationOwner(c.var.services, current.chatflowid))
        .catch(async (err) => {
          if (err instanceof ApiError && err.status === 404 && !(await resolvePrincipal(c))) {
            throw unauthorized("Unauthorized: this chatflow is not public; a bearer token is required");
          }
          throw err;
        });
      await assertMayRate(c, owner);
      return c.json(await service.updateFeedback(c.var.services, id, c.req.valid("json")), 200);
    },
  );
