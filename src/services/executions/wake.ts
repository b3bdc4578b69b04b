// Waking detached runs the Workflows engine left cut off. Locally, an instance whose step was in
// flight when the process died, or whose human-input wait timed out while it was down, is never
// run again by itself; in production the engine restarts it, but nothing proves it did. So a
// detached execution that shows no progress — INPROGRESS with its row untouched for
// DETACHED_STALL_MS (the Workflow touches it at every step and while one works), or paused past its
// HUMAN_INPUT_TIMEOUT_MS by as much — is woken: when a read of GET /executions/{id} or its /events
// finds it (in the background), and by the Cron Trigger's sweep, a bounded batch a minute.
// A wake is claimed first by one conditional UPDATE of `wokenAt`, so an execution is woken at most
// once a minute and two sweeps at once wake it once. The engine is asked how the instance stands:
// one still live is sent the wake (the port's event the Workflow never waits on); one that errored,
// was terminated, completed or is gone will never write its row again, which is settled here —
// ERROR with a message for a running one, TIMEOUT for a pause nobody answered.
import { type SQL, and, asc, eq, isNull, lt, or } from "drizzle-orm";
import { configOf } from "../../config";
import { execution } from "../../db/schema";
import type { ExecutionState } from "../../db/enums";
import type { Db } from "../../env";
import { nowIso } from "../../lib/time";
import type { DetachedRuns } from "../detached-runs";
import type { ExecutionDeps } from "./types";

/** What waking needs: the database, the env, the engine's port (absent where Workflows are not bound). */
export interface WakeBase extends ExecutionDeps {
  detached?: Pick<DetachedRuns, "inspect" | "wake">;
}

/** At most one wake per execution per minute. */
export const WAKE_EVERY_MS = 60_000;
/** Executions one sweep wakes at most (the rest wait for the next minute's). */
export const SWEEP_LIMIT = 25;

/** What a wake did: sent the event, settled a dead instance's row, or nothing (not due, or another caller's). */
export type WakeOutcome = "woken" | "settled" | "skipped";

interface Cutoffs {
  stalled: string;
  expired: string;
  woken: string;
}

function cutoffsOf(env: object, now: number): Cutoffs {
  const { DETACHED_STALL_MS, HUMAN_INPUT_TIMEOUT_MS } = configOf(env);
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    stalled: iso(now - DETACHED_STALL_MS),
    // A pause's updatedDate is when it paused; its wait ends HUMAN_INPUT_TIMEOUT_MS later (give the engine's own timer a moment).
    expired: iso(now - HUMAN_INPUT_TIMEOUT_MS - DETACHED_STALL_MS),
    woken: iso(now - WAKE_EVERY_MS),
  };
}

/** The rows due a wake, as SQL (the sweep's query and the claim's condition). */
function dueWhere(c: Cutoffs): SQL {
  return and(
    eq(execution.detached, true),
    or(
      and(eq(execution.state, "INPROGRESS"), lt(execution.updatedDate, c.stalled)),
      and(eq(execution.state, "STOPPED"), lt(execution.updatedDate, c.expired)),
    ),
    or(isNull(execution.wokenAt), lt(execution.wokenAt, c.woken)),
  ) as SQL;
}

type WakeRow = Pick<typeof execution.$inferSelect, "detached" | "state" | "updatedDate" | "wokenAt">;

/** The same rule on a row already read (a read wakes only what is due, without a write). */
export function isDue(row: WakeRow, env: object, now = Date.now()): boolean {
  const c = cutoffsOf(env, now);
  if (!row.detached || (row.wokenAt !== null && row.wokenAt >= c.woken)) return false;
  if (row.state === "INPROGRESS") return row.updatedDate < c.stalled;
  return row.state === "STOPPED" && row.updatedDate < c.expired;
}

/** Takes this minute's wake of the execution: answers its state when this caller got it. */
async function claim(db: Db, id: string, c: Cutoffs): Promise<ExecutionState | undefined> {
  const [taken] = await db
    .update(execution)
    .set({ wokenAt: nowIso() })
    .where(and(eq(execution.id, id), dueWhere(c)))
    .returning({ state: execution.state });
  return taken?.state;
}

const DEAD: Record<string, string> = {
  errored: "The run's Workflow instance failed",
  terminated: "The run's Workflow instance was terminated",
  complete: "The run's Workflow instance ended without storing how the run ended",
  gone: "The run's Workflow instance is gone",
};

/** A dead instance's row: a running one ERROR, a pause TIMEOUT; conditional on the state claimed. */
async function settleDead(db: Db, id: string, state: ExecutionState, message: string): Promise<void> {
  await db
    .update(execution)
    .set({ state: state === "STOPPED" ? "TIMEOUT" : "ERROR", error: message, updatedDate: nowIso() })
    .where(and(eq(execution.id, id), eq(execution.state, state)));
}

/** Wakes execution `id` if it is due and this caller claims it. */
export async function wakeExecution(deps: WakeBase, id: string, now = Date.now()): Promise<WakeOutcome> {
  const runs = deps.detached;
  if (!runs) return "skipped";
  const state = await claim(deps.db, id, cutoffsOf(deps.env, now));
  if (!state) return "skipped";
  const seen = await runs.inspect(id);
  if (seen.status === "live") {
    await runs.wake(id);
    return "woken";
  }
  await settleDead(deps.db, id, state, seen.error ? `${DEAD[seen.status]}: ${seen.error}` : DEAD[seen.status]!);
  return "settled";
}

/** What a read that may wake needs: the database, the env, the engine, and the request's waitUntil. */
export type WakeDeps = WakeBase & { waitUntil(work: Promise<unknown>): void };

/** A read of this row wakes it in the background when it is due (the answer does not wait). */
export function wakeIfDue(deps: WakeDeps, row: WakeRow & { id: string }): void {
  if (!deps.detached || !isDue(row, deps.env)) return;
  deps.waitUntil(wakeExecution(deps, row.id).catch((err) => console.error(`execution ${row.id}: the wake failed: ${String(err)}`)));
}

export interface SweepReport {
  due: number;
  woken: number;
  settled: number;
  failed: number;
}

/** The Cron Trigger's sweep: up to SWEEP_LIMIT due executions, the longest stalled first. */
export async function sweepDetached(deps: WakeBase, now = Date.now()): Promise<SweepReport> {
  const report: SweepReport = { due: 0, woken: 0, settled: 0, failed: 0 };
  if (!deps.detached) return report;
  const rows = await deps.db
    .select({ id: execution.id })
    .from(execution)
    .where(dueWhere(cutoffsOf(deps.env, now)))
    .orderBy(asc(execution.updatedDate))
    .limit(SWEEP_LIMIT)
    .all();
  report.due = rows.length;
  const outcomes = await Promise.all(
    rows.map((r) =>
      wakeExecution(deps, r.id, now).catch((err) => {
        console.error(`execution ${r.id}: the wake failed: ${String(err)}`);
        return "failed" as const;
      }),
    ),
  );
  for (const o of outcomes) if (o !== "skipped") report[o]++;
  return report;
}
