import { z } from "@hono/zod-openapi";
import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { ApiKeyParam, Chatflow, ChatflowCreate, ChatflowListQuery, ChatflowSaved, ChatflowUpdate } from "../schemas/chatflows";
import * as service from "../services/chatflows";
import { visibleFlows } from "../services/callers/access";
import { accessFrom } from "../auth/guard";
import { onFlowBody, onFlowList, onPathRecord } from "../auth/record-guards";
import { VALIDATION_422, createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";

const tags = ["chatflows"];
export const chatflowRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: onFlowBody("create", "create", "update"),
      tags,
      summary: "Create a chatflow",
      middleware: [VALIDATION_422],
      request: { body: jsonBody(ChatflowCreate) },
      responses: jsonResponse(ChatflowSaved),
    }),
    async (c) => c.json(await service.createChatflow(c.var.db, c.req.valid("json"), c.env), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: onFlowList("view", "update"),
      tags,
      summary: "List chatflows (newest first)",
      request: { query: PageQuery.extend(ChatflowListQuery.shape) },
      responses: jsonResponse(listOf(Chatflow)),
    }),
    async (c) => {
      const { type, ...page } = c.req.valid("query");
      return c.json(await service.listChatflows(c.var.db, page, type, visibleFlows(await accessFrom(c), ["view", "update"])), 200);
    },
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/apikey/{apikey}",
      permission: onFlowList("view", "update"),
      tags,
      summary: "Chatflows bound to an API key",
      request: { params: ApiKeyParam },
      responses: jsonResponse(z.array(Chatflow)),
    }),
    async (c) =>
      c.json(
        await service.listChatflowsByApiKey(c.var.db, c.req.valid("param").apikey, visibleFlows(await accessFrom(c), ["view", "update"])),
        200,
      ),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: onPathRecord("id", "view", "update", "delete"),
      tags,
      summary: "Get a chatflow",
      request: { params: IdParam },
      responses: jsonResponse(Chatflow),
    }),
    async (c) => c.json(await service.getChatflow(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: [onPathRecord("id", "create", "update"), onFlowBody("update", "create", "update")],
      tags,
      summary: "Update a chatflow (partial)",
      request: { params: IdParam, body: jsonBody(ChatflowUpdate) },
      responses: jsonResponse(ChatflowSaved),
    }),
    async (c) => c.json(await service.updateChatflow(c.var.db, c.req.valid("param").id, c.req.valid("json"), c.env), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: onPathRecord("id", "delete"),
      tags,
      summary: "Delete a chatflow with its messages, feedback, leads and files",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteChatflow(c.var.services, c.req.valid("param").id), 200),
  );
