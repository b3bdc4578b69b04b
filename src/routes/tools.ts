import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import { Tool, ToolCreate, ToolUpdate } from "../schemas/tools";
import * as service from "../services/tools";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["tools"];
export const toolsRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("tools:create"),
      tags,
      summary: "Create a tool",
      request: { body: jsonBody(ToolCreate) },
      responses: jsonResponse(Tool),
    }),
    async (c) => c.json(await service.createTool(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("tools:view"),
      tags,
      summary: "List tools",
      request: { query: PageQuery },
      responses: jsonResponse(listOf(Tool)),
    }),
    async (c) => c.json(await service.listTools(c.var.services, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: can("tools:view"),
      tags,
      summary: "Get a tool",
      request: { params: IdParam },
      responses: jsonResponse(Tool),
    }),
    async (c) => c.json(await service.getTool(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: can("tools:update", "tools:create"),
      tags,
      summary: "Update a tool",
      request: { params: IdParam, body: jsonBody(ToolUpdate) },
      responses: jsonResponse(Tool),
    }),
    async (c) => c.json(await service.updateTool(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: can("tools:delete"),
      tags,
      summary: "Delete a tool",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteTool(c.var.services, c.req.valid("param").id), 200),
  );
