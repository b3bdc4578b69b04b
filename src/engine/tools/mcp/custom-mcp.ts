// customMCP (Flowise's "Custom MCP" tool node): a remote MCP server as tools. `mcpServerConfig` is
// `{url, headers}` (JSON, or Flowise's looser object text; `{{$vars.x}}` in its values), `mcpActions`
// the tool names chosen from the server's list. The server's tools are listed when the node is built
// and the chosen ones offered to the agent with the server's own input schemas; each call is a new
// session (as Flowise does it), through the outbound policy, with a time limit. A stdio server
// (`command`) cannot run here: Workers cannot start processes.
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { parse as parseYaml } from "yaml";
import { ApiError, fail } from "../../../errors";
import type { McpToolListing, RunContext } from "../../core/ports";
import { toolName } from "../names";
import { ToolCallError } from "../service";
import type { ToolDeps } from "../types";
import { type McpServerAddress, McpSessionError, type SessionOptions, withMcpSession } from "./client";
import { mcpResultText } from "./result";
import type { OutboundEnv } from "../../../lib/outbound";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The text after which an stdio config is refused (also what the npx-based MCP nodes answer). */
export const NO_PROCESSES = "Workers cannot start processes, so stdio MCP servers (command/args, npx, docker) cannot run on edgeflow";

