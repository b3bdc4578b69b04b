// /mcp-server/{id}: a chatflow's MCP server configuration, as Flowise 3.1.4 (dist/routes/mcp-server).
// Bodies are checked by the service in Flowise's order (a POST on an enabled config answers it
// before looking at the body), so the router only documents them.
import { z } from "@hono/zod-openapi";
import { onFlowConfig } from "../auth/mcp-access";
import { IdParam } from "../schemas/common";
import { McpServerConfig, McpServerCreate, McpServerUpdate } from "../schemas/mcp-server";
import * as service from "../services/mcp/config";
import { documentedBody, jsonBodyOrEmpty } from "./request-body";
import { createRouter, jsonResponse, protectedRoute } from "./router";

const tags = ["mcp-server"];
const permission = onFlowConfig("id");

export const mcpServerRoutes = createRouter();
mcpServerRoutes.openAPIRegistry.register("McpServerCreate", McpServerCreate);
mcpServerRoutes.openAPIRegistry.register("McpServerUpdate", McpServerUpdate);

mcpServerRoutes
  .openapi(
    protectedRoute({
      method: "get",
      path: "/{id}",
      permission,
      tags,
      summary: "A chatflow's MCP server config (token masked)",
      request: { params: IdParam },
      responses: jsonResponse(McpServerConfig),
    }),
    async (c) => c.json(await service.getMcpServerConfig(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/{id}",
      permission,
      tags,
      summary: "Enable a chatflow's MCP server: {toolName, description}; the token is shown in full only here and by refresh",
      request: { params: IdParam, body: documentedBody("McpServerCreate", false) },
      responses: {
        201: {
          description: "Enabled (or already enabled: the config as it is)",
          content: { "application/json": { schema: McpServerConfig } },
        },
      },
    }),
    async (c) => {
      const { config } = await service.createMcpServerConfig(c.var.db, c.req.valid("param").id, await jsonBodyOrEmpty(c));
      return c.json(config, 201);
    },
  )
  .openapi(
    protectedRoute({
      method: "put",
      path: "/{id}",
      permission,
      tags,
      summary: "Change toolName, description or enabled",
      request: { params: IdParam, body: documentedBody("McpServerUpdate", false) },
      responses: jsonResponse(McpServerConfig),
    }),
    async (c) => c.json(await service.updateMcpServerConfig(c.var.db, c.req.valid("param").id, await jsonBodyOrEmpty(c)), 200),
  )
  .openapi(
    protectedRoute({
      method: "delete",
      path: "/{id}",
      permission,
      tags,
      summary: "Disable a chatflow's MCP server",
      request: { params: IdParam },
      responses: jsonResponse(z.object({ message: z.string() })),
    }),
    async (c) => c.json(await service.disableMcpServerConfig(c.var.db, c.req.valid("param").id), 200),
  )
  .openapi(
    protectedRoute({
      method: "post",
      path: "/{id}/refresh",
      permission,
      tags,
      summary: "Issue a new token (shown in full); the old one stops working at once",
      request: { params: IdParam },
      responses: jsonResponse(McpServerConfig),
    }),
    async (c) => c.json(await service.refreshMcpToken(c.var.db, c.req.valid("param").id), 200),
  );
