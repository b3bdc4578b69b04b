// One part of a detached run (the run, then each resume): its steps and event log, the flow run
// through the door as its trigger's run, the outcome stored and its last frames sent, a schedule's
// trigger log settled (the first part's), and the caller called back. Each piece a durable step,
// named per part, so a replay answers the stored ones.
import { ApiError } from "../errors";
import { redact } from "../lib/redact";
import type { PredictionInput } from "../schemas/prediction";
import { type DetachedOutcome, settleDetached } from "../services/executions";
import { DETACHED_RUN, runFlow, unparkUploads, unparkWebhook } from "../services/runs";
import { settleTriggerLog } from "../services/schedules/trigger-logs";
import { callbackBodyOf, deliverCallback, deliverFlowiseCallback } from "./callback";
import { type EventLog, eventLogOf } from "./event-log";
import type { DetachedContext } from "./run-context";
import { WorkflowSteps } from "./steps";

export interface Part {
  steps: WorkflowSteps;
  log: EventLog;
}

/** Part `part`'s steps (names prefixed `<part>: `) and its frames' way to the event log. */
export function partOf(ctx: DetachedContext, part: number): Part {
  const { deps, params } = ctx;
  const prefix = `${part}: `;
  const steps = new WorkflowSteps(ctx.step, deps.env.FILES, params.executionId, prefix, ctx.counter, ctx.progress);
  const log = eventLogOf(deps.env, params.executionId, prefix, () => steps.live);
  steps.onStep = (ran) => log.stepped(ran);
  return { steps, log };
}

/** The flow through the door, as its trigger's run; its outcome, never a throw. */
export async function runThroughDoor(
  ctx: DetachedContext,
  { steps, log }: Part,
  input: PredictionInput,
  part: number,
): Promise<DetachedOutcome> {
  const { deps, params } = ctx;
  try {
    const delivered = await runFlow(deps, {
      // Stored as its trigger's run (a webhook's, a schedule's); the caller was checked when it was accepted.
      trigger: params.chatType ? { ...DETACHED_RUN, chatType: params.chatType } : DETACHED_RUN,
      flowId: params.flowId,
      input,
      uploads: part === 0 ? await unparkUploads(deps.env.FILES, params.uploadsKey) : [],
      webhook: part === 0 ? await unparkWebhook(deps.env.FILES, params.webhookKey) : undefined,
      delivery: "json",
      executionId: part === 0 ? params.executionId : undefined,
      steps,
      frames: log,
    });
    return delivered.kind === "json"
      ? { ok: true, answer: delivered.body }
      : { ok: false, status: 500, message: "The run did not answer JSON" };
  } catch (err) {
    if (!(err instanceof ApiError)) console.error(`execution ${params.executionId} failed: ${redact(String(err), ctx.secrets)}`);
    return err instanceof ApiError
      ? { ok: false, status: err.status, message: err.message }
      : { ok: false, status: 500, message: "The run failed" };
  }
}

/** The outcome stored in the execution and its last frames sent (`end` unless paused); answers the row's state. */
export async function settlePart(ctx: DetachedContext, { steps, log }: Part, outcome: DetachedOutcome): Promise<string> {
  const { deps, params, secrets } = ctx;
  await log.flush();
  const state = await steps.own("outcome", () => settleDetached(deps, params.executionId, outcome));
  await steps.own("last frames", async () => {
    log.append(
      outcome.ok ? [{ event: "metadata", data: metadataOf(outcome.answer) }] : [{ event: "error", data: redact(outcome.message, secrets) }],
    );
    if (state !== "STOPPED") log.append([{ event: "end", data: "[DONE]" }]);
    await log.flush();
    return true;
  });
  return state;
}

/** A scheduled run's slot: its trigger log says how the run's first part went. */
export async function logTrigger(ctx: DetachedContext, { steps }: Part, outcome: DetachedOutcome): Promise<void> {
  const { deps, params, secrets } = ctx;
  const logId = params.triggerLogId;
  if (!logId) return;
  await steps.own("trigger log", async () => {
    await settleTriggerLog(deps.db, logId, outcome.ok ? undefined : redact(outcome.message, secrets));
    return true;
  });
}

/** Calls the caller back (edgeflow's callback, or an async webhook's Flowise one), if it asked. */
export async function callBack(
  ctx: DetachedContext,
  steps: WorkflowSteps,
  input: PredictionInput,
  outcome: DetachedOutcome,
  paused: boolean,
) {
  const { deps, params } = ctx;
  const { callbackUrl, flowiseCallback } = params;
  if (!callbackUrl && !flowiseCallback) return;
  const body = callbackBodyOf(params.executionId, input.chatId, outcome, paused);
  // Workflows retries the delivery (3 tries, backoff); a callback that never lands does not fail the run.
  const deliver = () =>
    flowiseCallback ? deliverFlowiseCallback(flowiseCallback, body, deps.env) : deliverCallback(callbackUrl!, body, deps.env);
  await steps
    .own("callback", deliver, { retries: { limit: 3, delay: "2 seconds", backoff: "exponential" }, timeout: "1 minute" })
    .catch((err) => console.error(`execution ${params.executionId}: the callback failed: ${String(err)}`));
}

/** The metadata frame of a part: what a stream's metadata says (ids, the pending action). */
function metadataOf(answer: unknown): Record<string, unknown> {
  const a = (answer ?? {}) as Record<string, unknown>;
  const pick = ["chatId", "chatMessageId", "question", "sessionId", "executionId", "action"] as const;
  return Object.fromEntries(pick.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}
