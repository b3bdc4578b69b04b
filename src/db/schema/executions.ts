// Runs: agentflow executions (checkpoints, detached runs), schedules and their trigger logs.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ExecutionState, ScheduleInputMode, ScheduleTriggerStatus } from "../enums";
import { createdDate, updatedDate } from "./columns";

/**
 * One run of an agentflow (Flowise's `execution`): `executionData` is the JSON of the executed
 * nodes so far, rewritten after every node, so a paused or interrupted run is never lost.
 * `updatedDate` doubles as the run's lease: an INPROGRESS row not touched for a while is TIMEOUT
 * (a detached run's is its sign of progress instead: a stalled one is woken, not ended).
 */
export const execution = sqliteTable(
  "execution",
  {
    id: text("id").primaryKey(),
    executionData: text("executionData").notNull().default("[]"),
    state: text("state").$type<ExecutionState>().notNull(),
    agentflowId: text("agentflowId").notNull(),
    sessionId: text("sessionId").notNull(),
    // The pending human-input action (JSON) while STOPPED.
    action: text("action"),
    isPublic: integer("isPublic", { mode: "boolean" }).notNull().default(false),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
    stoppedDate: text("stoppedDate"),
    // Asynchronous runs (issue 20): run by a Workflow instance of the same id; the answer a
    // synchronous prediction would have given (JSON) once it ended, or why it failed.
    detached: integer("detached", { mode: "boolean" }).notNull().default(false),
    result: text("result"),
    error: text("error"),
    // When a stalled detached run was last woken (services/executions/wake.ts): one wake a minute,
    // claimed by a conditional UPDATE so two sweeps wake it once.
    wokenAt: text("wokenAt"),
  },
  (t) => [
    index("idx_execution_flow_session").on(t.agentflowId, t.sessionId, t.createdDate),
    index("idx_execution_updated").on(t.updatedDate),
    index("idx_execution_state_updated").on(t.state, t.updatedDate),
  ],
);

/**
 * A scheduled agentflow's schedule (Flowise's schedule_record), kept in step with its Start node
 * when the flow is saved. `nextRunAt` is the next slot (ISO, UTC), NULL when there is none (ended,
 * or an invalid cron): the cron tick finds the due ones on (enabled, nextRunAt).
 */
export const scheduleRecord = sqliteTable(
  "schedule_record",
  {
    id: text("id").primaryKey(),
    triggerType: text("triggerType").notNull().default("AGENTFLOW"),
    targetId: text("targetId").notNull(),
    nodeId: text("nodeId"),
    cronExpression: text("cronExpression").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    scheduleInputMode: text("scheduleInputMode").$type<ScheduleInputMode>().notNull(),
    defaultInput: text("defaultInput"),
    defaultForm: text("defaultForm"),
    lastRunAt: text("lastRunAt"),
    nextRunAt: text("nextRunAt"),
    endDate: text("endDate"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [
    uniqueIndex("uq_schedule_record_target").on(t.targetId, t.triggerType),
    index("idx_schedule_record_due").on(t.enabled, t.nextRunAt),
  ],
);

/**
 * One slot of a schedule (Flowise's schedule_trigger_log). The unique (schedule, slot) pair is the
 * claim: the tick that inserts it runs the slot, any other tick for the same slot inserts nothing.
 */
export const scheduleTriggerLog = sqliteTable(
  "schedule_trigger_log",
  {
    id: text("id").primaryKey(),
    scheduleRecordId: text("scheduleRecordId").notNull(),
    triggerType: text("triggerType").notNull().default("AGENTFLOW"),
    targetId: text("targetId").notNull(),
    executionId: text("executionId"),
    status: text("status").$type<ScheduleTriggerStatus>().notNull(),
    error: text("error"),
    elapsedTimeMs: integer("elapsedTimeMs"),
    scheduledAt: text("scheduledAt").notNull(),
    createdDate: createdDate(),
  },
  (t) => [
    uniqueIndex("uq_schedule_trigger_log_slot").on(t.scheduleRecordId, t.scheduledAt),
    index("idx_schedule_trigger_log_target").on(t.targetId, t.scheduledAt),
    index("idx_schedule_trigger_log_execution").on(t.executionId),
  ],
);
