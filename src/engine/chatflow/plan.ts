// A chatflow's plan, computed once per run and carried: the parsed graph, the ending node and the
// build order, and whether the ending node streams (the run door decides JSON vs event
// stream from it before the run starts; the run then streams exactly when it said so).
import { fail } from "../../errors";
import type { FlowGraph, FlowNode } from "../core/types";
import { type RunPlan, planRun, unsupportedNodes } from "./graph";
import { registry } from "./registry";

export interface ChatflowPlan {
  graph: FlowGraph;
  run: RunPlan;
  /** Whether the ending node can stream tokens (FLOWISE-NOTES point 7). */
  streamable: boolean;
}

function endingStreams(ending: FlowNode, graph: FlowGraph): boolean {
  const def = registry.get(ending.data.name);
  return !!def?.run && !!def.canStream?.(ending, graph);
}

/**
 * Plans a chatflow graph. Throws ApiError 400 for one that cannot run: unsupported nodes (named),
 * then a cycle or no ending node.
 */
export function planChatflow(graph: FlowGraph): ChatflowPlan {
  const unknown = unsupportedNodes(graph);
  if (unknown.length) throw fail("UNKNOWN_NODE", `This chatflow uses nodes edgeflow does not support: ${unknown.join(", ")}`);
  const run = planRun(graph);
  return { graph, run, streamable: run.endings.every((n) => endingStreams(n, graph)) };
}

/**
 * Whether the graph's ending node can stream: a chain whose chat model's `streaming` input is not
 * false and that has no output parser. False for a graph without a plan (the widget asks this of
 * any chatflow; prediction reports why it cannot run).
 */
export function canStreamGraph(graph: FlowGraph): boolean {
  try {
    return planRun(graph).endings.every((n) => endingStreams(n, graph));
  } catch {
    return false;
  }
}
