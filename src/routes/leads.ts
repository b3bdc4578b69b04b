import { z } from "@hono/zod-openapi";
import { optionalAuth } from "../auth/bearer";
import { assertMayRun } from "../auth/prediction-access";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";
import { ChatflowIdParam } from "../schemas/common";
import { Lead, LeadCreate } from "../schemas/leads";
import { findConversationOwner } from "../services/chatflows";
import * as service from "../services/leads";
import { onPathRecord } from "../auth/record-guards";
import { OPTIONAL_BEARER, createRouter, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["leads"];
export const leadRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "post",
      path: "/",
      tags,
      middleware: [optionalAuth],
      summary: "Record a lead (open for public chatflows, as the chat widget posts it)",
      security: OPTIONAL_BEARER,
      request: { body: jsonBody(LeadCreate) },
      responses: jsonResponse(Lead),
    }),
    async (c) => {
      const input = c.req.valid("json");
      const owner = await findConversationOwner(c.var.services, input.chatflowid);
      await assertMayRun(c, owner);
      await enforceRateLimit(c.env, owner.id, owner.apiConfig, clientIpOf(c.req.raw.headers, c.env), "leads");
      return c.json(await service.createLead(c.var.services, input), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{chatflowid}",
      permission: onPathRecord("chatflowid", "view"),
      tags,
      summary: "Leads of a chatflow (oldest first)",
      request: { params: ChatflowIdParam },
      responses: jsonResponse(z.array(Lead)),
    }),
    async (c) => {
      const { chatflowid } = c.req.valid("param");
      await findConversationOwner(c.var.services, chatflowid);
      return c.json(await service.listLeads(c.var.services, chatflowid), 200);
    },
  );
