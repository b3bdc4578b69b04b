// Prepare: one D1 batch from a replica (the flow, the variables and credentials it names, the
// caller's key, the named session's memory), the caller's checks, the request's checks against its
// trigger, and the flow checked and planned by the engine's door (once per isolate and flow version).
import { bearerToken } from "../callers/principal";
import { type PreparedFlow, prepareFlow } from "../../engine";
import { badRequest } from "../../errors";
import { admit } from "./access";
import type { RunnableFlow } from "./flow";
import { askedSessionOf } from "./base";
import { type Prefetched, lookUpRun, mayReadMemory } from "./lookups";
import type { TriggerDefinition } from "./triggers";
import type { RunDeps, RunRequest } from "./types";

export interface Ready {
  flow: RunnableFlow;
  prefetched: Prefetched;
  prepared: PreparedFlow;
}

/** What the trigger refuses whatever the flow (before any D1 read). */
export function checkRequest(rule: TriggerDefinition, request: RunRequest): void {
  if (!rule.deliveries.includes(request.delivery)) throw badRequest(`The ${rule.id} trigger does not deliver ${request.delivery} answers`);
  const humanInput = request.input.humanInput;
  if (rule.resume === "never" && humanInput !== undefined) throw badRequest(`humanInput cannot be sent through the ${rule.id} trigger`);
  if (rule.resume === "must" && typeof humanInput?.executionId !== "string") {
    throw badRequest("A resume names the paused execution: humanInput.executionId");
  }
}

export async function prepare(deps: RunDeps, request: RunRequest, rule: TriggerDefinition): Promise<Ready> {
  const caller = rule.access === "caller" ? request.caller : undefined;
  // The session's memory goes in the batch when the request names one (a new session has none) and
  // the flow may read it: no memory read of its own between the batch and the model.
  const session = askedSessionOf(request.input);
  const lookups =
    request.lookups ??
    lookUpRun(deps, request.flowId, bearerToken(caller?.authorization), session && mayReadMemory(request.flowId) ? session : undefined);
  const flow = await admit(deps.env, lookups, rule, caller);
  const prefetched = await lookups.prefetched;
  const prepared = prepareFlow(flow.type, flow.flowData);
  if (rule.resume === "must" && prepared.kind !== "agentflow") {
    throw badRequest(`Flow ${flow.id} is not an agentflow: it has no paused execution to resume`);
  }
  return { flow, prefetched, prepared };
}
