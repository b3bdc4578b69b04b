// A detached run's execution row, beside what its checkpointer writes: made when the run is
// accepted (or marked ERROR when its Workflow could not be started), touched while a step works
// (its sign of progress for the wake), each part's outcome stored (GET /executions/{id} shows
// `result` and `error`: the answer a synchronous prediction would have given, or why it failed), a
// pause nobody answered ended TIMEOUT. A chatflow's row ends here (FINISHED or ERROR); an
// agentflow's state is written by its own record, and only a failure before its first node is
// still INPROGRESS when its outcome is settled.
import { and, eq, notInArray } from "drizzle-orm";
import { execution } from "../../db/schema";
import type { ExecutionState } from "../../db/enums";
import type { Db } from "../../env";
import { nowIso } from "../../lib/time";
import type { ExecutionDeps, ExecutionIdentity } from "./types";

export type DetachedOutcome = { ok: true; answer: unknown } | { ok: false; status: number; message: string };

/** The row of a detached run being accepted: INPROGRESS, empty, marked detached (its Workflow ends it, not the lease). */
export async function acceptDetached(deps: ExecutionDeps, run: ExecutionIdentity): Promise<void> {
  const now = nowIso();
  await deps.db.insert(execution).values({
    ...run,
    state: "INPROGRESS",
    executionData: "[]",
    detached: true,
    createdDate: now,
    updatedDate: now,
  });
}

/** The run's Workflow could not be started: the accepted row ends ERROR. */
export async function failDetachedStart(deps: ExecutionDeps, executionId: string): Promise<void> {
  await deps.db
    .update(execution)
    .set({ state: "ERROR", error: "The run could not be started", updatedDate: nowIso() })
    .where(eq(execution.id, executionId));
}

/**
 * A detached agentflow's answer, as a statement of its record's batch: written with its final
 * state, so GET /executions/{id} never shows the new state with the previous part's result.
 */
export function resultStatement(db: Db, executionId: string, answer: unknown) {
  return db
    .update(execution)
    .set({ result: JSON.stringify(answer), error: null })
    .where(eq(execution.id, executionId));
}

/** Stores a part's outcome; answers the row's state after it (STOPPED: paused for human input). */
export async function settleDetached(deps: ExecutionDeps, executionId: string, outcome: DetachedOutcome): Promise<ExecutionState> {
  const { db } = deps;
  const now = nowIso();
  const running = and(eq(execution.id, executionId), eq(execution.state, "INPROGRESS"));
  if (outcome.ok) {
    await db.batch([
      db.update(execution).set({ state: "FINISHED", updatedDate: now }).where(running),
      resultStatement(db, executionId, outcome.answer),
    ]);
  } else {
    // The message goes on a row that failed (now, or by its own record: ERROR, TERMINATED, TIMEOUT),
    // never on one a finished record left FINISHED or STOPPED.
    await db.batch([
      db.update(execution).set({ state: "ERROR", updatedDate: now }).where(running),
      db
        .update(execution)
        .set({ error: outcome.message })
        .where(and(eq(execution.id, executionId), notInArray(execution.state, ["FINISHED", "STOPPED"]))),
    ]);
  }
  return (await detachedState(deps, executionId)) ?? "ERROR";
}

/** A pause nobody answered in time: the execution ends TIMEOUT. */
export async function expireDetachedPause(deps: ExecutionDeps, executionId: string, message: string): Promise<void> {
  await deps.db
    .update(execution)
    .set({ state: "TIMEOUT", error: message, updatedDate: nowIso() })
    .where(and(eq(execution.id, executionId), eq(execution.state, "STOPPED")));
}

/** The row's state now (a synchronous resume may have moved it). */
export async function detachedState(deps: ExecutionDeps, executionId: string): Promise<ExecutionState | undefined> {
  return (await deps.db.select({ state: execution.state }).from(execution).where(eq(execution.id, executionId)).get())?.state;
}

/** The run's sign of progress (a step working): the row of a running part touched, so no wake takes it for stalled. */
export async function markProgress(deps: ExecutionDeps, executionId: string): Promise<void> {
  await deps.db
    .update(execution)
    .set({ updatedDate: nowIso() })
    .where(and(eq(execution.id, executionId), eq(execution.state, "INPROGRESS")));
}
