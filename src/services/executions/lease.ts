// The lease of a synchronous run's execution: a running execution renews it (the row's updatedDate)
// after every node and on a timer; an INPROGRESS row older than the lease belongs to a run that
// died with its isolate. Its state is then fixed to TIMEOUT by a conditional update, so a run that
// was only slow cannot be overwritten by the sweep's decision, nor overwrite it afterwards (its
// checkpoints need state INPROGRESS). EXECUTION_LEASE_SECONDS, default 120 (config.ts).
import { and, eq, inArray, lt } from "drizzle-orm";
import { configOf } from "../../config";
import { execution } from "../../db/schema";
import type { Env } from "../../env";
import type { ExecutionDeps } from "./types";

export function leaseMs(env: Env): number {
  return configOf(env).EXECUTION_LEASE_SECONDS * 1000;
}

/** How often a live run renews its lease: well inside the lease, so one late timer is harmless. */
export const renewEveryMs = (env: Env): number => Math.max(250, Math.floor(leaseMs(env) / 4));

/** Marks stale INPROGRESS rows TIMEOUT; `ids` narrows the sweep to the rows about to be read. */
export async function expireStaleRuns(deps: ExecutionDeps, ids?: string[]): Promise<void> {
  const cutoff = new Date(Date.now() - leaseMs(deps.env)).toISOString();
  // A detached run's row is its Workflow's to end (it may wait in the platform's queue, or run a
  // long chatflow step, without renewing a lease): the sweep leaves it alone.
  const stale = and(
    eq(execution.state, "INPROGRESS"),
    eq(execution.detached, false),
    lt(execution.updatedDate, cutoff),
    ids ? inArray(execution.id, ids) : undefined,
  );
  await deps.db.update(execution).set({ state: "TIMEOUT" }).where(stale);
}
