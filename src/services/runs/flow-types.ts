// What the flow's type and settings say about running it: whether it runs on the agentflow runtime,
// why its graph cannot run (the save-time warning; at run time the engine's door says the same as a
// 400), and whether post-processing rewrites its final text.
import { parseFlowData } from "../../engine";
import { validateAgentflow } from "../../engine/agentflow";
import { multiagentFault } from "../../engine/agentflow-v1";
import type { AgentflowGraph } from "../../engine/agentflow/types";

/** What keeps the graph from running (one Start, known nodes, handles and Loop targets that exist), or undefined. */
function agentflowFault(graph: AgentflowGraph): string | undefined {
  const { errors } = validateAgentflow(graph);
  return errors.length ? `This agentflow cannot run: ${errors.join("; ")}` : undefined;
}

/** Flow types the agentflow runtime runs: V2 agentflows, and V1 multi-agent flows (translated). */
export const runsOnAgentflowRuntime = (type: string | null | undefined): boolean => type === "AGENTFLOW" || type === "MULTIAGENT";

/** Why a MULTIAGENT or AGENTFLOW graph cannot run, or undefined (the save-time warning). */
export function agentflowTypeFault(type: string, flowData: string): string | undefined {
  const graph = parseFlowData(flowData);
  return type === "MULTIAGENT" ? multiagentFault(graph) : agentflowFault(graph as AgentflowGraph);
}

/**
 * chatbotConfig.postProcessing.customFunction when post-processing is enabled: the code that rewrites
 * an agentflow's final text. Flowise then answers JSON even to a streaming request (and says the
 * flow does not stream), since the text is only known at the end.
 */
export function postProcessingOf(chatbotConfig: string | null): string | undefined {
  if (!chatbotConfig) return undefined;
  try {
    const post = (JSON.parse(chatbotConfig) as { postProcessing?: { enabled?: unknown; customFunction?: unknown } })?.postProcessing;
    return post?.enabled === true && typeof post.customFunction === "string" && post.customFunction.trim()
      ? post.customFunction
      : undefined;
  } catch {
    return undefined;
  }
}
