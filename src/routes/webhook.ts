// /webhook/{id}, any method, no bearer (the flow's secret is the credential): the `webhook`
// trigger's adapter — the request read as it came (raw body for the signature, headers, query),
// the answer as the Start node's response mode says: the prediction JSON (sync), Flowise's event
// stream (stream), or 202 with the detached run's ids (async).
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { badRequest } from "../errors";
import { isUuid } from "../lib/ids";
import { clientIpOf } from "../rate-limit/check";
import { fireWebhook } from "../services/webhooks/fire";
import { MethodNotAllowed, fieldsOf } from "../services/webhooks/request";
import { SSE_HEADERS } from "../stream/sse";
import { createRouter, errorResponsesFor } from "./router";
import { disconnectSignal } from "./run-adapter";

export const webhookRoutes = createRouter();

async function handle(c: Context<AppEnv>): Promise<Response> {
  const id = c.req.param("id") ?? "";
  if (!isUuid(id)) throw badRequest(`Invalid request path: id: ${id.slice(0, 100)} is not a UUID`);
  const url = new URL(c.req.url);
  try {
    const { delivered } = await fireWebhook(c.var.services, id.toLowerCase(), {
      method: c.req.method,
      headers: Object.fromEntries(c.req.raw.headers),
      query: fieldsOf(url.searchParams),
      rawBody: new Uint8Array(await c.req.arrayBuffer()),
      clientIp: clientIpOf(c.req.raw.headers, c.env),
      signal: disconnectSignal(c),
    });
    if (delivered.kind === "detached")
      return c.json({ chatId: delivered.body.chatId, executionId: delivered.body.executionId, status: "PROCESSING" }, 202);
    return delivered.kind === "sse" ? c.body(delivered.body, 200, SSE_HEADERS) : c.json(delivered.body, 200);
  } catch (err) {
    if (err instanceof MethodNotAllowed) c.header("Allow", err.allow);
    throw err;
  }
}

webhookRoutes.all("/:id", handle);

// The API reference: any method reaches the flow; the body is the sender's own.
const accepted = z.object({ chatId: z.string(), executionId: z.string(), status: z.literal("PROCESSING") }).openapi("WebhookAccepted");
for (const method of ["post", "get", "put", "patch", "delete"] as const) {
  const verb = method.toUpperCase();
  webhookRoutes.openAPIRegistry.registerPath({
    method,
    path: "/{id}",
    tags: ["webhooks"],
    security: [{}],
    summary: `Fire a webhook-triggered agentflow (${verb}; the Start node's webhookMethod, when set, is the only one taken)`,
    description:
      "No bearer token: when the Start node verifies signatures, the request carries the HMAC of its raw body " +
      "(`sha256=<hex>`, `sha1=<hex>` or bare hex) or the plain secret in its signature header. The body is read by its " +
      "content type (JSON, form — a form's JSON `payload` field unwrapped — or text), at most 1 MB.",
    request: { params: z.object({ id: z.string().uuid() }) },
    responses: {
      200: {
        description: "sync: the prediction JSON; stream: text/event-stream frames",
        content: { "application/json": { schema: z.record(z.string(), z.unknown()) }, "text/event-stream": { schema: z.string() } },
      },
      202: {
        description: "async: accepted, run detached; the Start node's callbackUrl is called back",
        content: { "application/json": { schema: accepted } },
      },
      ...errorResponsesFor([400, 401, 404, 405, 409, 413, 415, 429, 502, 504]),
    },
  });
}
