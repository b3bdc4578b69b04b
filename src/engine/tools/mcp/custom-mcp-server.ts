// customMcpServerTool (Flowise's "Custom MCP Server" node): tools of a server registered on the
// Tools page (/custom-mcp-servers), chosen by `mcpActions`. The tools offered are the ones its last
// authorize listed, with the schemas stored then, so a run makes no tools/list call of its own; each
// tool call is one session, as customMCP's, under the outbound policy. A server that is unknown or
// not authorized refuses the run with a reason.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { str } from "../../core/inputs";
import { toolName } from "../names";
import type { ToolDeps } from "../types";
import { mcpActionsOf, mcpTools } from "./custom-mcp";

export async function customMcpServerTools(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<StructuredToolInterface[]> {
  const id = str(inputs.mcpServerId);
  if (!id) throw fail("INVALID_FLOW", `${label}: choose a Custom MCP Server (one authorized on the Tools page)`);
  const server = await ctx.runtime.mcpServers.get(id);
  if (!server) throw fail("INVALID_FLOW", `${label}: MCP server ${id} not found`);
  if (server.status !== "AUTHORIZED")
    throw fail("INVALID_FLOW", `${label}: MCP server "${server.name}" is not authorized. Authorize it on the Tools page first`);
  // The canvas names actions as listActions did (the chat APIs' form of each name); older flows may hold the server's own.
  const wanted = new Set(mcpActionsOf(inputs.mcpActions));
  const chosen = server.tools.filter((t) => wanted.has(toolName(t.name)) || wanted.has(t.name));
  return mcpTools({ url: server.url, headers: server.headers }, chosen, { ctx });
}
