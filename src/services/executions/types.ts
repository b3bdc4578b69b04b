// What the executions module takes and hands out: the services container's shape it reads (the
// database and the Worker's env), the row, and its executed data as stored (a JSON array).
import type { execution } from "../../db/schema";
import type { ExecutedData } from "../../engine/agentflow/types";
import type { Db, Env } from "../../env";

/** The part of the services container (services/container.ts) an execution's lifecycle needs. */
export interface ExecutionDeps {
  db: Db;
  env: Env;
}

export type ExecutionRow = typeof execution.$inferSelect;

/** Who a run's execution row belongs to. */
export interface ExecutionIdentity {
  id: string;
  agentflowId: string;
  sessionId: string;
}

/** Stored executionData as the runtime takes it; undefined when it is not a JSON array. */
export function executedDataOf(json: string | undefined): ExecutedData[] | undefined {
  if (json === undefined) return undefined;
  try {
    const data = JSON.parse(json);
    return Array.isArray(data) ? data : undefined;
  } catch {
    return undefined;
  }
}
