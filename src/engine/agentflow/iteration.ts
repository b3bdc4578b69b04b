// Iteration (AGENTFLOW.md §4.8): the nodes inside an Iteration block run once per item, one item
// after the other, as a sub-run that sees `{{ $iteration }}`, the parent's state and executed data.
// Each sub-run's entries join the parent's executed data as they finish (tagged with the item),
// before the Iteration's own entry; its state is merged back. An item that fails gives the result
// "Error in iteration N: …" and the next item runs.
import { FlowMap } from "./graph";
import type { IterationContext, NodeEmitter } from "./node-types";
import type { FlowState } from "./state";
import type { AgentflowGraph, AgentflowMessage, AgentflowNode, AgentflowRequest, ExecutedData, NodeResultData } from "./types";
import { errorMessage, isObject } from "./util";

/** What a sub-run starts from (run.ts adds its parent). */
export interface SubRunInit {
  state: FlowState;
  pastChatHistory: AgentflowMessage[];
  form: Record<string, unknown>;
  iteration: IterationContext;
  channel: NodeEmitter;
  onEntry: (entry: ExecutedData) => Promise<void>;
}

/** The run an Iteration node is in, as iterating needs it: run.ts's AgentflowExecutor, without importing it back. */
export interface IterationParent {
  readonly shared: { graph: AgentflowGraph; request: AgentflowRequest };
  readonly state: FlowState;
  readonly pastChatHistory: AgentflowMessage[];
  readonly form: Record<string, unknown>;
  readonly executedData: ExecutedData[];
  readonly controller: AbortController;
  checkpoint(): Promise<void>;
  subRun(
    block: FlowMap,
    init: SubRunInit,
  ): { drive(start: string[]): Promise<void>; readonly executedData: ExecutedData[]; readonly state: FlowState };
}

export async function iterate(
  parent: IterationParent,
  node: AgentflowNode,
  result: NodeResultData,
  channel: NodeEmitter,
): Promise<NodeResultData> {
  const items = Array.isArray(result.input?.iterationInput) ? (result.input.iterationInput as unknown[]) : [];
  const block = FlowMap.block(parent.shared.graph, node.id);
  if (!block.nodes.size) return result;
  const starts = block.startingNodes();
  const results: string[] = [];
  let state = { ...(isObject(result.state) ? result.state : parent.state) };
  for (const [index, value] of items.entries()) {
    const iteration = {
      index,
      value,
      isFirst: index === 0,
      isLast: index === items.length - 1,
      sessionId: parent.shared.request.sessionId,
    };
    const child = parent.subRun(block, {
      state: { ...state },
      pastChatHistory: parent.pastChatHistory,
      form: parent.form,
      iteration,
      channel,
      onEntry: async (entry: ExecutedData) => {
        parent.executedData.push({
          ...entry,
          data: { ...entry.data, iterationIndex: index, iterationContext: iteration, parentNodeId: node.id },
        });
        await parent.checkpoint();
      },
    });
    try {
      await child.drive(starts);
      const last = child.executedData.at(-1)?.data?.output?.content;
      if (typeof last === "string" && last) results.push(last);
      state = { ...state, ...child.state };
    } catch (err) {
      if (parent.controller.signal.aborted) throw err;
      results.push(`Error in iteration ${index + 1}: ${errorMessage(err)}`);
    }
  }
  return { ...result, output: { ...(result.output ?? {}), iterationResults: results, content: results.join("\n") }, state };
}
