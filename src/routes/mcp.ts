// Flows as MCP servers over Streamable HTTP, stateless (a server and transport per request, JSON
// answers), on the official SDK's web-standard transport:
//   POST /mcp/{chatflowId}  Flowise 3.1.4's per-flow server, its token as the bearer;
//   POST /mcp               beyond Flowise: an API key's server, a tool per enabled flow it may run.
// GET and DELETE are 405 (no sessions, no server-initiated stream). A browser Origin that
// MCP_CORS_ORIGINS does not list is refused before anything else (the spec's DNS-rebinding rule).
import { z } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import pkg from "../../package.json";
import { bearerTokenOf, resolvePrincipal } from "../auth/bearer";
import { mayRunOverMcp } from "../auth/mcp-access";
import { mcpOriginAllowed } from "../auth/public-paths";
import { type AppEnv, type Principal, listVar } from "../env";
import { isUuid } from "../lib/ids";
import { workerSecretValues } from "../lib/secrets";
import { MCP_MAX_BODY_BYTES } from "../middleware/body-limit";
import { clientIpOf, enforceRateLimit } from "../rate-limit/check";
import { tokenMatches } from "../services/mcp/config";
import { type FlowTool, flowTool, uniqueFlowTools } from "../services/mcp/flow-tool";
import { runFlowForMcp } from "../services/mcp/run-flow";
import { type ToolRunner, flowsServer } from "../services/mcp/server";
import { type ServedFlow, findServedFlow, listServedFlows } from "../services/mcp/served-flows";
import { createRouter, errorResponsesFor } from "./router";

export const mcpRoutes = createRouter();

/** Flowise's error bodies on these endpoints: JSON-RPC errors with no id. */
const rpcError = (c: Context<AppEnv>, status: 401 | 403 | 404 | 405, code: number, message: string, headers?: Record<string, string>) =>
  c.json({ jsonrpc: "2.0", error: { code, message }, id: null }, status, headers);

const unauthorized = (c: Context<AppEnv>) => rpcError(c, 401, -32001, "Unauthorized");

/** 403 for a browser origin MCP_CORS_ORIGINS does not list; undefined when the request may go on. */
function originRefusal(c: Context<AppEnv>): Response | undefined {
  const origin = c.req.header("origin");
  if (origin === undefined || mcpOriginAllowed(origin, listVar(c.env.MCP_CORS_ORIGINS))) return undefined;
  return rpcError(c, 403, -32000, `Forbidden: origin ${origin.slice(0, 200)} may not call this MCP server (MCP_CORS_ORIGINS)`);
}

/** Answers the request with an MCP server offering `tools` (each call rate-limited per flow, then run). */
async function serve(c: Context<AppEnv>, name: string, tools: FlowTool[], served: Map<string, ServedFlow>): Promise<Response> {
  const secrets = workerSecretValues(c.env);
  const run: ToolRunner = async (tool, args, signal) => {
    const { flow } = served.get(tool.flowId)!;
    await enforceRateLimit(c.env, flow.id, flow.apiConfig, clientIpOf(c.req.raw.headers, c.env));
    return runFlowForMcp(c.var.services, flow.id, args, AbortSignal.any([signal, c.req.raw.signal]));
  };
  const server = flowsServer(tools, run, {
    name,
    version: pkg.version,
    secrets,
    log: (m) => console.error(`[${c.get("requestId")}] ${m}`),
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw);
  } finally {
    await server.close();
  }
}

const notAllowed = (c: Context<AppEnv>) =>
  rpcError(c, 405, -32000, c.req.method === "DELETE" ? "Session termination is not supported in stateless mode." : "Method not allowed.", {
    Allow: "POST",
  });

mcpRoutes.post("/:chatflowId", async (c) => {
  const refused = originRefusal(c);
  if (refused) return refused;
  const token = bearerTokenOf(c);
  if (!token) return unauthorized(c);
  const id = c.req.param("chatflowId").toLowerCase();
  const served = isUuid(id) ? await findServedFlow(c.var.services, id) : undefined;
  if (!served?.config.enabled) return rpcError(c, 404, -32001, "MCP server not found");
  if (!(await tokenMatches(served.config, token))) return unauthorized(c);
  const tool = flowTool(served.flow, served.config);
  return serve(c, `edgeflow-${tool.name}`, [tool], new Map([[served.flow.id, served]]));
});

mcpRoutes.post("/", async (c) => {
  const refused = originRefusal(c);
  if (refused) return refused;
  let principal: Principal | null;
  try {
    principal = await resolvePrincipal(c);
  } catch {
    principal = null; // a token that is no key: the same answer as none
  }
  if (!principal) return unauthorized(c);
  const visible = (await listServedFlows(c.var.services)).filter((s) => mayRunOverMcp(principal, s.flow));
  const tools = uniqueFlowTools(visible.map(({ flow, config }) => ({ flow, config })));
  return serve(c, "edgeflow", tools, new Map(visible.map((s) => [s.flow.id, s])));
});

for (const path of ["/", "/:chatflowId"]) {
  mcpRoutes.get(path, notAllowed);
  mcpRoutes.delete(path, notAllowed);
}

// The API reference: the endpoints speak JSON-RPC (MCP), so the body is described, not validated here.
const JsonRpc = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number()]).optional(),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("McpJsonRpcMessage", {
    description: "An MCP JSON-RPC message (initialize, tools/list, tools/call, ping, notifications), or a batch of them",
  });
const JsonRpcError = z.object({ jsonrpc: z.literal("2.0"), error: z.object({ code: z.number(), message: z.string() }), id: z.null() });
const mcpResponses = (auth: string) => ({
  200: {
    description: "The JSON-RPC answer (application/json)",
    content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
  },
  202: { description: "Accepted (a notification)" },
  401: { description: auth, content: { "application/json": { schema: JsonRpcError } } },
  403: { description: "A browser Origin that MCP_CORS_ORIGINS does not list", content: { "application/json": { schema: JsonRpcError } } },
  ...errorResponsesFor([413]),
});
mcpRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/{chatflowId}",
  tags: ["mcp"],
  security: [{ bearerAuth: [] }],
  summary: "A chatflow as an MCP server (Streamable HTTP, stateless): one tool; the bearer is the token of POST /mcp-server/{id}",
  description:
    "Needs: the flow's MCP token (from POST /mcp-server/{id} or its refresh) as the bearer; API keys are not " +
    "accepted here. GET and DELETE: 405.",
  request: { params: z.object({ chatflowId: z.string() }), body: { required: true, content: { "application/json": { schema: JsonRpc } } } },
  responses: {
    ...mcpResponses("Missing or wrong token"),
    404: { description: "No such flow, or its MCP server is disabled", content: { "application/json": { schema: JsonRpcError } } },
  },
});
mcpRoutes.openAPIRegistry.registerPath({
  method: "post",
  path: "/",
  tags: ["mcp"],
  security: [{ bearerAuth: [] }],
  summary:
    "An API key's MCP server (Streamable HTTP, stateless): a tool for every flow whose MCP server is enabled and that the key may run",
  description:
    "Needs: any valid API key (no permission): the tools are the flows it may run — those bound to no key or to " +
    "it, within its chatflow limit. GET and DELETE: 405.",
  request: { body: { required: true, content: { "application/json": { schema: JsonRpc } } } },
  responses: mcpResponses("Missing or invalid API key"),
});
