// Finding and claiming the paused execution a `humanInput` request resumes (AGENTFLOW.md §7.2, done
// better: the request may name the execution, any paused one of the session can be resumed, and
// exactly one of two concurrent resumes wins the row).
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db, Env } from "../env";
import { badRequest, conflict, notFound } from "../errors";
import { execution } from "../db/schema";
import type { ExecutedData } from "../engine/agentflow/types";
import { nowIso } from "../lib/time";
import { expireStaleRuns } from "./execution-lease";
import type { ExecutionRow } from "./executions";

const FAILED = new Set(["ERROR", "TERMINATED", "INPROGRESS"]);

function parseData(row: ExecutionRow): ExecutedData[] {
  try {
    const data = JSON.parse(row.executionData);
    return Array.isArray(data) ? data : [];
  } catch {
    return [];
  }
}

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
  db: Db,
  env: Env,
  agentflowId: string,
  sessionId: string | undefined,
  executionId?: string,
): Promise<ResumeTarget> {
  if (executionId) {
    await expireStaleRuns(db, env, [executionId]);
    const row = await executionOfFlow(db, agentflowId, executionId);
    if (sessionId !== undefined && row.sessionId !== sessionId) {
      throw badRequest(`Execution ${executionId} belongs to session ${row.sessionId}, not ${sessionId}`);
    }
    const executedData = resumePoint(row);
    if (!executedData) throw conflict(`Execution ${executionId} is ${row.state}, not paused: there is nothing to resume`);
    return { row, executedData };
  }
  if (sessionId === undefined) throw badRequest("humanInput needs the chatId of the paused run (or humanInput.executionId)");
  await expireStaleRuns(db, env);
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
 * Takes the row for this resume: one conditional UPDATE on the state and updatedDate that were
 * read, so of two concurrent resumes exactly one changes the row and the other gets 409.
 */
export async function claimForResume(db: Db, target: ResumeTarget): Promise<{ release: () => Promise<void> }> {
  const { row } = target;
  const stamp = nowIso();
  const executionData = JSON.stringify(target.executedData);
  const taken = await db
    .update(execution)
    .set({ state: "INPROGRESS", updatedDate: stamp, executionData })
    .where(and(eq(execution.id, row.id), eq(execution.state, row.state), eq(execution.updatedDate, row.updatedDate)))
    .returning({ id: execution.id });
  if (!taken.length) throw conflict(`Execution ${row.id} is already being resumed (or changed since it was read)`);
  return {
    // A resume refused before its first node ran gives the pause back as it was.
    release: async () => {
      await db
        .update(execution)
        .set({ state: row.state, updatedDate: row.updatedDate, executionData: row.executionData })
        .where(and(eq(execution.id, row.id), eq(execution.state, "INPROGRESS"), eq(execution.updatedDate, stamp)));
    },
  };
}

/**
 * The pause a detached run's resume claimed when it was accepted (services/runs/detach.ts): the row
 * INPROGRESS, its data trimmed to the pause. The run's Workflow resumes from it.
 */
export async function claimedResumeTarget(db: Db, agentflowId: string, executionId: string): Promise<ResumeTarget> {
  const row = await executionOfFlow(db, agentflowId, executionId);
  if (row.state !== "INPROGRESS") throw conflict(`Execution ${executionId} is ${row.state}: its resume was not claimed`);
  return { row, executedData: parseData(row) };
}
