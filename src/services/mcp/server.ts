// Flows as MCP tools on the official SDK's server (one per request: the endpoints are stateless).
// A call's answer is the run's text (else its JSON serialised), or the question a paused run asks;
// a failed run is an `isError` result whose message is scrubbed — an API error's own message (it is
// meant for callers), anything else a fixed sentence, the detail going to the log.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../errors";
import { errorText, redact } from "../../lib/redact";
import type { FlowTool } from "./flow-tool";
import type { McpRunInput, McpRunResult } from "./run-flow";

/** Runs one call of a tool; `signal` aborts when the MCP request does. */
export type ToolRunner = (tool: FlowTool, args: McpRunInput, signal: AbortSignal) => Promise<McpRunResult>;

export interface ServerOptions {
  name: string;
  version: string;
  /** Values no answer may carry (the worker's secrets). */
  secrets: string[];
  /** Where an unexpected failure's detail goes (the request's log line). */
  log: (message: string) => void;
}

// Ajv, the SDK's default schema validator, compiles with `new Function`, which Workers refuse.
const validator = new CfWorkerJsonSchemaValidator();

export function resultText(result: McpRunResult): string {
  if (result.paused !== undefined) return result.paused;
  if (result.text) return result.text;
  return result.json !== undefined && result.json !== null ? JSON.stringify(result.json) : "";
}

export async function callResult(
  run: Promise<McpRunResult>,
  options: Pick<ServerOptions, "secrets" | "log">,
  toolName: string,
): Promise<CallToolResult> {
  try {
    return { content: [{ type: "text", text: resultText(await run) }] };
  } catch (err) {
    let message: string;
    if (err instanceof ApiError) {
      message = redact(err.message, options.secrets);
    } else {
      options.log(`MCP tool ${toolName} failed: ${redact(errorText(err), options.secrets)}`);
      message = "An error occurred while running the flow. Please try again later.";
    }
    return { content: [{ type: "text", text: message }], isError: true };
  }
}

function argsOf(tool: FlowTool, args: Record<string, unknown>): McpRunInput {
  if (tool.input === "form") {
    const form = args.form;
    return { form: form && typeof form === "object" && !Array.isArray(form) ? (form as Record<string, unknown>) : {} };
  }
  return { question: typeof args.question === "string" ? args.question : "" };
}

/** An MCP server offering `tools`, each call run by `run`. */
export function flowsServer(tools: FlowTool[], run: ToolRunner, options: ServerOptions): McpServer {
  const server = new McpServer(
    { name: options.name, version: options.version },
    { capabilities: { tools: {} }, jsonSchemaValidator: validator },
  );
  for (const tool of tools) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.shape }, (args, extra) =>
      callResult(run(tool, argsOf(tool, args as Record<string, unknown>), extra.signal), options, tool.name),
    );
  }
  return server;
}
