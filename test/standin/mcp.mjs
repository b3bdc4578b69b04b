// A loopback MCP server for the customMCP tests, built with the official SDK (Node, vitest
// globalSetup):
//   POST /mcp             Streamable HTTP, stateless: tools `echo {text}`, `add {a, b}`, `fail {}`
//                         (an isError result), `big {}` (3 MB of text)
//   POST /secure/mcp      the same, only with `Authorization: Bearer mcp-secret` (401 otherwise)
//   POST /slow/mcp        the same, each request answered 600 ms late
//   GET /sse, POST /messages  the older HTTP+SSE transport (protocol 2024-11-05), same tools
//   POST /hang            accepts and never answers
//   GET /calls?contains=X the tool calls received ({path, tool, args, authorization}), oldest first
// startMcpStandin() answers {url, close}.
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function serverFor(path, req, calls) {
  const server = new McpServer({ name: "standin-mcp", version: "1.0.0" }, { capabilities: { tools: {} } });
  const record = (tool, args) => calls.push({ path, tool, args, authorization: req.headers.authorization ?? null });
  server.registerTool(
    "echo",
    { description: "Echoes the text back", inputSchema: { text: z.string().describe("what to echo") } },
    async (args) => {
      record("echo", args);
      return { content: [{ type: "text", text: `mcp echo: ${args.text}` }] };
    },
  );
  server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async (args) => {
    record("add", args);
    return { content: [{ type: "text", text: String(args.a + args.b) }] };
  });
  server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async (args) => {
    record("fail", args);
    return { content: [{ type: "text", text: "the fail tool failed on purpose" }], isError: true };
  });
  server.registerTool("big", { description: "Answers 3 MB", inputSchema: {} }, async (args) => {
    record("big", args);
    return { content: [{ type: "text", text: "x".repeat(3 * 1024 * 1024) }] };
  });
  return server;
}

export async function startMcpStandin() {
  const calls = [];
  const sse = new Map();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    try {
      if (req.method === "GET" && url.pathname === "/calls") {
        const contains = url.searchParams.get("contains") ?? "";
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify(calls.filter((c) => JSON.stringify(c).includes(contains))));
      }
      if (url.pathname === "/hang") return; // never answers
      if (url.pathname === "/slow/mcp") await new Promise((r) => setTimeout(r, 600)); // each request answered late
      if (url.pathname === "/mcp" || url.pathname === "/secure/mcp" || url.pathname === "/slow/mcp") {
        if (url.pathname === "/secure/mcp" && req.headers.authorization !== "Bearer mcp-secret") {
          res.writeHead(401, { "content-type": "application/json" });
          return res.end(JSON.stringify({ error: "unauthorized" }));
        }
        if (req.method !== "POST") {
          res.writeHead(405, { allow: "POST" });
          return res.end();
        }
        const server = serverFor(url.pathname, req, calls);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => {
          transport.close();
          server.close();
        });
        await server.connect(transport);
        return await transport.handleRequest(req, res);
      }
      if (req.method === "GET" && url.pathname === "/sse") {
        const transport = new SSEServerTransport("/messages", res);
        sse.set(transport.sessionId, transport);
        res.on("close", () => sse.delete(transport.sessionId));
        await serverFor("/sse", req, calls).connect(transport);
        return;
      }
      if (req.method === "POST" && url.pathname === "/messages") {
        const transport = sse.get(url.searchParams.get("sessionId"));
        if (!transport) {
          res.writeHead(404);
          return res.end("no session");
        }
        return await transport.handlePostMessage(req, res);
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "not found" }));
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
