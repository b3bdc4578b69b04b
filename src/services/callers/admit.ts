// Who may run a flow, in one place: the caller's principal against the flow's key binding,
// isPublic and the key's scope, then allowed origins and the rate limit. The run door
// (services/runs/access.ts) and the routes that guard a flow without running it through the door
// (routes/runnable.ts: vector upsert, the OpenAI API's look-up) both come here, each with the
// principal it resolved its own way.
import type { Env, Principal } from "../../env";
import { unauthorized } from "../../errors";
import { enforceRateLimit } from "../../rate-limit/check";
import { type RunTarget, assertOriginAllowed, assertPrincipalMayRun } from "./run-access";

/** What the checks read of a flow. */
export interface GuardedFlow extends RunTarget {
  chatbotConfig: string | null;
  apiConfig: string | null;
}

export interface AdmitRules {
  /**
   * A bearer token is required whatever the flow says (vector upsert, the OpenAI API): 401 with this
   * message before the flow is looked at, and the flow is never public. Otherwise an unknown flow is
   * a 404 before any 401.
   */
  bearerRequired?: string;
  /** chatbotConfig.allowedOrigins against the caller's Origin (the widget's calls). */
  checkOrigin?: boolean;
  /** apiConfig.rateLimit per client address. */
  rateLimit?: boolean;
}

export interface Admitting {
  /** undefined: the trigger does not check its caller (its adapter did). */
  principal: Promise<Principal | null> | undefined;
  origin?: string;
  clientIp: string;
}

/**
 * The flow, once the caller passed every check the rules ask for. A refusal (401, 403, 429) goes
 * through `refused` (the run door marks its own); the flow's 404 does not.
 */
export async function admitCaller<F extends GuardedFlow>(
  env: Env,
  lookup: Promise<F>,
  caller: Admitting,
  rules: AdmitRules,
  refused: (err: unknown) => unknown = (err) => err,
): Promise<F> {
  lookup.catch(() => {}); // awaited below, maybe after another check failed first
  const { principal } = caller;
  principal?.catch(() => {});
  if (rules.bearerRequired && !(await principal)) throw refused(unauthorized(rules.bearerRequired));
  const flow = await lookup;
  try {
    if (principal) {
      // With a required bearer the flow is never public, whatever isPublic says.
      assertPrincipalMayRun(await principal, rules.bearerRequired ? { id: flow.id, isPublic: false, apikeyid: flow.apikeyid } : flow);
    }
    if (rules.checkOrigin) assertOriginAllowed(flow.chatbotConfig, caller.origin);
    if (rules.rateLimit) await enforceRateLimit(env, flow.id, flow.apiConfig, caller.clientIp);
  } catch (err) {
    throw refused(err);
  }
  return flow;
}
