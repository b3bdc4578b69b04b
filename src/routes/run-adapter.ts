// What every HTTP adapter over the run door (src/services/runs) hands it from its request beside
// the request's services container (c.var.services, the door's RunDeps): the caller as plain data,
// and a signal for a client that goes away.
import type { Context } from "hono";
import { resolvePrincipal } from "../auth/bearer";
import type { AppEnv } from "../env";
import { clientIpOf } from "../rate-limit/check";
import { type Caller, CallerRefused, type Delivered } from "../services/runs";
import { SSE_HEADERS } from "../stream/sse";
import { abortOnDisconnect } from "./runnable";

/** The Authorization and Origin headers and the client's address, for the door's caller checks. */
export const callerOf = (c: Context<AppEnv>): Caller => ({
  authorization: c.req.header("Authorization"),
  origin: c.req.header("origin"),
  clientIp: clientIpOf(c.req.raw.headers, c.env),
});

/**
 * callerOf, with the signed-in person when the request has no Authorization header but the studio's
 * session (auth/session.ts): the chat Flowise's UI embeds in its custom assistant page calls
 * /prediction with the cookie only. Without a session cookie nothing more is read.
 */
export async function callerWithSession(c: Context<AppEnv>): Promise<Caller> {
  const caller = callerOf(c);
  if (caller.authorization) return caller;
  const principal = await resolvePrincipal(c);
  return principal ? { ...caller, principal } : caller;
}

/** Aborts (reason: "Client disconnected") when the caller goes away: the run stops with it. */
export function disconnectSignal(c: Context<AppEnv>): AbortSignal {
  const controller = new AbortController();
  abortOnDisconnect(c, controller);
  return controller.signal;
}

// The widget shows a 401/403/429 body to the person chatting as it is, so on a streaming request
// those three answer the bare message as text/plain (API.md, "Streaming").
const PLAIN_ON_STREAM = new Set([401, 403, 429]);

/** A caller refused on a streaming request, as the widget reads it; undefined for anything else (rethrow it). */
export function plainRefusal(c: Context<AppEnv>, err: unknown, streaming: boolean | undefined): Response | undefined {
  if (streaming && err instanceof CallerRefused && PLAIN_ON_STREAM.has(err.status)) return c.text(err.message, err.status as 401);
  return undefined;
}

/** The door's delivery as the response: the stream, the JSON answer, or a detached run accepted (202). */
export function answered(c: Context<AppEnv>, delivered: Delivered): Response {
  if (delivered.kind === "sse") return c.body(delivered.body, 200, SSE_HEADERS);
  return delivered.kind === "detached" ? c.json(delivered.body, 202) : c.json(delivered.body, 200);
}
