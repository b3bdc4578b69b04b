// The Workflow that runs a detached execution (API.md, "Asynchronous runs"): one instance per
// execution, its id the execution's. Part by part (the run, then each resume; run-part.ts): the flow
// through the run door (each agentflow node a durable step, a chatflow one step) as its trigger's
// run (an async prediction, a webhook with its payload, a schedule's slot), the outcome stored in
// the execution row (and a slot's trigger log), the event log closed or extended, the caller called
// back (edgeflow's callback, or an async webhook's Flowise one). A part that paused for human input
// waits for the resume (resume-wait.ts) and the next part runs it, until the run ends or its wait
// times out. A run cut off by a restart is woken by services/executions/wake.ts (an event it never
// waits for); its cut-off step then runs again, which doubles nothing (steps.ts, event-log.ts, the
// records' keys).
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";
import type { Env } from "../env";
import type { DetachedParams } from "../services/detached-runs";
import { detachedContext } from "./run-context";
import { callBack, logTrigger, partOf, runThroughDoor, settlePart } from "./run-part";
import { closeUnresumed, waitForResume } from "./resume-wait";

export class RunWorkflow extends WorkflowEntrypoint<Env, DetachedParams> {
  async run(event: WorkflowEvent<DetachedParams>, step: WorkflowStep): Promise<{ state: string }> {
    const ctx = detachedContext(this.env, event.payload, step, (work) => this.ctx.waitUntil(work));
    let input = event.payload.input;
    for (let part = 0; ; part++) {
      const current = partOf(ctx, part);
      const outcome = await runThroughDoor(ctx, current, input, part);
      const state = await settlePart(ctx, current, outcome);
      if (part === 0) await logTrigger(ctx, current, outcome);
      await callBack(ctx, current.steps, input, outcome, state === "STOPPED");
      if (state !== "STOPPED") return { state };

      const next = await waitForResume(ctx, current.steps);
      if ("input" in next) {
        input = next.input;
        continue;
      }
      // Timed out, or resumed by a request that ran it itself (its answer went to that request).
      await closeUnresumed(ctx, current, input, next.state);
      return { state: next.state };
    }
  }
}
