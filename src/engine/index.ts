// The engine's door. Services call it; nothing in here knows HTTP, the database or a service:
// everything from outside comes through ports (./core/ports.ts; an agentflow's own, agentflow/types.ts).
//
// One runtime per flow `type`: chatflows (and assistants), Agentflow V2, and Agentflow V1 (MULTIAGENT,
// translated onto the V2 runtime). prepareFlow answers which kind it is: a `chatflow` runs over a
// RunContext and a stream sink, an `agentflow` over its request and AgentflowPorts.
import { fail } from "../errors";
import { type PreparedAgentflow, agentflowRuntime } from "./agentflow/door";
import type { V1Outcome } from "./agentflow-v1";
import { multiagentRuntime } from "./agentflow-v1/door";
import { chatflowRuntime } from "./chatflow";
import { parseFlowData } from "./core/flow-data";
import type { FlowRuntime, PreparedChatflow } from "./core/flow-runtime";
import { PreparedFlowCache } from "./core/prepared-cache";
import type { AgentflowOutcome } from "./agentflow/types";

/** An agentflow run's outcome; a V1 (MULTIAGENT) run's also carries agentReasoning and its V1 action. */
export type AgentflowRunOutcome = AgentflowOutcome & Partial<Pick<V1Outcome, "agentReasoning" | "v1Action">>;

/** A flow checked and planned once, by kind: what the run service executes. */
export type PreparedFlow = PreparedChatflow | PreparedAgentflow<AgentflowRunOutcome>;

const runtimes: Record<string, FlowRuntime<PreparedFlow>> = {
  CHATFLOW: chatflowRuntime,
  ASSISTANT: chatflowRuntime,
  AGENTFLOW: agentflowRuntime,
  MULTIAGENT: multiagentRuntime,
};

/** The runtime of a flow type; a flow saved without one is a chatflow. */
export function runtimeFor(type: string | null | undefined): FlowRuntime<PreparedFlow> {
  const runtime = runtimes[type || "CHATFLOW"];
  if (!runtime) throw fail("INVALID_FLOW", `Flows of type ${type} cannot run`);
  return runtime;
}

// 128 flows or 8 M characters of flowData, whichever is reached first.
const prepared = new PreparedFlowCache<PreparedFlow>(128, 8_000_000);

/**
 * Parses flowData and prepares it with its type's runtime (400 saying why it cannot run); the same
 * (type, flowData) again is served from this isolate's cache.
 */
export function prepareFlow(type: string | null | undefined, flowData: string): PreparedFlow {
  const runtime = runtimeFor(type);
  return prepared.get(type || "CHATFLOW", flowData, () => runtime.prepare(parseFlowData(flowData)));
}

/** Whether a flow streams its answer; false for one that cannot run (prediction says why). */
export function canStreamFlow(type: string | null | undefined, flowData: string): boolean {
  try {
    return runtimeFor(type).canStream(parseFlowData(flowData));
  } catch {
    return false;
  }
}

export type { FlowRuntime, PreparedChatflow } from "./core/flow-runtime";
export type { PreparedAgentflow } from "./agentflow/door";
export type {
  CredentialReadOptions,
  CredentialReader,
  RunContext,
  Runtime,
  StoredAssistant,
  StoredMcpServer,
  StoredTool,
} from "./core/ports";
export { FILE_SEARCH_DESCRIPTION } from "./chatflow/nodes/assistant";
export type { ChatTurn, FlowEdge, FlowGraph, FlowNode, RunResult, SourceDocument, StreamSink, UpsertCounts, UsedTool } from "./core/types";
export { createRunContext } from "./core/context";
export type { RunUpload } from "./core/images";
export { RunAborted } from "../lib/run-control";
export { parseFlowData } from "./core/flow-data";
// Chatflow specifics the services use: the save-time warning, assistants' graphs, vector upsert.
export { unsupportedNodes } from "./chatflow/graph";
export { registry as chatflowNodes, supportedNodeNames } from "./chatflow/registry";
export { chatflowFileKey, checkLoaderFile, loaderFileField } from "./chatflow/nodes/document-loaders";
export { type UpsertPlan, assertUpsertSupported, planFlowUpsert, runUpsert } from "./chatflow/upsert";
export { toolDefinitionProblem } from "./tools/custom";
export { listMcpActions, listMcpServerTools } from "./tools/mcp/custom-mcp";
export { MCP_PRESET_NAMES, listPresetActions } from "./tools/mcp/presets";
export { NATIVE_MCP_NAMES, listNativeActions } from "./tools/mcp/native";
export { composioOptions } from "./tools/composio";
export { toolName } from "./tools/names";
export { McpSessionError } from "./tools/mcp/client";
export { openApiOptions } from "./tools/openapi/spec-source";
// The studio's validation (services/validation) lists every reason an agentflow cannot run.
export { validateAgentflow } from "./agentflow/validate";
export type { AgentflowGraph } from "./agentflow/types";
