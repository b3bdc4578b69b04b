// /custom-mcp-servers: the Tools page's MCP Servers (Flowise 3.1.4's paths and shapes). Thin: the
// rules — masking, sealing, authorizing — are in services/custom-mcp-servers.ts.
import { z } from "@hono/zod-openapi";
import { DeletedResponse, IdParam, PageQuery, listOf } from "../schemas/common";
import {
  CustomMcpServer,
  CustomMcpServerAuthorized,
  CustomMcpServerCreate,
  CustomMcpServerDetail,
  CustomMcpServerUpdate,
  McpToolDescription,
} from "../schemas/custom-mcp-servers";
import * as service from "../services/custom-mcp-servers";
import { createRouter, jsonBody, jsonResponse, protectedRoute } from "./router";
import { can } from "../auth/guard";

const tags = ["tools"];
export const customMcpServersRoutes = createRouter()
  .openapi(
    protectedRoute({
      method: "post",
      path: "/",
      permission: can("tools:create"),
      tags,
      summary: "Register an MCP server",
      description: "Stored PENDING; `POST /custom-mcp-servers/{id}/authorize` connects and lists its tools. Headers are kept encrypted.",
      request: { body: jsonBody(CustomMcpServerCreate) },
      responses: jsonResponse(CustomMcpServer),
    }),
    async (c) => c.json(await service.createMcpServer(c.var.services, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/",
      permission: can("tools:view"),
      tags,
      summary: "List MCP servers",
      request: { query: PageQuery },
      responses: jsonResponse(listOf(CustomMcpServer)),
    }),
    async (c) => c.json(await service.listMcpServers(c.var.services, c.req.valid("query")), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission: can("tools:view"),
      tags,
      summary: "Get an MCP server",
      description: "Its header names with masked values, and the tools it listed when last authorized (JSON text).",
      request: { params: IdParam },
      responses: jsonResponse(CustomMcpServerDetail),
    }),
    async (c) => c.json(await service.getMcpServer(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}/tools",
      permission: can("tools:view"),
      tags,
      summary: "The tools an MCP server listed when last authorized",
      request: { params: IdParam },
      responses: jsonResponse(z.array(McpToolDescription)),
    }),
    async (c) => c.json((await service.mcpServerTools(c.var.services, c.req.valid("param").id)) as never, 200),
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission: can("tools:update", "tools:create"),
      tags,
      summary: "Update an MCP server",
      description:
        "A new address or new headers make it PENDING again (authorize it again); a masked value sent back keeps the stored one.",
      request: { params: IdParam, body: jsonBody(CustomMcpServerUpdate) },
      responses: jsonResponse(CustomMcpServer),
    }),
    async (c) => c.json(await service.updateMcpServer(c.var.services, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/{id}/authorize",
      permission: can("tools:update", "tools:create"),
      tags,
      summary: "Connect to an MCP server and keep its tools",
      description:
        "AUTHORIZED with its tools, or ERROR and the reason (400 refused, 502 failed, 504 no answer within 15 s); " +
        "409 if it was edited meanwhile.",
      request: { params: IdParam },
      responses: jsonResponse(CustomMcpServerAuthorized),
    }),
    async (c) => c.json(await service.authorizeMcpServer(c.var.services, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission: can("tools:delete"),
      tags,
      summary: "Delete an MCP server",
      request: { params: IdParam },
      responses: jsonResponse(DeletedResponse),
    }),
    async (c) => c.json(await service.deleteMcpServer(c.var.services, c.req.valid("param").id), 200),
  );
