// Whether the caller may start this run, from what the adapter told the door (Caller, plain data)
// and the trigger's rule: who they are (bearer → principal, the key read in the run's own batch);
// the checks themselves (key binding, isPublic, scope, origins, rate limit) are callers/admit.ts.
import { principalOf } from "../callers/principal";
import { admitCaller } from "../callers/admit";
import type { Env } from "../../env";
import { ApiError } from "../../errors";
import { UNTRUSTED_CLIENT } from "../../rate-limit/check";
import type { RunnableFlow } from "./flow";
import type { RunLookups } from "./lookups";
import type { TriggerRule } from "./triggers";
import type { Caller } from "./types";

/**
 * The caller was refused (401 bad or missing credentials, 403 scope or origin, 429 rate limit).
 * Its own class: a streaming adapter answers these as plain text (the widget shows them as they are).
 */
export class CallerRefused extends ApiError {}

const refused = (err: unknown): unknown => (err instanceof ApiError ? new CallerRefused(err.status, err.message) : err);

/** The flow, once the caller passed the trigger's checks (callers/admit.ts): an unknown flow is a 404 before any 401. */
export async function admit(env: Env, lookups: RunLookups, rule: TriggerRule, caller: Caller | undefined): Promise<RunnableFlow> {
  if (rule.access === "caller" && !caller) throw new Error("This trigger checks its caller: the adapter must give RunRequest.caller");
  const principal =
    rule.access !== "caller"
      ? undefined
      : caller?.principal
        ? Promise.resolve(caller.principal)
        : principalOf(caller?.authorization, env, lookups.findKey);
  const admitting = { principal, origin: caller?.origin, clientIp: caller?.clientIp ?? UNTRUSTED_CLIENT };
  return admitCaller(env, lookups.flow, admitting, { checkOrigin: rule.checkOrigin, rateLimit: rule.rateLimit }, refused);
}
