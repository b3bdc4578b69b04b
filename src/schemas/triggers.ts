// Webhook secrets and schedules of agentflows (Flowise 3.1.4's /chatflows/{id}/webhook-secret and
// /chatflows/{id}/schedule/*): the shapes answered, for the API reference.
import { z } from "@hono/zod-openapi";
import { SCHEDULE_INPUT_MODES, SCHEDULE_TRIGGER_STATUSES } from "../db/enums";

export const WebhookSecretResponse = z
  .object({
    webhookSecret: z
      .string()
      .openapi({ description: "64 hex characters; shown only here (stored encrypted). Configure it in the sender." }),
  })
  .openapi("WebhookSecret");

export const ScheduleRecord = z
  .object({
    id: z.string(),
    triggerType: z.string().openapi({ example: "AGENTFLOW" }),
    targetId: z.string().openapi({ description: "The agentflow's id" }),
    nodeId: z.string().nullable(),
    cronExpression: z.string(),
    timezone: z.string(),
    enabled: z.boolean(),
    scheduleInputMode: z.enum(SCHEDULE_INPUT_MODES),
    defaultInput: z.string().nullable(),
    defaultForm: z.string().nullable().openapi({ description: "The form's default values, JSON" }),
    lastRunAt: z.string().nullable().openapi({ description: "The last slot that ran" }),
    nextRunAt: z.string().nullable().openapi({ description: "The next slot; null when there is none (ended, or an invalid expression)" }),
    endDate: z.string().nullable(),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("ScheduleRecord");

export const ScheduleStatus = z
  .object({
    enabled: z.boolean(),
    canEnable: z.boolean(),
    reason: z.string().optional().openapi({ description: "Why the schedule cannot be enabled" }),
    record: ScheduleRecord.nullable(),
  })
  .openapi("ScheduleStatus");

export const ScheduleEnabledBody = z.object({ enabled: z.boolean() }).openapi("ScheduleEnabled");

export const TriggerLog = z
  .object({
    id: z.string(),
    scheduleRecordId: z.string(),
    triggerType: z.string(),
    targetId: z.string(),
    executionId: z.string().nullable(),
    status: z.enum(SCHEDULE_TRIGGER_STATUSES),
    error: z.string().nullable(),
    elapsedTimeMs: z.number().int().nullable(),
    scheduledAt: z.string().openapi({ description: "The slot" }),
    createdDate: z.string(),
  })
  .openapi("ScheduleTriggerLog");

export const TriggerLogPage = z
  .object({
    data: z.array(TriggerLog),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("ScheduleTriggerLogPage");

export const TriggerLogQuery = z.object({
  page: z.string().optional().openapi({ description: "From 1 (default 1)" }),
  limit: z.string().optional().openapi({ description: "1–100 (default 20)" }),
  status: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: `Only these statuses (repeat, or comma-separated): ${SCHEDULE_TRIGGER_STATUSES.join(", ")}` }),
});

export const TriggerLogDeleteBody = z.object({ logIds: z.array(z.string()) }).openapi("ScheduleTriggerLogDelete");

export const TriggerLogDeleted = z
  .object({
    success: z.boolean(),
    deletedLogs: z.number().int(),
    deletedExecutions: z.number().int(),
  })
  .openapi("ScheduleTriggerLogsDeleted");
