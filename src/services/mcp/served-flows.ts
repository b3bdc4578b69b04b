// The flows served over MCP: one by id (POST /mcp/{chatflowId}) or every enabled one (POST /mcp),
// with what the endpoints decide on — who may run the flow, its rate limit, how its tool looks.
// flowData is read only where the tool's input depends on it (an agentflow that may start with a
// form): a workspace's flows can be large, and the whole flow is read again when a call runs it.
import { and, asc, eq, sql } from "drizzle-orm";
import { chatFlow, mcpServer } from "../../db/schema";
import type { McpServerRow } from "./config";
import type { FlowToolSource } from "./flow-tool";
import type { Deps } from "../deps";

export interface ServedFlow {
  flow: FlowToolSource & { apikeyid: string | null; apiConfig: string | null };
  config: McpServerRow;
}

const hasFormInput = sql`${chatFlow.type} = 'AGENTFLOW' AND instr(${chatFlow.flowData}, '"formInput"') > 0`;

const columns = {
  id: chatFlow.id,
  name: chatFlow.name,
  type: chatFlow.type,
  apikeyid: chatFlow.apikeyid,
  apiConfig: chatFlow.apiConfig,
  flowData: sql<string>`CASE WHEN ${hasFormInput} THEN ${chatFlow.flowData} ELSE '' END`,
};

type Row = { flow: ServedFlow["flow"]; config: McpServerRow };

/** The flow and its config (enabled or not), or undefined when either is missing. */
export async function findServedFlow({ db }: Deps<"db">, chatflowId: string): Promise<ServedFlow | undefined> {
  const row: Row | undefined = await db
    .select({ flow: columns, config: mcpServer })
    .from(mcpServer)
    .innerJoin(chatFlow, eq(chatFlow.id, mcpServer.chatflowId))
    .where(eq(mcpServer.chatflowId, chatflowId))
    .get();
  return row;
}

/** Every flow whose MCP server is enabled, oldest flow first (so tool names' suffixes stay put). */
export async function listServedFlows({ db }: Deps<"db">): Promise<ServedFlow[]> {
  return db
    .select({ flow: columns, config: mcpServer })
    .from(mcpServer)
    .innerJoin(chatFlow, eq(chatFlow.id, mcpServer.chatflowId))
    .where(and(eq(mcpServer.enabled, true)))
    .orderBy(asc(chatFlow.createdDate), asc(chatFlow.id))
    .all();
}
