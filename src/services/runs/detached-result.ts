// How a detached run's part ended, written into its execution row (GET /executions/{id} shows
// `result` and `error`): the answer a synchronous prediction would have given, or why it failed.
// A chatflow's row ends here (FINISHED or ERROR); an agentflow's state was written by its own
// record, and only a failure before its first node is still INPROGRESS here.
import { and, eq, notInArray } from "drizzle-orm";
import { execution } from "../../db/schema";
import type { ExecutionState } from "../../db/enums";
import type { Db } from "../../env";
import { nowIso } from "../../lib/time";

export type DetachedOutcome = { ok: true; answer: unknown } | { ok: false; status: number; message: string };

/** Stores the outcome; answers the row's state after it (STOPPED: paused for human input). */
export async function settleDetached(db: Db, executionId: string, outcome: DetachedOutcome): Promise<ExecutionState> {
  const now = nowIso();
  const running = and(eq(execution.id, executionId), eq(execution.state, "INPROGRESS"));
  if (outcome.ok) {
    const result = JSON.stringify(outcome.answer);
    await db.batch([
      db.update(execution).set({ state: "FINISHED", updatedDate: now }).where(running),
      db.update(execution).set({ result, error: null }).where(eq(execution.id, executionId)),
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
  const row = await db.select({ state: execution.state }).from(execution).where(eq(execution.id, executionId)).get();
  return row?.state ?? "ERROR";
}

/** A pause nobody answered in time: the execution ends TIMEOUT. */
export async function expireDetachedPause(db: Db, executionId: string, message: string): Promise<void> {
  await db
    .update(execution)
    .set({ state: "TIMEOUT", error: message, updatedDate: nowIso() })
    .where(and(eq(execution.id, executionId), eq(execution.state, "STOPPED")));
}

/** The row's state now (a synchronous resume may have moved it). */
export async function detachedState(db: Db, executionId: string): Promise<ExecutionState | undefined> {
  return (await db.select({ state: execution.state }).from(execution).where(eq(execution.id, executionId)).get())?.state;
}

/** The run's sign of progress (a step working): the row of a running part touched, so no wake takes it for stalled. */
export async function markProgress(db: Db, executionId: string): Promise<void> {
  await db
    .update(execution)
    .set({ updatedDate: nowIso() })
    .where(and(eq(execution.id, executionId), eq(execution.state, "INPROGRESS")));
}
