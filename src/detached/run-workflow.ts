// The Workflow that runs a detached execution (API.md, "Asynchronous runs"): one instance per
// execution, its id the execution's. It runs the flow through the run door (each agentflow node a
// durable step, a chatflow one step) as its trigger's run (an async prediction, a webhook with its
// payload, a schedule's slot), stores the outcome in the execution row (and a slot's trigger log),
// closes or extends the event log, calls the caller back (edgeflow's callback, or an async
// webhook's Flowise one), and — when the run paused for human input — waits for the resume
// (step.waitForEvent) and runs it the same way, until the run ends or its wait times out. A run
// cut off by a restart is woken by services/detached-wake.ts (an event it never waits for); its
// cut-off step then runs again, which doubles nothing (steps.ts, event-log.ts, the records' keys).
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import { configOf } from "../config";
import { createDb } from "../db";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { redact } from "../lib/redact";
import { workerSecretValues } from "../lib/secrets";
import { createServices } from "../services/container";
import { type RunDeps, runFlow } from "../services/runs";
import {
  DETACHED_RUN,
  type DetachedOutcome,
  type DetachedParams,
  RESUME_EVENT,
  type ResumeEvent,
  detachedState,
  expireDetachedPause,
  markProgress,
  settleDetached,
  unparkUploads,
  unparkWebhook,
} from "../services/runs";
import { settleTriggerLog } from "../services/schedules/trigger-logs";
import { type CallbackBody, deliverCallback, deliverFlowiseCallback } from "./callback";
import { eventLogOf } from "./event-log";
import { workflowRuns } from "./runs-port";
import { type StepCounter, WorkflowSteps } from "./steps";

/** The Worker's env for a detached run: its time limit is ASYNC_RUN_TIMEOUT_MS (an hour), not a request's. */
const detachedEnv = (env: Env): Env => ({ ...env, RUN_TIMEOUT_MS: String(configOf(env).ASYNC_RUN_TIMEOUT_MS) });

export class RunWorkflow extends WorkflowEntrypoint<Env, DetachedParams> {
  async run(event: WorkflowEvent<DetachedParams>, step: WorkflowStep): Promise<{ state: string }> {
    const params = event.payload;
    const env = detachedEnv(this.env);
    const db = createDb(env.DB);
    const request = { id: `execution ${params.executionId}`, waitUntil: (work: Promise<unknown>) => this.ctx.waitUntil(work) };
    const deps: RunDeps = createServices(env, db, request, workflowRuns(env.RUNS));
    const counter: StepCounter = { count: 0 };
    const secrets = workerSecretValues(env);
    // While a step works, the row shows progress often enough that no wake takes the run for stalled.
    const progress = {
      beat: () => markProgress(db, params.executionId),
      everyMs: Math.max(1000, Math.floor(configOf(env).DETACHED_STALL_MS / 3)),
    };
    let input = params.input;
    for (let part = 0; ; part++) {
      const prefix = `${part}: `;
      const steps = new WorkflowSteps(step, env.FILES, params.executionId, prefix, counter, progress);
      const log = eventLogOf(env, params.executionId, prefix, () => steps.live);
      steps.onStep = (ran) => log.stepped(ran);
      const outcome = await this.runPart(deps, params, input, part, steps, log);
      await log.flush();
      const state = await steps.own("outcome", () => settleDetached(db, params.executionId, outcome));
      const paused = state === "STOPPED";
      await steps.own("last frames", async () => {
        log.append(
          outcome.ok
            ? [{ event: "metadata", data: metadataOf(outcome.answer) }]
            : [{ event: "error", data: redact(outcome.message, secrets) }],
        );
        if (!paused) log.append([{ event: "end", data: "[DONE]" }]);
        await log.flush();
        return true;
      });
      if (part === 0 && params.triggerLogId) {
        await steps.own("trigger log", async () => {
          await settleTriggerLog(db, params.triggerLogId!, outcome.ok ? undefined : redact(outcome.message, secrets));
          return true;
        });
      }
      await this.callBack(steps, params, input, outcome, paused);
      if (!paused) return { state };

      // Paused: wait for the resume. A resume a request ran itself (no async) only tells this run
      // to look again: the run goes on waiting while the execution is paused again.
      const next = await this.waitForResume(step, steps, params, env);
      if ("input" in next) {
        input = next.input;
        continue;
      }
      // Timed out, or resumed by a request that ran it itself (its answer went to that request).
      await steps.own("closed", async () => {
        log.append([{ event: "end", data: "[DONE]" }]);
        await log.flush();
        return true;
      });
      if (next.state !== "TIMEOUT") {
        await this.callBack(
          steps,
          params,
          input,
          next.state === "FINISHED"
            ? { ok: true, answer: { executionId: params.executionId, state: next.state } }
            : { ok: false, status: 500, message: `The run ended ${next.state}` },
          false,
        );
      }
      return { state: next.state };
    }
  }

