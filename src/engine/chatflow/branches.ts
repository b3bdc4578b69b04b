// A branching node (ifElseFunction) leaves out the nodes behind the output it did not take, as
// Flowise's ignoreNodeIds: the targets of that output's edges and everything downstream of them.
// What is left to build is what the remaining ending nodes still need; the run answers with the
// last ending node left in.
import { fail } from "../../errors";
import type { FlowGraph, FlowNode } from "../core/types";
import type { RunPlan } from "./graph";

/** Nodes behind `output` of `node` (its edges' targets, then everything downstream of them). */
export function behindOutput(graph: FlowGraph, plan: RunPlan, node: FlowNode, output: string): string[] {
  const handle = `${node.id}-output-${output}-`;
  const start = graph.edges.filter((e) => e.source === node.id && String(e.sourceHandle ?? "").startsWith(handle)).map((e) => e.target);
  const down = new Map<string, string[]>();
  for (const [id, sources] of plan.upstream) for (const s of sources) down.set(s, [...(down.get(s) ?? []), id]);
  const behind = new Set<string>();
  const stack = [...start];
  while (stack.length) {
    const id = stack.pop()!;
    if (behind.has(id) || id === node.id) continue;
    behind.add(id);
    stack.push(...(down.get(id) ?? []));
  }
  return [...behind];
}

/** The ending nodes still in, and the nodes they need (none of those left out). */
export function stillNeeded(plan: RunPlan, leftOut: Set<string>): Set<string> {
  const needed = new Set<string>();
  const stack = plan.endings.map((n) => n.id).filter((id) => !leftOut.has(id));
  while (stack.length) {
    const id = stack.pop()!;
    if (needed.has(id) || leftOut.has(id) || plan.skipped.has(id)) continue;
    needed.add(id);
    stack.push(...(plan.upstream.get(id) ?? []));
  }
  return needed;
}

/** The node that answers: the last ending node left in; a 400 when the branches left none. */
export function endingLeftIn(plan: RunPlan, leftOut: Set<string>): FlowNode {
  const left = plan.endings.filter((n) => !leftOut.has(n.id));
  const ending = left[left.length - 1];
  if (!ending) throw fail("INVALID_FLOW", "The branch the flow took (IfElse Function) leads to no Chain, Agent or Engine to answer");
  return ending;
}
