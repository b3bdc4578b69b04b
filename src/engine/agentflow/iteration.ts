// Iteration (AGENTFLOW.md §4.8): the nodes inside an Iteration block run once per item, one item
// after the other, as a sub-run that sees `{{ $iteration }}`, the parent's state and executed data.
// Each sub-run's entries join the parent's executed data as they finish (tagged with the item),
// before the Iteration's own entry; its state is merged back. An item that fails gives the result
// "Error in iteration N: …" and the next item runs.
import { FlowMap } from "./graph";
import { AgentflowRun } from "./run"; // circular, used only when an iteration runs
import type { NodeEmitter } from "./node-types";
import type { AgentflowNode, ExecutedData, NodeResultData } from "./types";
import { errorMessage, isObject } from "./util";

export async function iterate(parent: AgentflowRun, node: AgentflowNode, result: NodeResultData, channel: NodeEmitter): Promise<NodeResultData> {
  const items = Array.isArray(result.input?.iterationInput) ? (result.input.iterationInput as unknown[]) : [];
  const block = FlowMap.block(parent.shared.graph, node.id);
  if (!block.nodes.size) return result;
  const starts = block.startingNodes();
  const results: string[] = [];
  let state = { ...(isObject(result.state) ? result.state : parent.state) };
  for (const [index, value] of items.entries()) {
    const iteration = { index, value, isFirst: index === 0, isLast: index === items.length - 1, sessionId: parent.shared.request.sessionId };
    const child = new AgentflowRun(parent.shared, block, {
      state: { ...state },
      pastChatHistory: parent.pastChatHistory,
      form: parent.form,
      iteration,
      parent,
      channel,
      onEntry: async (entry: ExecutedData) => {
        parent.executedData.push({ ...entry, data: { ...entry.data, iterationIndex: index, iterationContext: iteration, parentNodeId: node.id } });
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
