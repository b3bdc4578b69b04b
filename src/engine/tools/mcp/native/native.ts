// What the native MCP servers share: a server is its Flowise node name, the tools its package lists
// (the same names, descriptions and input schemas) and a handler per call answering the server's
// result ({content: [{type: "text", text}], isError}). The chosen tools (the node's `mcpActions`) are
// offered as LangChain tools; a result with isError reaches the model as the tool's error text,
// as remote MCP tools do here (custom-mcp.ts).
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { toolName } from "../../names";
import { ToolCallError } from "../../service";
import type { ToolDeps } from "../../types";
import { MAX_DESCRIPTION, mcpActionsOf } from "../custom-mcp";
import { mcpResultText } from "../result";

export interface NativeMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A tools/call result as MCP servers answer it. */
export interface NativeResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

export type NativeCall = (tool: string, args: Record<string, unknown>) => Promise<NativeResult>;

export interface NativeMcpServer {
  /** The Flowise node name (githubMCP, …). */
  node: string;
  tools: NativeMcpTool[];
  /** Reads the node's credential and inputs once per build (bad config → fail(...)); answers the call handler. */
  open(inputs: Record<string, unknown>, deps: ToolDeps): Promise<NativeCall>;
}

/** One text content item, as the servers answer (`JSON.stringify(result, null, 2)` for objects). */
export const textResult = (value: unknown, isError = false): NativeResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/** The node's chosen tools, built as LangChain tools over the server's call handler. */
export async function nativeMcpTools(
  server: NativeMcpServer,
  inputs: Record<string, unknown>,
  deps: ToolDeps,
): Promise<StructuredToolInterface[]> {
  const wanted = new Set(mcpActionsOf(inputs.mcpActions));
  const chosen = server.tools.filter((t) => wanted.has(t.name));
  const call = await server.open(inputs, deps);
  return chosen.map(
    (t) =>
      new DynamicStructuredTool({
        name: toolName(t.name),
        description: t.description.slice(0, MAX_DESCRIPTION),
        schema: { properties: {}, ...t.inputSchema, type: "object" },
        func: async (args: Record<string, unknown>) => {
          const result = await call(t.name, args ?? {});
          const text = mcpResultText(result);
          if (result.isError) throw new ToolCallError(text || `${t.name} failed`);
          return text;
        },
      }),
  );
}

/** The canvas's Available Actions, as Flowise lists a preset's tools: sorted, labels upper-case. */
export const nativeMcpActions = (server: NativeMcpServer) =>
  server.tools
    .map((t) => ({ label: t.name.toUpperCase(), name: t.name, description: (t.description || t.name).slice(0, MAX_DESCRIPTION) }))
    .sort((a, b) => a.name.localeCompare(b.name));
