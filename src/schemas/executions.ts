import { z } from "@hono/zod-openapi";
import { EXECUTION_STATES } from "../db/enums";
import { PageQuery, dateQuery, text, uuid } from "./common";

export const ExecutionListQuery = PageQuery.extend({
  agentflowId: uuid().optional(),
  sessionId: text(1000).optional(),
  agentflowName: text(500)
    .optional()
    .openapi({ description: "Only runs of agentflows whose name contains this (any case): the Executions page's filter" }),
  state: z.enum(EXECUTION_STATES).optional(),
  startDate: dateQuery("start").optional().openapi({ description: "createdDate on or after (a bare date: that day's start)" }),
  endDate: dateQuery("end").optional().openapi({ description: "createdDate on or before (a bare date: that day's end)" }),
});
export type ExecutionListInput = z.infer<typeof ExecutionListQuery>;

// Flowise's UI sends any partial execution; only isPublic may change (the rest is the run's record).
export const ExecutionUpdate = z.object({ isPublic: z.boolean() }).strict().openapi("ExecutionUpdate");

export const ExecutionDeleteMany = z.object({ executionIds: z.array(uuid()).max(1000) }).openapi("ExecutionDeleteMany");

export const Execution = z
  .object({
    id: z.string(),
    executionData: z.string().openapi({ description: "JSON string: the executed nodes (Flowise's IAgentflowExecutedData[])" }),
    state: z.enum(EXECUTION_STATES),
    agentflowId: z.string(),
    sessionId: z.string(),
    action: z.string().nullable().openapi({ description: "JSON string: the pending human-input action while STOPPED" }),
    isPublic: z.boolean(),
    createdDate: z.string(),
    updatedDate: z.string(),
    stoppedDate: z.string().nullable(),
    result: z
      .unknown()
      .optional()
      .openapi({ description: "An asynchronous run's answer (what a synchronous prediction would have answered), once it ended" }),
    error: z.string().optional().openapi({ description: "Why an asynchronous run failed" }),
  })
  .openapi("Execution");

const ExecutionListItem = Execution.extend({
  agentflow: z.object({ id: z.string(), name: z.string() }).nullable(),
}).openapi("ExecutionListItem");

export const ExecutionList = z.object({ data: z.array(ExecutionListItem), total: z.number().int() }).openapi("ExecutionList");
