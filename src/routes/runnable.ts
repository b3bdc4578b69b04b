// The "runnable flow" guard of routes that check a flow's caller without running it through the
// run door (POST /vector/upsert; the OpenAI API before its run): the caller's principal from the
// request, then the same checks as the door (services/callers/admit.ts), rate limit included unless
// `rules.rateLimit` is false (the studio's own upsert).
import type { Context } from "hono";
import { type KeyFinder, resolvePrincipal } from "../auth/bearer";
import type { AppEnv } from "../env";
import { clientIpOf } from "../rate-limit/check";
import { type AdmitRules, type GuardedFlow, admitCaller } from "../services/callers/admit";

export type { GuardedFlow };

/**
 * The flow, once the caller passed every check; throws 401/403/404/429 otherwise. `findKey`: the
 * caller's API key as the route's own lookups found it (one D1 round trip for both).
 */
export function runnableFlow<F extends GuardedFlow>(
  c: Context<AppEnv>,
  lookup: Promise<F>,
  rules: AdmitRules = {},
  findKey?: KeyFinder,
): Promise<F> {
  const admitting = {
    principal: resolvePrincipal(c, findKey),
    origin: c.req.header("origin"),
    clientIp: clientIpOf(c.req.raw.headers, c.env),
  };
  return admitCaller(c.env, lookup, admitting, { rateLimit: true, ...rules });
}

/** Aborts the run when the caller goes away. */
export function abortOnDisconnect(c: Context<AppEnv>, controller: AbortController): void {
  c.req.raw.signal?.addEventListener("abort", () => controller.abort(new Error("Client disconnected")));
}
