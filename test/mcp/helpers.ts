// The SDK's real MCP client against the worker: its Streamable HTTP transport with a fetch that
// hands each request to the worker's fetch handler (as test/helpers.ts `call` does).
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { BASE, json } from "../helpers";

export const workerFetch = (url: string | URL | Request, init?: RequestInit): Promise<Response> =>
  (exports as unknown as { default: Fetcher }).default.fetch(new Request(url, init));

/** Every request the client sent and the status it got (method, path, status). */
export interface Traffic {
  method: string;
  status: number;
}

/** A connected client (initialize done) for `path` under /api/v1, with `token` as its bearer. */
export async function mcpClient(path: string, token: string | null, traffic?: Traffic[]): Promise<Client> {
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const res = await workerFetch(url, init);
    traffic?.push({ method: init?.method ?? "GET", status: res.status });
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}${path}`), {
    fetch,
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  // Ajv (the SDK's default validator) compiles with new Function, which workerd refuses.
  const client = new Client({ name: "edgeflow-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST, as a client would send it. */
export const rpc = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  workerFetch(`${BASE}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify(body),
  });

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/** Enables a flow's MCP server; answers its config with the full token. */
export const enableMcp = (flowId: string, body: Record<string, unknown> = { toolName: "ask_flow", description: "Asks the flow" }) =>
  json<{ enabled: boolean; token: string; toolName: string; description: string }>("POST", `/mcp-server/${flowId}`, { body }, 201);

/** The text of a tools/call result. */
export const textOf = (result: unknown): string =>
  ((result as { content: Array<{ type: string; text?: string }> }).content ?? []).map((c) => c.text ?? "").join("");
