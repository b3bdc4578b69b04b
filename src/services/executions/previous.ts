// A session's previous execution: the newest one of (agentflow, session), whose data a new run's
// Start node reads (persisted state, the form it restores). Read here, or in the run's look-ups
// batch (services/runs/lookups.ts) as the plain statement below.
import { and, desc, eq, ne } from "drizzle-orm";
import { execution } from "../../db/schema";
import type { ExecutedData } from "../../engine/agentflow/types";
import { type ExecutionDeps, executedDataOf } from "./types";

/** The same read as a plain statement (?1 the agentflow, ?2 the session): one of a D1 batch's. */
export const PREVIOUS_EXECUTION_SQL =
  "SELECT executionData FROM execution WHERE agentflowId = ?1 AND sessionId = ?2 ORDER BY createdDate DESC, id DESC LIMIT 1";

/** The session's newest execution's data, other than `own` (a detached run's row, made before it started). */
export async function previousExecutionData(
  deps: ExecutionDeps,
  agentflowId: string,
  sessionId: string,
  own?: string,
): Promise<ExecutedData[] | undefined> {
  const row = await deps.db
    .select({ executionData: execution.executionData })
    .from(execution)
    .where(and(eq(execution.agentflowId, agentflowId), eq(execution.sessionId, sessionId), own ? ne(execution.id, own) : undefined))
    .orderBy(desc(execution.createdDate), desc(execution.id))
    .limit(1)
    .get();
  return executedDataOf(row?.executionData);
}
