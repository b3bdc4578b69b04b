// Finding and claiming the paused execution a `humanInput` request resumes (AGENTFLOW.md §7.2, done
// better: the request may name the execution, any paused one of the session can be resumed, and
// exactly one of two concurrent resumes wins the row). Three ways in: a resume run in the request
// (`findResumeTarget` then `claimForResume`: the run's checkpointer), a detached resume accepted in
// the request (`claimDetachedResume`), and its Workflow reading what was claimed (`claimedResumeTarget`).
import { and, desc, eq, inArray } from "drizzle-orm";
import { badRequest, conflict, notFound } from "../../errors";
import { execution } from "../../db/schema";
import type { ExecutedData } from "../../engine/agentflow/types";
import type { Db } from "../../env";
import { nowIso } from "../../lib/time";
import { ExecutionCheckpointer } from "./checkpointer";
import { expireStaleRuns } from "./lease";
import { type ExecutionDeps, type ExecutionRow, executedDataOf } from "./types";

const FAILED = new Set(["ERROR", "TERMINATED", "INPROGRESS"]);

const parseData = (row: ExecutionRow): ExecutedData[] => executedDataOf(row.executionData) ?? [];

/**
 * The executed data to resume from, or undefined when the row is not waiting for a human. STOPPED
 * rows are; so is a resume that failed or died (ERROR, TIMEOUT) before getting past the paused
 * node — its trailing failed entries are dropped and the pause is offered again (Flowise's retry).
 */
export function resumePoint(row: ExecutionRow): ExecutedData[] | undefined {
  const data = parseData(row);
  if (row.state === "STOPPED") return data;
  if (row.state !== "ERROR" && row.state !== "TIMEOUT") return undefined;
  let end = data.length;
  while (end > 0 && FAILED.has(data[end - 1]?.status)) end--;
  return data[end - 1]?.status === "STOPPED" ? data.slice(0, end) : undefined;
}

/** Execution `executionId` of agentflow `agentflowId`; 404 when the agentflow has no such execution. */
async function executionOfFlow(db: Db, agentflowId: string, executionId: string): Promise<ExecutionRow> {
  const row = await db
    .select()
    .from(execution)
    .where(and(eq(execution.id, executionId), eq(execution.agentflowId, agentflowId)))
    .get();
  if (!row) throw notFound(`Execution ${executionId} of agentflow ${agentflowId} not found`);
  return row;
}

export interface ResumeTarget {
  row: ExecutionRow;
  executedData: ExecutedData[];
}

/**
 * The execution to resume: the one named (it must belong to this agentflow; 404 otherwise, 409 when
 * it is not paused), else the newest paused one of the session (404 when there is none).
 */
export async function findResumeTarget(
  deps: ExecutionDeps,
  agentflowId: string,
  sessionId: string | undefined,
  executionId?: string,
): Promise<ResumeTarget> {
  const { db } = deps;
  if (executionId) {
    await expireStaleRuns(deps, [executionId]);
    const row = await executionOfFlow(db, agentflowId, executionId);
    if (sessionId !== undefined && row.sessionId !== sessionId) {
      throw badRequest(`Execution ${executionId} belongs to session ${row.sessionId}, not ${sessionId}`);
    }
    const executedData = resumePoint(row);
    if (!executedData) throw conflict(`Execution ${executionId} is ${row.state}, not paused: there is nothing to resume`);
    return { row, executedData };
  }
  if (sessionId === undefined) throw badRequest("humanInput needs the chatId of the paused run (or humanInput.executionId)");
  await expireStaleRuns(deps);
  // A handful of the newest candidates: a failed resume is a candidate only while its pause is last.
  const rows = await db
    .select()
    .from(execution)
    .where(
      and(
        eq(execution.agentflowId, agentflowId),
        eq(execution.sessionId, sessionId),
        inArray(execution.state, ["STOPPED", "ERROR", "TIMEOUT"]),
      ),
    )
    .orderBy(desc(execution.createdDate), desc(execution.id))
    .limit(20)
    .all();
  for (const row of rows) {
    const executedData = resumePoint(row);
    if (executedData) return { row, executedData };
  }
  throw notFound(`Nothing paused to resume in session ${sessionId} of agentflow ${agentflowId}`);
}

/**
 * Takes the row: one conditional UPDATE on the state and updatedDate that were read, so of two
 * concurrent resumes exactly one changes the row and the other gets 409. Answers how to give it back.
 */
async function claim(db: Db, target: ResumeTarget): Promise<() => Promise<void>> {
  const { row } = target;
  const stamp = nowIso();
  const executionData = JSON.stringify(target.executedData);
  const taken = await db
    .update(execution)
    .set({ state: "INPROGRESS", updatedDate: stamp, executionData })
    .where(and(eq(execution.id, row.id), eq(execution.state, row.state), eq(execution.updatedDate, row.updatedDate)))
    .returning({ id: execution.id });
  if (!taken.length) throw conflict(`Execution ${row.id} is already being resumed (or changed since it was read)`);
  return async () => {
    await db
      .update(execution)
      .set({ state: row.state, updatedDate: row.updatedDate, executionData: row.executionData })
      .where(and(eq(execution.id, row.id), eq(execution.state, "INPROGRESS"), eq(execution.updatedDate, stamp)));
  };
}

/**
 * Claims the target for a resume run in this request: answers the run's checkpointer, whose
 * `release` gives the pause back as it was when the resume is refused before its first node.
 */
export async function claimForResume(deps: ExecutionDeps, target: ResumeTarget): Promise<ExecutionCheckpointer> {
  const release = await claim(deps.db, target);
  const { id, agentflowId, sessionId } = target.row;
  return new ExecutionCheckpointer(
    deps.db,
    { id, agentflowId, sessionId },
    { executionData: JSON.stringify(target.executedData), release },
  );
}

/**
 * A resume of a paused detached run, accepted in the request (services/runs/detach.ts): the named
 * execution found (it must have been started detached: 400 otherwise) and claimed — the row
 * INPROGRESS, its data trimmed to the pause — for its Workflow to resume from.
 */
export async function claimDetachedResume(deps: ExecutionDeps, agentflowId: string, executionId: string): Promise<ResumeTarget> {
  const target = await findResumeTarget(deps, agentflowId, undefined, executionId);
  if (!target.row.detached) throw badRequest(`Execution ${executionId} was not started with async: true; resume it without async`);
  await claim(deps.db, target);
  return target;
}

/** The pause `claimDetachedResume` claimed, as the run's Workflow reads it to resume from. */
export async function claimedResumeTarget(deps: ExecutionDeps, agentflowId: string, executionId: string): Promise<ResumeTarget> {
  const row = await executionOfFlow(deps.db, agentflowId, executionId);
  if (row.state !== "INPROGRESS") throw conflict(`Execution ${executionId} is ${row.state}: its resume was not claimed`);
  return { row, executedData: parseData(row) };
}
