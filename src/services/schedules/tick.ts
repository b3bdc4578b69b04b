// One tick of the Worker's Cron Trigger (every minute): the schedules whose next slot is due are
// read with one indexed query, and each slot is claimed in D1 before it runs — a trigger-log row
// unique per (schedule, slot), inserted beside a conditional move of the schedule's next slot — so
// overlapping ticks, a retried tick and other isolates start it once. A schedule that was due
// several times while nothing ticked runs once (its latest pending slot), then moves past now.
// Each claimed slot is started as a detached run (a Workflow), a new chat every time.
import { and, eq, lte } from "drizzle-orm";
import { scheduleRecord, scheduleTriggerLog } from "../../db/schema";
import { ApiError } from "../../errors";
import { newId } from "../../lib/ids";
import { redact } from "../../lib/redact";
import { workerSecretValues } from "../../lib/secrets";
import type { PredictionInput } from "../../schemas/prediction";
import { type RunDeps, runFlow } from "../runs";
import { nextSlot } from "./cron";
import type { ScheduleRow } from "./records";

/**
 * Slots started per tick at most; the rest stay due and run at the next tick. Each costs about six
 * D1 statements (its claim, its run's look-ups and execution row, its log) and a Workflow: 50 keep a
 * tick well within an invocation's 1,000 subrequests.
 */
export const TICK_BATCH = 50;

export interface TickReport {
  due: number;
  claimed: number;
  started: number;
  failed: number;
}

/**
 * The tick's time in ms. Cloudflare gives ms; `wrangler dev`'s test route
 * (`/cdn-cgi/handler/scheduled?time=<unix seconds>`) hands its number over as it is: a value below
 * 10^11 (before 1973 in ms) is read as seconds.
 */
export const tickTimeOf = (scheduledTime: number): number => (scheduledTime < 1e11 ? scheduledTime * 1000 : scheduledTime);

/** What a slot's run is sent (Flowise's ScheduleExecutor): the default text, the default form, or a blank question. */
function inputOf(row: ScheduleRow): PredictionInput {
  const chatId = newId();
  if (row.scheduleInputMode === "form") {
    let form: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(row.defaultForm ?? "{}");
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) form = parsed;
    } catch {
      // Flowise falls back to an empty form too.
    }
    return { chatId, form };
  }
  return { chatId, question: row.scheduleInputMode === "none" ? " " : (row.defaultInput ?? "") };
}

interface Plan {
  row: ScheduleRow;
  slot: string;
  logId: string;
  /** The slot after now (not after this one: missed slots are not run one by one); null when the schedule has ended. */
  next: string | null;
}

function planOf(row: ScheduleRow, now: Date): Plan {
  const end = row.endDate ? new Date(row.endDate) : null;
  return { row, slot: row.nextRunAt!, logId: newId(), next: nextSlot(row.cronExpression, row.timezone, now, end)?.toISOString() ?? null };
}

export async function runScheduleTick(deps: RunDeps, scheduledTime: number): Promise<TickReport> {
  const { db, env } = deps;
  const now = new Date(tickTimeOf(scheduledTime));
  const due = await db
    .select()
    .from(scheduleRecord)
    .where(and(eq(scheduleRecord.enabled, true), lte(scheduleRecord.nextRunAt, now.toISOString())))
    .orderBy(scheduleRecord.nextRunAt)
    .limit(TICK_BATCH)
    .all();
  const report: TickReport = { due: due.length, claimed: 0, started: 0, failed: 0 };
  if (!due.length) return report;

  // The claims, in one batch: per schedule, its slot's log row (the unique pair decides who runs
  // it) and its next slot, moved only from the slot this tick read.
  const plans = due.map((row) => planOf(row, now));
  const startedAt = Date.now();
  const createdDate = new Date(startedAt).toISOString();
  const statements = plans.flatMap((p) => [
    db
      .insert(scheduleTriggerLog)
      .values({
        id: p.logId,
        scheduleRecordId: p.row.id,
        triggerType: p.row.triggerType,
        targetId: p.row.targetId,
        status: "RUNNING",
        scheduledAt: p.slot,
        createdDate,
      })
      .onConflictDoNothing()
      .returning({ id: scheduleTriggerLog.id }),
    // A schedule with no slot left (its end date) is switched off, as Flowise does.
    db
      .update(scheduleRecord)
      .set({ nextRunAt: p.next, lastRunAt: p.slot, ...(p.next === null ? { enabled: false } : {}), updatedDate: createdDate })
      .where(and(eq(scheduleRecord.id, p.row.id), eq(scheduleRecord.nextRunAt, p.slot))),
  ]);
  const results = await db.batch(statements as [(typeof statements)[number], ...typeof statements]);
  const claimed = plans.filter((_, i) => (results[2 * i] as unknown[]).length === 1);
  report.claimed = claimed.length;

  const secrets = workerSecretValues(env);
  // Each started run's execution id (or why it could not start), written in one batch after.
  const settled = await Promise.all(
    claimed.map(async (p): Promise<{ p: Plan; executionId?: string; error?: string }> => {
      try {
        const delivered = await runFlow(deps, {
          trigger: "schedule",
          flowId: p.row.targetId,
          input: inputOf(p.row),
          delivery: "detached",
          triggerLogId: p.logId,
        });
        return { p, executionId: delivered.kind === "detached" ? delivered.body.executionId : undefined };
      } catch (err) {
        // The run could not be started (the flow was deleted or cannot run, Workflows refused it): a FAILED row says why.
        if (!(err instanceof ApiError)) console.error(`schedule ${p.row.id}: ${redact(String(err), secrets)}`);
        return { p, error: err instanceof ApiError ? redact(err.message, secrets) : "The run could not be started" };
      }
    }),
  );
  report.failed = settled.filter((s) => s.error !== undefined).length;
  report.started = settled.length - report.failed;
  const writes = settled.map(({ p, executionId, error }) =>
    error === undefined
      ? db
          .update(scheduleTriggerLog)
          .set({ executionId: executionId ?? null })
          .where(eq(scheduleTriggerLog.id, p.logId))
      : db
          .update(scheduleTriggerLog)
          .set({ status: "FAILED", error, elapsedTimeMs: Date.now() - startedAt })
          .where(eq(scheduleTriggerLog.id, p.logId)),
  );
  if (writes.length) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
  return report;
}
