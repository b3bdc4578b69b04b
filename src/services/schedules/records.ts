// A scheduled agentflow's schedule row (Flowise 3.1.4's schedule service): kept in step with the
// Start node whenever the flow is saved (a row while it is a schedule, none otherwise), its status
// (can it be enabled, and why not), and the switch. The next slot is computed when the flow is
// saved and when the schedule is enabled (from then on: slots missed while off do not run).
import { and, eq } from "drizzle-orm";
import { chatFlow, scheduleRecord } from "../../db/schema";
import type { Db } from "../../env";
import { badRequest, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { startInputsOf } from "../runs";
import { nextSlot } from "./cron";
import { type StartSchedule, startSchedule } from "./start-schedule";

export type ScheduleRow = typeof scheduleRecord.$inferSelect;

const AGENTFLOW = "AGENTFLOW";

interface FlowRecord {
  id: string;
  type: string;
  flowData: string;
}

/** The Start node's schedule, when the flow is an agentflow started by one. */
export function scheduleOfFlow(flow: Pick<FlowRecord, "type" | "flowData">, now = new Date()): StartSchedule | undefined {
  if (flow.type !== AGENTFLOW) return undefined;
  let nodes: unknown;
  try {
    nodes = (JSON.parse(flow.flowData) as { nodes?: unknown }).nodes;
  } catch {
    return undefined;
  }
  if (!Array.isArray(nodes)) return undefined;
  const inputs = startInputsOf(nodes);
  if (inputs?.startInputType !== "scheduleInput") return undefined;
  const start = nodes.find((n) => n?.data?.name === "startAgentflow") as { id?: unknown };
  return startSchedule(inputs, typeof start.id === "string" ? start.id : undefined, now);
}

/** The next slot after `after`, when the schedule has a valid expression and has not ended. */
const nextRunOf = (s: Pick<StartSchedule, "cronValid" | "cronExpression" | "timezone" | "endDate">, after: Date): string | null =>
  s.cronValid ? (nextSlot(s.cronExpression, s.timezone, after, s.endDate ? new Date(s.endDate) : null)?.toISOString() ?? null) : null;

const findRow = (db: Db, flowId: string) =>
  db
    .select()
    .from(scheduleRecord)
    .where(and(eq(scheduleRecord.targetId, flowId), eq(scheduleRecord.triggerType, AGENTFLOW)))
    .get();

/** The values a save writes into a scheduled flow's row; `enabled` is what a new row gets. */
export interface ScheduleValues {
  nodeId: string | null;
  cronExpression: string;
  timezone: string;
  scheduleInputMode: StartSchedule["inputMode"];
  defaultInput: StartSchedule["defaultInput"];
  defaultForm: StartSchedule["defaultForm"];
  endDate: string | null;
  nextRunAt: string | null;
  updatedDate: string;
}

/**
 * What a save makes of a flow's Start node: its schedule row's values, whether it can be enabled,
 * and the save warning when it cannot; undefined when the flow is no schedule. (An import writes
 * the same rows: export-import/flow-records.ts.)
 */
export function scheduleRowOf(
  flow: FlowRecord,
  now = new Date(),
): { values: ScheduleValues; canEnable: boolean; warning?: string } | undefined {
  const schedule = scheduleOfFlow(flow, now);
  if (!schedule) return undefined;
  const values: ScheduleValues = {
    nodeId: schedule.nodeId ?? null,
    cronExpression: schedule.cronExpression,
    timezone: schedule.timezone,
    scheduleInputMode: schedule.inputMode,
    defaultInput: schedule.defaultInput,
    defaultForm: schedule.defaultForm,
    endDate: schedule.endDate ?? null,
    nextRunAt: nextRunOf(schedule, now),
    updatedDate: now.toISOString(),
  };
  return schedule.canEnable
    ? { values, canEnable: true }
    : { values, canEnable: false, warning: `The schedule cannot be enabled: ${schedule.reason}` };
}

/**
 * After a save: the flow's schedule row made or updated from its Start node (a new one is enabled
 * when it can be; an existing one keeps its switch unless it can no longer be on), or removed when
 * the flow is no longer a schedule. Answers the save warning when the schedule cannot be enabled.
 */
export async function syncSchedule(db: Db, flow: FlowRecord, isNew = false): Promise<string | undefined> {
  const now = new Date();
  const schedule = scheduleRowOf(flow, now);
  if (!schedule) {
    // A flow just created has no schedule row to remove (deleting a flow removes its rows): no write.
    if (isNew) return undefined;
    await db.delete(scheduleRecord).where(and(eq(scheduleRecord.targetId, flow.id), eq(scheduleRecord.triggerType, AGENTFLOW)));
    return undefined;
  }
  const { values, canEnable, warning } = schedule;
  const created = {
    id: newId(),
    triggerType: AGENTFLOW,
    targetId: flow.id,
    enabled: canEnable,
    createdDate: now.toISOString(),
    ...values,
  };
  await db
    .insert(scheduleRecord)
    .values(created)
    .onConflictDoUpdate({
      target: [scheduleRecord.targetId, scheduleRecord.triggerType],
      set: canEnable ? values : { ...values, enabled: false },
    });
  return warning;
}

async function flowOf(db: Db, flowId: string): Promise<FlowRecord> {
  const flow = await db
    .select({ id: chatFlow.id, type: chatFlow.type, flowData: chatFlow.flowData })
    .from(chatFlow)
    .where(eq(chatFlow.id, flowId))
    .get();
  if (!flow) throw notFound(`Chatflow ${flowId} not found`);
  return flow;
}

export interface ScheduleStatus {
  enabled: boolean;
  canEnable: boolean;
  reason?: string;
  record: ScheduleRow | null;
}

/** Flowise's GET /chatflows/{id}/schedule/status: judged on the flow as saved now, not on the row. */
export async function getScheduleStatus(db: Db, flowId: string): Promise<ScheduleStatus> {
  const [flow, row] = await Promise.all([flowOf(db, flowId), findRow(db, flowId)]);
  const record = row ?? null;
  const schedule = scheduleOfFlow(flow);
  const status = (canEnable: boolean, reason?: string): ScheduleStatus => ({
    enabled: record?.enabled ?? false,
    canEnable,
    ...(reason ? { reason } : {}),
    record,
  });
  if (!schedule) return status(false, "Flow is not configured as a scheduled flow");
  return status(schedule.canEnable, schedule.reason);
}

/** PATCH /chatflows/{id}/schedule/enabled {enabled}: answers the row. Enabling starts from the next slot after now. */
export async function setScheduleEnabled(db: Db, flowId: string, body: unknown): Promise<ScheduleRow> {
  const enabled = (body as { enabled?: unknown } | null)?.enabled;
  if (typeof enabled !== "boolean") throw badRequest('"enabled" must be a boolean');
  const [flow, row] = await Promise.all([flowOf(db, flowId), findRow(db, flowId)]);
  if (!row) throw notFound("No schedule record found for this flow");
  const set: Partial<ScheduleRow> = { enabled, updatedDate: nowIso() };
  if (enabled) {
    const schedule = scheduleOfFlow(flow);
    if (!schedule?.canEnable) throw badRequest(schedule?.reason ?? "Flow is not configured as a scheduled flow");
    set.nextRunAt = nextRunOf(schedule, new Date());
  }
  const [saved] = await db.update(scheduleRecord).set(set).where(eq(scheduleRecord.id, row.id)).returning();
  return saved;
}
