// Flowise's packaged MCP server nodes that start a local process (npx/node with the server's
// package): Workers cannot, so each answers a 400 that says so and points at customMCP with an HTTP
// MCP server (the vendor's hosted one where there is one) — instead of "tool not available".
import { fail } from "../../../errors";
import type { ToolDefinition } from "../types";
import { NO_PROCESSES } from "./custom-mcp";

const HOSTED: Record<string, string> = {
  slackMCP: 'Slack\'s hosted server: {"url": "https://mcp.slack.com/mcp", "headers": {"Authorization": "Bearer <OAuth token>"}}',
  githubMCP: 'GitHub\'s hosted server: {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer <token>"}}',
};

const PROCESS_NODES = ["braveSearchMCP", "githubMCP", "postgreSQLMCP", "sequentialThinkingMCP", "slackMCP"];

export const processMcpNodes: ToolDefinition[] = PROCESS_NODES.map((name) => ({
  name,
  build: async (_inputs, { label }) => {
    const hint = HOSTED[name] ? ` (e.g. ${HOSTED[name]})` : "";
    throw fail(
      "UNKNOWN_NODE",
      `${label}: tool ${name} runs its MCP server as a local process in Flowise, and ${NO_PROCESSES}. Add a ` +
        `customMCP tool with the URL of an HTTP MCP server instead${hint}`,
    );
  },
}));
