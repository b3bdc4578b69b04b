// A flow record of Flowise's export file (ChatFlow, AgentFlow, AgentFlowV2, AssistantFlow): the
// flow's row, its MCP server's row (the token kept hashed) and, for a scheduled agentflow, the
// schedule row a save makes, checked the same way (why it cannot be enabled: a warning).
import type { ChatflowType } from "../../db/enums";
import { sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { scheduleRowOf } from "../schedules/records";
import type { Ledger } from "./ledger";
import { Chatflow, McpServerConfig, RecordError, type RowOut, check } from "./record-schemas";

/** A flow record (`sectionType`: its type when the record names none): its row, its MCP server's, its schedule's. */
export async function readFlow(sectionType: ChatflowType, raw: unknown, label: string, out: RowOut, ledger: Ledger): Promise<void> {
  const f = check(Chatflow, raw, label);
  const type = f.type ?? sectionType;
  ledger.note("flow", f.id, label);
  // A scheduled agentflow gets the schedule row a save makes, and its warning when it cannot be enabled.
  const schedule = scheduleRowOf({ id: f.id, type, flowData: f.flowData });
  ledger.flowSaved(f.id, f.name, f.flowData, type, f.apikeyid ?? null, schedule?.warning);
  out("chat_flow", [
    f.id,
    f.name,
    f.flowData,
    f.deployed,
    f.isPublic,
    f.apikeyid ?? null,
    f.chatbotConfig ?? null,
    f.apiConfig ?? null,
    f.analytic ?? null,
    f.speechToText ?? null,
    f.textToSpeech ?? null,
    f.followUpPrompts ?? null,
    f.category ?? null,
    type,
    f.createdDate,
    f.updatedDate,
  ]);
  if (schedule) {
    const v = schedule.values;
    out("schedule_record", [
      newId(),
      "AGENTFLOW",
      f.id,
      v.nodeId,
      v.cronExpression,
      v.timezone,
      schedule.canEnable ? 1 : 0,
      v.scheduleInputMode,
      v.defaultInput,
      v.defaultForm,
      v.nextRunAt,
      v.endDate,
      v.updatedDate,
      v.updatedDate,
    ]);
  }
  // Flowise keeps an MCP server's token in the flow; here only its hash is kept, so MCP clients keep working.
  if (f.mcpServerConfig) {
    const mcp = McpServerConfig.safeParse(JSON.parse(f.mcpServerConfig));
    if (!mcp.success) throw new RecordError(label, "mcpServerConfig: must be {enabled, token, toolName, description}");
    const { enabled, token, toolName, description } = mcp.data;
    if (token) {
      out("mcp_server", [
        f.id,
        enabled ? 1 : 0,
        await sha256Hex(token),
        `${token.slice(0, 4)}…${token.slice(-4)}`,
        toolName ?? "",
        description ?? "",
        f.createdDate,
        f.updatedDate,
      ]);
    }
  }
}
