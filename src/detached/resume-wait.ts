// A paused detached run waits for its resume (step.waitForEvent, HUMAN_INPUT_TIMEOUT_MS). A resume
// accepted with async brings its input: the run goes on with a new part. A resume a request ran
// itself (no async) only tells the run to look again (`handled`): it goes on waiting while the
// execution is paused again, else it ends with the state that request left. A wait past its
// timeout ends the execution TIMEOUT.
import type { PredictionInput } from "../schemas/prediction";
import { RESUME_EVENT, type ResumeEvent } from "../services/detached-runs";
import { detachedState, expireDetachedPause } from "../services/executions";
import type { DetachedContext } from "./run-context";
import { type Part, callBack } from "./run-part";
import type { WorkflowSteps } from "./steps";

/** The next resume to run; or how the run ended without one (TIMEOUT, or the state a request's resume left). */
export async function waitForResume(ctx: DetachedContext, steps: WorkflowSteps): Promise<{ input: PredictionInput } | { state: string }> {
  const { deps, params, step } = ctx;
  const timeoutMs = deps.config.HUMAN_INPUT_TIMEOUT_MS;
  for (let wait = 0; ; wait++) {
    let event: { payload: ResumeEvent };
    try {
      // The payload is JSON the accepting request sent (services/runs/detach.ts, through the port).
      event = (await step.waitForEvent(`${steps.prefix}human input ${wait}`, { type: RESUME_EVENT, timeout: timeoutMs })) as unknown as {
        payload: ResumeEvent;
      };
    } catch {
      const message = `Nobody answered the human input within ${Math.round(timeoutMs / 1000)} s (HUMAN_INPUT_TIMEOUT_MS)`;
      await steps.own(`timeout ${wait}`, async () => {
        await expireDetachedPause(deps, params.executionId, message);
        return true;
      });
      return { state: "TIMEOUT" };
    }
    if (event.payload.input) return { input: event.payload.input };
    const state = await steps.own(`state ${wait}`, async () => (await detachedState(deps, params.executionId)) ?? "ERROR");
    if (state !== "STOPPED") return { state };
  }
}

/**
 * The end of a run whose pause was not resumed in it: its event log closed, and — when a request
 * ran the resume itself — its caller called back with how that ended.
 */
export async function closeUnresumed(ctx: DetachedContext, { steps, log }: Part, input: PredictionInput, state: string): Promise<void> {
  await steps.own("closed", async () => {
    log.append([{ event: "end", data: "[DONE]" }]);
    await log.flush();
    return true;
  });
  if (state === "TIMEOUT") return;
  const outcome =
    state === "FINISHED"
      ? { ok: true as const, answer: { executionId: ctx.params.executionId, state } }
      : { ok: false as const, status: 500, message: `The run ended ${state}` };
  await callBack(ctx, steps, input, outcome, false);
}
