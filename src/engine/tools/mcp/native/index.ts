// Flowise's MCP nodes whose server is a local process (npx @modelcontextprotocol/server-…), run
// natively in the Worker: the same tools as the server package, one entry per node here.
import type { ToolDefinition } from "../../types";
import { type NativeMcpServer, nativeMcpActions, nativeMcpTools } from "./native";
import { sequentialThinkingServer } from "./sequential-thinking";
import { postgresServer } from "./postgres";
import { braveSearchServer } from "./brave-search";

// biome-ignore format: one server a line
const SERVERS: NativeMcpServer[] = [
  sequentialThinkingServer,
  postgresServer,
  braveSearchServer,
];

export const NATIVE_MCP_NAMES = SERVERS.map((s) => s.node);

export const nativeMcpToolDefinitions: ToolDefinition[] = SERVERS.map((server) => ({
  name: server.node,
  build: (inputs, deps) => nativeMcpTools(server, inputs, deps),
}));

/** `<node>/listActions`: the native server's tools, no call. */
export function listNativeActions(node: string) {
  const server = SERVERS.find((s) => s.node === node);
  return server ? nativeMcpActions(server) : [];
}
