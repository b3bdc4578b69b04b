// Helpers every agentflow node uses.
import { fillOutputTemplates, updateFlowState, type FlowState } from "../state";
import type { NodeRunArgs } from "../node-types";
import type { AgentflowNode } from "../types";

/** `LLM 0 (llmAgentflow_0)`: how messages name a node. */
export const ownerOf = (node: AgentflowNode): string => `${node.data.label} (${node.id})`;

/** True when this node's answer goes to the client as tokens. */
export const streamsAnswer = ({ rt }: Pick<NodeRunArgs, "rt">): boolean => rt.isLastNode && rt.streaming;

/** Update Flow State rows merged over the state, then `{{ output }}` templates filled with the output. */
export function stateAfter(state: FlowState, rows: unknown, output: string): FlowState {
  return fillOutputTemplates(updateFlowState(state, rows), output);
}

/** A node's input echo without empty strings (as Flowise stores node inputs). */
export function withoutEmpty(inputs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== ""));
}