  /** One part of the run (the run, then each resume) through the door; its outcome, never a throw. */
  private async runPart(
    deps: RunDeps,
    params: DetachedParams,
    input: DetachedParams["input"],
    part: number,
    steps: WorkflowSteps,
    log: ReturnType<typeof eventLogOf>,
  ): Promise<DetachedOutcome> {
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
      const status = err instanceof ApiError ? err.status : 500;
      const message = err instanceof ApiError ? err.message : "The run failed";
      if (!(err instanceof ApiError))
        console.error(`execution ${params.executionId} failed: ${redact(String(err), workerSecretValues(deps.env))}`);
      return { ok: false, status, message };
    }
  }

  private async callBack(
    steps: WorkflowSteps,
    params: DetachedParams,
    input: DetachedParams["input"],
    outcome: DetachedOutcome,
    paused: boolean,
  ): Promise<void> {
    const { callbackUrl, flowiseCallback } = params;
    if (!callbackUrl && !flowiseCallback) return;
    const body: CallbackBody = {
      status: !outcome.ok ? "ERROR" : paused ? "STOPPED" : "SUCCESS",
      chatId: input.chatId ?? "",
      executionId: params.executionId,
      ...(outcome.ok ? { data: outcome.answer } : { error: outcome.message }),
    };
    // Workflows retries the delivery (3 tries, backoff); a callback that never lands does not fail the run.
    const deliver = () =>
      flowiseCallback ? deliverFlowiseCallback(flowiseCallback, body, this.env) : deliverCallback(callbackUrl!, body, this.env);
    await steps
      .own("callback", deliver, {
        retries: { limit: 3, delay: "2 seconds", backoff: "exponential" },
        timeout: "1 minute",
      })
      .catch((err) => console.error(`execution ${params.executionId}: the callback failed: ${String(err)}`));
  }

  /**
   * The next resume to run; or how the run ended without one: TIMEOUT once the pause waited too
   * long, or the state a request that resumed it in its own isolate left.
   */
  private async waitForResume(
    step: WorkflowStep,
    steps: WorkflowSteps,
    params: DetachedParams,
    env: Env,
  ): Promise<{ input: DetachedParams["input"] } | { state: string }> {
    const timeoutMs = configOf(env).HUMAN_INPUT_TIMEOUT_MS;
    for (let wait = 0; ; wait++) {
      let event: { payload: ResumeEvent };
      try {
        // The payload is JSON the accepting request sent (services/runs/detach.ts).
        event = (await step.waitForEvent(`${steps.prefix}human input ${wait}`, { type: RESUME_EVENT, timeout: timeoutMs })) as unknown as {
          payload: ResumeEvent;
        };
      } catch {
        const message = `Nobody answered the human input within ${Math.round(timeoutMs / 1000)} s (HUMAN_INPUT_TIMEOUT_MS)`;
        await steps.own(`timeout ${wait}`, async () => {
          await expireDetachedPause(createDb(env.DB), params.executionId, message);
          return true;
        });
        return { state: "TIMEOUT" };
      }
      if (event.payload.input) return { input: event.payload.input };
      const state = await steps.own(`state ${wait}`, async () => (await detachedState(createDb(env.DB), params.executionId)) ?? "ERROR");
      if (state !== "STOPPED") return { state };
    }
  }
}

/** The metadata frame of a part: what a stream's metadata says (ids, the pending action). */
function metadataOf(answer: unknown): Record<string, unknown> {
  const a = (answer ?? {}) as Record<string, unknown>;
  const pick = ["chatId", "chatMessageId", "question", "sessionId", "executionId", "action"] as const;
  return Object.fromEntries(pick.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}
