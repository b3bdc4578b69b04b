import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ChatflowIdParam, DeletedResponse } from "../schemas/common";
import { UpsertHistory, UpsertHistoryDelete, UpsertHistoryQuery } from "../schemas/upsert-history";
import * as service from "../services/upsert-history";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { onPathRecord, onRecords, peekBody } from "../auth/record-guards";
import { upsertHistoryOwners } from "../services/owners";

const tags = ["upsert-history"];

/** PATCH / names records, not their owner: each owner (chatflow or store) needs its kind's update permission. */
async function historyIdsOf(c: Context<AppEnv>): Promise<string[]> {
  const ids = (await peekBody(c)).ids;
  if (!Array.isArray(ids)) return []; // validation answers 400
  return upsertHistoryOwners(
    c.var.services,
    ids
      .filter((id): id is string => typeof id === "string")
      .slice(0, 1000)
      .map((id) => id.toLowerCase()),
  );
}
export const upsertHistoryRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{chatflowid}",
      permission: onPathRecord("chatflowid", "view"),
      tags,
      summary: "Vector upserts of a chatflow (or document store)",
      request: { params: ChatflowIdParam, query: UpsertHistoryQuery },
      responses: jsonResponse(z.array(UpsertHistory)),
    }),
    async (c) => {
      const { chatflowid } = c.req.valid("param");
      await service.assertHistoryOwner(c.var.services, chatflowid);
      return c.json(await service.listUpsertHistory(c.var.services, chatflowid, c.req.valid("query")), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "patch",
      path: "/",
      permission: onRecords(historyIdsOf, "update"),
      tags,
      summary: "Delete upsert history records by id",
      request: { body: jsonBody(UpsertHistoryDelete) },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json({ deleted: await service.deleteUpsertHistory(c.var.services, c.req.valid("json").ids) }, 200),
  )
  .openapi(
    // The service document lists the PATCH under /upsert-history/{id}: the records of that chatflow.
    protectedRoute({
      method: "patch",
      path: "/{chatflowid}",
      permission: onPathRecord("chatflowid", "update"),
      tags,
      summary: "Delete upsert history records of a chatflow by id",
      request: { params: ChatflowIdParam, body: jsonBody(UpsertHistoryDelete) },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => {
      const { chatflowid } = c.req.valid("param");
      await service.assertHistoryOwner(c.var.services, chatflowid);
      return c.json({ deleted: await service.deleteUpsertHistory(c.var.services, c.req.valid("json").ids, chatflowid) }, 200);
    },
  );
