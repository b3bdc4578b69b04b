// /webhook-listener: the agent canvas's webhook listener panel (Flowise 3.1.4's paths and shapes) —
// a listener registered for a webhook-triggered agentflow, its event stream (`listenerReady`, then
// each webhook run's frames while it is open), and its removal. Thin: services/webhooks/listeners.ts.
import { z } from "@hono/zod-openapi";
import { onPathRecord } from "../auth/record-guards";
import { uuid } from "../schemas/common";
import { registerListener, listenerStream, unregisterListener } from "../services/webhooks/listeners";
import { SSE_HEADERS } from "../stream/sse";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const tags = ["chatflows"];
const ListenerParams = z.object({
  id: uuid(),
  listenerId: z.string().regex(/^wh-listener-[0-9a-f-]{36}$/, "must be a listener id from /webhook-listener/{id}/register"),
});
const Registered = z.object({ listenerId: z.string() }).openapi("WebhookListenerRegistered");

export const webhookListenerRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/{id}/register",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Register a listener for a webhook-triggered agentflow's next calls (kept 2 minutes until its stream opens)",
      request: { params: z.object({ id: uuid() }) },
      responses: jsonResponse(Registered),
    }),
    async (c) => c.json(await registerListener(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}/stream/{listenerId}",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "The listener's event stream: listenerReady, then the frames of each webhook run of the flow while it is open",
      request: { params: ListenerParams },
      responses: { 200: { description: "text/event-stream frames", content: { "text/event-stream": { schema: z.string() } } } },
    }),
    async (c) => {
      const { id, listenerId } = c.req.valid("param");
      return c.body(await listenerStream(c.var.services, id, listenerId, c.req.raw.signal), 200, SSE_HEADERS);
    },
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}/listener/{listenerId}",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Remove a listener (its stream ends)",
      request: { params: ListenerParams },
      responses: jsonResponse(z.object({ ok: z.literal(true) }).openapi("WebhookListenerRemoved")),
    }),
    async (c) => {
      const { id, listenerId } = c.req.valid("param");
      return c.json(await unregisterListener(c.var.services, id, listenerId), 200);
    },
  );
