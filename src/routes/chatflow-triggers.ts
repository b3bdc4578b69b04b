// An agentflow's triggers beyond the API, as Flowise 3.1.4 has them under /chatflows/{id}: the
// webhook's shared secret (made and shown once, or cleared) and the schedule (status, the switch,
// trigger logs). Bodies are checked by the services with Flowise's messages; the router documents them.
import type { Context } from "hono";
import { onPathRecord } from "../auth/record-guards";
import type { AppEnv } from "../env";
import { DeletedResponse, IdParam } from "../schemas/common";
import {
  ScheduleEnabledBody,
  ScheduleRecord,
  ScheduleStatus,
  TriggerLogDeleteBody,
  TriggerLogDeleted,
  TriggerLogPage,
  TriggerLogQuery,
  WebhookSecretResponse,
} from "../schemas/triggers";
import { getScheduleStatus, setScheduleEnabled } from "../services/schedules/records";
import { deleteTriggerLogs, listTriggerLogs } from "../services/schedules/trigger-logs";
import { clearWebhookSecret, createWebhookSecret } from "../services/webhooks/secret";
import { documentedBody, jsonBodyOrEmpty } from "./request-body";
import { createRouter, jsonResponse, protectedRoute } from "./router";

export const chatflowTriggerRoutes = createRouter();
chatflowTriggerRoutes.openAPIRegistry.register("ScheduleEnabled", ScheduleEnabledBody);
chatflowTriggerRoutes.openAPIRegistry.register("ScheduleTriggerLogDelete", TriggerLogDeleteBody);

const tags = ["chatflows"];
const id = (c: Context<AppEnv>) => c.req.param("id")!.toLowerCase();

chatflowTriggerRoutes
  .openapi(
    protectedRoute({
      method: "post",
      path: "/{id}/webhook-secret",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Make the webhook's shared secret (shown only in this answer; the previous one stops working)",
      request: { params: IdParam },
      responses: jsonResponse(WebhookSecretResponse),
    }),
    async (c) => c.json(await createWebhookSecret(c.var.db, c.env.CREDENTIAL_ENCRYPTION_KEY, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}/webhook-secret",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Clear the webhook's secret ({deleted: 0} when none was set)",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await clearWebhookSecret(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}/schedule/status",
      permission: onPathRecord("id", "view", "update"),
      tags,
      summary: "The schedule of a scheduled agentflow: its row, and whether it can be enabled (the reason when not)",
      request: { params: IdParam },
      responses: jsonResponse(ScheduleStatus),
    }),
    async (c) => c.json(await getScheduleStatus(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "patch",
      path: "/{id}/schedule/enabled",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Switch the schedule on or off ({enabled}); on runs from the next slot after now",
      request: { params: IdParam, body: documentedBody("ScheduleEnabled", true) },
      responses: jsonResponse(ScheduleRecord),
    }),
    async (c) => c.json(await setScheduleEnabled(c.var.db, id(c), await jsonBodyOrEmpty(c)), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}/schedule/trigger-logs",
      permission: onPathRecord("id", "view", "update"),
      tags,
      summary: "The schedule's trigger logs, newest slot first ({data, total, page, limit})",
      request: { params: IdParam, query: TriggerLogQuery },
      responses: jsonResponse(TriggerLogPage),
    }),
    async (c) =>
      c.json(
        await listTriggerLogs(c.var.db, c.req.valid("param").id, {
          page: c.req.query("page"),
          limit: c.req.query("limit"),
          status: c.req.queries("status"),
        }),
        200,
      ),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}/schedule/trigger-logs",
      permission: onPathRecord("id", "update"),
      tags,
      summary: "Delete trigger logs by id ({logIds}), with the executions they name",
      request: { params: IdParam, body: documentedBody("ScheduleTriggerLogDelete", true) },
      responses: jsonResponse(TriggerLogDeleted),
    }),
    async (c) => c.json(await deleteTriggerLogs(c.var.services, id(c), await jsonBodyOrEmpty(c)), 200),
  );
