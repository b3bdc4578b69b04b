// A schedule's trigger logs (Flowise 3.1.4's schedule_trigger_log): one row per slot the tick
// claimed — RUNNING while its run goes on, then SUCCEEDED or FAILED with the scrubbed error and
// the time it took. Listed newest slot first; deleting rows deletes the executions they name.
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { SCHEDULE_TRIGGER_STATUSES, type ScheduleTriggerStatus } from "../../db/enums";
import { chatFlow, scheduleTriggerLog } from "../../db/schema";
import type { Db } from "../../env";
import { badRequest, notFound } from "../../errors";
import { type ExecutionDeleteDeps, deleteExecutions } from "../executions";
import type { Deps } from "../deps";

export type TriggerLogRow = typeof scheduleTriggerLog.$inferSelect;

async function assertFlow(db: Db, flowId: string): Promise<void> {
  if (!(await db.select({ id: chatFlow.id }).from(chatFlow).where(eq(chatFlow.id, flowId)).get()))
    throw notFound(`Chatflow ${flowId} not found`);
}

export interface TriggerLogQuery {
  page?: string;
  limit?: string;
  status?: string[];
}

/**
 * A positive integer query parameter up to `max`, or the default; anything else is a 400 naming it.
 * The bound keeps the OFFSET inside SQLite's 64-bit integers (a bigger one fails the query: a 500).
 */
function positive(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw badRequest(`${name} must be an integer from 1 to ${max}`);
  return Number(raw);
}

/** GET /chatflows/{id}/schedule/trigger-logs: `{data, total, page, limit}` (limit 1–100, default 20). */
export async function listTriggerLogs({ db }: Deps<"db">, flowId: string, query: TriggerLogQuery) {
  const page = positive("page", query.page, 1, 1_000_000);
  const limit = Math.min(100, positive("limit", query.limit, 20, Number.MAX_SAFE_INTEGER));
  const statuses = (query.status ?? [])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = statuses.find((s) => !SCHEDULE_TRIGGER_STATUSES.includes(s as ScheduleTriggerStatus));
  if (unknown) throw badRequest(`status must be one of ${SCHEDULE_TRIGGER_STATUSES.join(", ")} (got ${unknown})`);
  await assertFlow(db, flowId);
  const where = and(
    eq(scheduleTriggerLog.targetId, flowId),
    statuses.length ? inArray(scheduleTriggerLog.status, statuses as ScheduleTriggerStatus[]) : undefined,
  );
  const [data, [{ total }]] = await db.batch([
    db
      .select()
      .from(scheduleTriggerLog)
      .where(where)
      .orderBy(desc(scheduleTriggerLog.scheduledAt), desc(scheduleTriggerLog.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db.select({ total: count() }).from(scheduleTriggerLog).where(where),
  ]);
  return { data, total, page, limit };
}

/** DELETE /chatflows/{id}/schedule/trigger-logs {logIds}: the rows of this flow among them, and their executions. */
export async function deleteTriggerLogs(deps: ExecutionDeleteDeps, flowId: string, body: unknown) {
  const { db } = deps;
  const logIds = (body as { logIds?: unknown } | null)?.logIds;
  if (!Array.isArray(logIds) || logIds.some((x) => typeof x !== "string")) throw badRequest("logIds must be a string[]");
  await assertFlow(db, flowId);
  if (!logIds.length) return { success: true, deletedLogs: 0, deletedExecutions: 0 };
  // The ids as one JSON parameter (json_each): D1 binds at most 100 parameters per statement.
  const ids = sql`${scheduleTriggerLog.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(logIds as string[])])}))`;
  const rows = await db
    .delete(scheduleTriggerLog)
    .where(and(eq(scheduleTriggerLog.targetId, flowId), ids))
    .returning({ executionId: scheduleTriggerLog.executionId });
  const executionIds = rows.map((r) => r.executionId).filter((id): id is string => !!id);
  const deletedExecutions = executionIds.length ? (await deleteExecutions(deps, executionIds, [flowId])).deleted : 0;
  return { success: true, deletedLogs: rows.length, deletedExecutions };
}

/** A run's end: SUCCEEDED (a pause for human input included, as Flowise counts it) or FAILED with its error. */
export async function settleTriggerLog({ db }: Deps<"db">, id: string, error?: string): Promise<void> {
  const row = await db
    .select({ createdDate: scheduleTriggerLog.createdDate })
    .from(scheduleTriggerLog)
    .where(eq(scheduleTriggerLog.id, id))
    .get();
  if (!row) return; // deleted meanwhile
  await db
    .update(scheduleTriggerLog)
    .set({
      status: error === undefined ? "SUCCEEDED" : "FAILED",
      error: error ?? null,
      elapsedTimeMs: Math.max(0, Date.now() - Date.parse(row.createdDate)),
    })
    .where(eq(scheduleTriggerLog.id, id));
}
