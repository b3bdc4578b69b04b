// The "runnable flow" guard of POST /vector/upsert: who calls, whether they may run this flow (its
// key binding, isPublic, allowed origins), and its rate limit. The route gives the lookup it
// started (so D1 is not waited on one after another) and its rules; the work is tied to its
// request by abortOnDisconnect. Runs of flows do the same checks in the run door
// (services/runs/access.ts), from the caller as data.
import type { Context } from "hono";
import { type KeyFinder, resolvePrincipal } from "../auth/bearer";
import { assertMayRun, assertOriginAllowed } from "../auth/prediction-access";
import type { AppEnv, Principal } from "../env";
import { unauthorized } from "../errors";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";

export interface GuardedFlow {
  id: string;
  isPublic: boolean;
  apikeyid: string | null;
  chatbotConfig: string | null;
  apiConfig: string | null;
}

export interface RunnableRules {
  /**
   * A bearer token is required whatever the flow says (vector upsert): 401 with this message,
   * before the flow is looked at. Otherwise an unknown flow is a 404 before any 401.
   */
  bearerRequired?: string;
  /** Checks chatbotConfig.allowedOrigins against the Origin header (the widget's calls). */
  checkOrigin?: boolean;
}

/**
 * The flow, once the caller passed every check; throws 401/403/404/429 otherwise. `findKey`: the
 * caller's API key as the route's own lookups found it (one D1 round trip for both).
 */
export async function runnableFlow<F extends GuardedFlow>(
  c: Context<AppEnv>,
  lookup: Promise<F>,
  rules: RunnableRules = {},
  findKey?: KeyFinder,
): Promise<F> {
  lookup.catch(() => {}); // awaited below, maybe after another check failed first
  const principal: Promise<Principal | null> = resolvePrincipal(c, findKey);
  principal.catch(() => {});
  if (rules.bearerRequired && !(await principal)) throw unauthorized(rules.bearerRequired);
  const flow = await lookup;
  await principal;
  // With a required bearer the flow is never public, whatever isPublic says; a flow bound to a key
  // takes only that key (or the admin key).
  await assertMayRun(c, rules.bearerRequired ? { id: flow.id, isPublic: false, apikeyid: flow.apikeyid } : flow);
  if (rules.checkOrigin) assertOriginAllowed(flow.chatbotConfig, c.req.header("origin"));
  await enforceRateLimit(c.env, flow.id, flow.apiConfig, clientIpOf(c.req.raw.headers, c.env));
  return flow;
}

/** Aborts the run when the caller goes away. */
export function abortOnDisconnect(c: Context<AppEnv>, controller: AbortController): void {
  c.req.raw.signal?.addEventListener("abort", () => controller.abort(new Error("Client disconnected")));
}