/** Flowise's config text: JSON, else its looser JavaScript-object form (unquoted keys, single quotes, trailing commas). */
function parseConfig(raw: unknown, label: string): Record<string, unknown> {
  if (isObject(raw)) return raw;
  if (typeof raw !== "string" || !raw.trim())
    throw fail("INVALID_FLOW", `${label} needs an MCP Server Config: {"url": "https://…/mcp", "headers": {…}}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    try {
      parsed = parseYaml(raw); // a YAML flow mapping reads the JavaScript-object form
    } catch {
      parsed = undefined;
    }
  }
  if (!isObject(parsed)) throw fail("INVALID_FLOW", `${label}: its MCP Server Config is not a JSON object`);
  return parsed;
}

/** `{{$vars.name}}` in every string of the config, with the run's variables (Flowise's substitution). */
export function withVars(value: unknown, vars: Record<string, string> | undefined): unknown {
  if (typeof value === "string")
    return value.replace(/\{\{\s*\$vars\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) => vars?.[name] ?? whole);
  if (Array.isArray(value)) return value.map((v) => withVars(v, vars));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withVars(v, vars)]));
  return value;
}

export function mcpAddress(raw: unknown, ctx: Pick<RunContext, "vars">, label: string): McpServerAddress {
  const config = withVars(parseConfig(raw, label), ctx.vars) as Record<string, unknown>;
  if (config.command !== undefined) {
    throw fail(
      "INVALID_FLOW",
      `${label}: ${NO_PROCESSES}. Give the URL of an MCP server reachable over HTTP instead: {"url": "https://…/mcp", "headers": {…}}`,
    );
  }
  if (typeof config.url !== "string" || !config.url.trim())
    throw fail("INVALID_FLOW", `${label}: its MCP Server Config needs a url (a Streamable HTTP or SSE MCP endpoint)`);
  let url: URL;
  try {
    url = new URL(config.url.trim());
  } catch {
    throw fail("INVALID_FLOW", `${label}: the MCP server url ${config.url.slice(0, 200)} is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw fail("INVALID_FLOW", `${label}: the MCP server url must be http(s), not ${url.protocol}`);
  if (config.headers !== undefined && !isObject(config.headers))
    throw fail("INVALID_FLOW", `${label}: headers in its MCP Server Config must be an object`);
  const headers = Object.fromEntries(Object.entries((config.headers as Record<string, unknown>) ?? {}).map(([k, v]) => [k, String(v)]));
  return { url: url.toString(), headers };
}

/** `mcpActions`: a JSON array text or an array of tool names. */
export function mcpActionsOf(raw: unknown): string[] {
  let list: unknown = raw;
  if (typeof raw === "string") {
    try {
      list = raw.trim() ? JSON.parse(raw) : [];
    } catch {
      list = raw.split(",").map((s) => s.trim());
    }
  }
  return Array.isArray(list) ? list.filter((a): a is string => typeof a === "string" && a.length > 0) : [];
}

/** Before the first call, a failure refuses the run with its code (a refused URL, a failure, a timeout). */
export const asRunError = (err: unknown, label: string): unknown =>
  err instanceof McpSessionError ? new ApiError(err.code, `${label}: ${err.message}`) : err;

export const MAX_DESCRIPTION = 1024;

/** What a server lists (tools/list), in one session. Throws McpSessionError (or RunAborted). */
export async function listMcpServerTools(server: McpServerAddress, options: SessionOptions): Promise<McpToolListing[]> {
  const listed = await withMcpSession(server, options, (client, request) => client.listTools(undefined, request));
  return listed.tools as McpToolListing[];
}

/** How a preset's tools differ: its endpoint rule, and a result text of its own (undefined: the usual). */
export interface McpToolOptions {
  endpoint?: SessionOptions["endpoint"];
  format?: (text: string) => string | undefined;
}

/** The listed tools as LangChain tools, each call a session of its own on `server` (its own name sent). */
export function mcpTools(
  server: McpServerAddress,
  listed: McpToolListing[],
  { ctx }: Pick<ToolDeps, "ctx">,
  { endpoint, format }: McpToolOptions = {},
): StructuredToolInterface[] {
  const session = { policy: ctx.runtime.outbound, signal: ctx.signal, endpoint };
  return listed.map(
    (t) =>
      new DynamicStructuredTool({
        name: toolName(t.name), // the chat APIs' rule; the server is called with its own name
        description: (t.description || t.name).slice(0, MAX_DESCRIPTION),
        schema: { properties: {}, ...t.inputSchema, type: "object" },
        func: async (args: Record<string, unknown>) => {
          const result = await withMcpSession(server, session, (client, request) =>
            client.callTool({ name: t.name, arguments: args }, undefined, request),
          ).catch((err: unknown) => {
            throw err instanceof McpSessionError ? new ToolCallError(err.message) : err;
          });
          const text = mcpResultText(result);
          const shown = format?.(text);
          if (shown !== undefined) return shown;
          if (result.isError) throw new ToolCallError(text || `${t.name} failed`);
          return text;
        },
      }),
  );
}

export async function customMcpTools(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<StructuredToolInterface[]> {
  const server = mcpAddress(inputs.mcpServerConfig, ctx, label);
  const wanted = new Set(mcpActionsOf(inputs.mcpActions));
  const listed = await listMcpServerTools(server, { policy: ctx.runtime.outbound, signal: ctx.signal }).catch((err: unknown) => {
    throw asRunError(err, label);
  });
  return mcpTools(
    server,
    listed.filter((t) => wanted.has(t.name)),
    { ctx },
  );
}

/**
 * The canvas's Available Actions (load method listActions): the server's tools as options, listed
 * under the outbound policy with the stored variables in its config.
 */
export async function listMcpActions(
  inputs: Record<string, unknown>,
  deps: { policy: OutboundEnv; vars: Record<string, string>; label: string; signal?: AbortSignal },
): Promise<{ label: string; name: string; description?: string }[]> {
  const server = mcpAddress(inputs.mcpServerConfig, { vars: deps.vars }, deps.label);
  const listed = await listMcpServerTools(server, { policy: deps.policy, signal: deps.signal }).catch((err: unknown) => {
    throw asRunError(err, deps.label);
  });
  return listed.map((t) => ({
    label: t.name,
    name: t.name,
    ...(t.description ? { description: t.description.slice(0, MAX_DESCRIPTION) } : {}),
  }));
}
