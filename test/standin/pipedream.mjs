// A loopback Pipedream Connect for the pipedreamMCP preset (Node, vitest globalSetup):
//   POST /v1/oauth/token  client_credentials (JSON): client `pd-client` / `pd-secret` answers
//                         {access_token: "pd-at-<n>", expires_in: 3600}; else 401 {error, error_description}
//   POST /                its remote MCP server (Streamable HTTP, stateless), only with `Bearer pd-at-*` and the
//                         x-pd-* headers Pipedream documents (validatePdHeaders; else 400 {error}):
//                         tools `echo {text}` and `connect {}` (answers a Connect link, as for an
//                         unconnected account); every request's x-pd-* headers recorded
//   GET /calls?contains=X  what was received ({kind: "token"|"mcp", body|tool, args, headers}), oldest first
// startPipedreamStandin() answers {url, close}.
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const pdHeaders = (req) => Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith("x-pd-") || k === "authorization"));

function serverFor(req, calls) {
  const server = new McpServer({ name: "standin-pipedream", version: "1.0.0" }, { capabilities: { tools: {} } });
  const record = (tool, args) => calls.push({ kind: "mcp", tool, args, headers: pdHeaders(req) });
  server.registerTool("echo", { description: "Echoes the text", inputSchema: { text: z.string() } }, async (args) => {
    record("echo", args);
    return { content: [{ type: "text", text: `pd echo: ${args.text}` }] };
  });
  server.registerTool("connect", { description: "Needs a connected account", inputSchema: { note: z.string() } }, async (args) => {
    record("connect", args);
    const link = "https://pipedream.com/_static/connect.html?token=ctok_1&connectLink=true&app=slack";
    return { content: [{ type: "text", text: `Please connect your account: ${link}` }], isError: true };
  });
  return server;
}

// The remote MCP server's headers (pipedream.com/docs/connect/mcp/developers): project id, environment
// (development | production), external user id (at most 250 characters, docs/connect/api) and app slug
// required; tool mode one of sub-agent | tools-only | full-config. The refusal's body shape is not documented.
const ENVIRONMENTS = ["development", "production"];
const TOOL_MODES = ["sub-agent", "tools-only", "full-config"];
function validatePdHeaders(h) {
  for (const name of ["x-pd-project-id", "x-pd-environment", "x-pd-external-user-id", "x-pd-app-slug"])
    if (!h[name]) return `${name} header is required`;
  if (!ENVIRONMENTS.includes(h["x-pd-environment"])) return "x-pd-environment must be development or production";
  if (h["x-pd-external-user-id"].length > 250) return "external user id is limited to 250 characters";
  if (h["x-pd-tool-mode"] !== undefined && !TOOL_MODES.includes(h["x-pd-tool-mode"])) return "x-pd-tool-mode is not a known mode";
  return undefined;
}

const read = (req) =>
  new Promise((resolve) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
  });

export async function startPipedreamStandin() {
  const calls = [];
  let issued = 0;
  const http = createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method === "GET" && url.pathname === "/calls") {
        const contains = url.searchParams.get("contains") ?? "";
        return send(
          200,
          calls.filter((c) => JSON.stringify(c).includes(contains)),
        );
      }
      if (req.method === "POST" && url.pathname === "/v1/oauth/token") {
        const body = JSON.parse((await read(req)) || "{}");
        calls.push({ kind: "token", body });
        if (body.grant_type !== "client_credentials" || body.client_id !== "pd-client" || body.client_secret !== "pd-secret")
          return send(401, { error: "invalid_client", error_description: "Invalid client credentials" });
        return send(200, { access_token: `pd-at-${++issued}`, token_type: "Bearer", expires_in: 3600 });
      }
      if (url.pathname === "/") {
        if (!/^Bearer pd-at-\d+$/.test(req.headers.authorization ?? "")) return send(401, { error: "unauthorized" });
        const refusal = validatePdHeaders(req.headers);
        if (refusal) return send(400, { error: refusal });
        if (req.method !== "POST") {
          res.writeHead(405, { allow: "POST" });
          return res.end();
        }
        const server = serverFor(req, calls);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => {
          transport.close();
          server.close();
        });
        await server.connect(transport);
        return await transport.handleRequest(req, res);
      }
      send(404, { error: "not found" });
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: String(err) }));
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      http.closeAllConnections?.();
      return new Promise((resolve) => http.close(resolve));
    },
  };
}
