// The save-time (and run-time) check of an agentflow graph: what would make it impossible to run
// as drawn. Errors: node names the runtime does not know, not exactly one Start, nodes other than
// Start with no incoming edge, edges whose handle points at no branch, a Loop target that does not
// exist, cycles of edges (going back is a Loop node's job), Iteration children of a node that is
// not an Iteration, a Human Input inside an Iteration.
import { FlowMap, isStickyNote } from "./graph";
import { loopTarget } from "./nodes/loop";
import { agentflowNodeNames, agentflowNodes } from "./nodes/registry";
import type { AgentflowGraph, AgentflowNode, AgentflowValidation } from "./types";

const named = (n: AgentflowNode) => `${n.data.label} (${n.id})`;

const defOf = (n: AgentflowNode) => agentflowNodes.get(n.data.name);

function cycleThrough(map: FlowMap): string | undefined {
  const state = new Map<string, 1 | 2>();
  const visit = (id: string): string | undefined => {
    if (state.get(id) === 2) return undefined;
    if (state.get(id) === 1) return id;
    state.set(id, 1);
    for (const child of map.childrenOf(id)) {
      const found = visit(child);
      if (found) return found;
    }
    state.set(id, 2);
    return undefined;
  };
  for (const id of map.nodes.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

export function validateAgentflow(graph: AgentflowGraph): AgentflowValidation {
  const errors: string[] = [];
  const warnings: string[] = [];
  const nodes = graph.nodes.filter((n) => !isStickyNote(n));
  const byId = new Map(nodes.map((n) => [n.id, n]));

  const unknown = nodes.filter((n) => !agentflowNodes.has(n.data.name) || (defOf(n)?.translatedOnly && !graph.translated));
  if (unknown.length) {
    errors.push(
      `Unknown agentflow nodes: ${unknown.map((n) => `${n.data.name} (${n.id})`).join(", ")}; the runtime ` +
        `has ${agentflowNodeNames().join(", ")}`,
    );
  }

  const starts = nodes.filter((n) => defOf(n)?.start);
  if (starts.length !== 1)
    errors.push(
      starts.length
        ? `An agentflow has exactly one Start node; this one has ${starts.length}`
        : "An agentflow needs a Start node (startAgentflow)",
    );

  for (const n of nodes) {
    if (!n.parentNode) continue;
    const parent = byId.get(n.parentNode);
    if (!parent || !defOf(parent)?.runsBlock) errors.push(`${named(n)} is inside ${n.parentNode}, which is not an Iteration node`);
    if (defOf(n)?.topLevelOnly)
      errors.push(
        `${named(n)}: a ${n.data.name} node cannot be inside an Iteration (${
          defOf(n)?.pauses ? "its pause could " + "not be resumed" : "it must be at the top level"
        })`,
      );
  }

  for (const e of graph.edges) {
    const source = byId.get(e.source);
    if (!source || !byId.has(e.target) || !e.sourceHandle) continue;
    const branches = defOf(source)?.branches;
    if (branches) {
      const m = new RegExp(`^${source.id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-output-(\\d+)$`).exec(e.sourceHandle);
      const count = branches(source.data.inputs ?? {});
      if (!m || Number(m[1]) >= count)
        errors.push(
          `The edge from ${named(source)} to ${e.target} leaves from handle ${e.sourceHandle}, which is none of its ${count} branches`,
        );
    } else if (!e.sourceHandle.startsWith(`${source.id}-output-`)) {
      errors.push(`The edge from ${named(source)} to ${e.target} leaves from handle ${e.sourceHandle}, which is not one of ${source.id}'s`);
    }
  }

  for (const n of nodes.filter((x) => defOf(x)?.loopsBack)) {
    const target = loopTarget(n.data.inputs?.loopBackToNode);
    if (!target) errors.push(`${named(n)} needs a node to loop back to (loopBackToNode)`);
    else if (!byId.has(target)) errors.push(`${named(n)} loops back to ${target}, which is not in the flow`);
    else if ((byId.get(target)!.parentNode ?? "") !== (n.parentNode ?? ""))
      errors.push(`${named(n)} loops back to ${target}, which is in another Iteration block`);
  }

  const blocks = [FlowMap.top(graph), ...nodes.filter((n) => defOf(n)?.runsBlock).map((n) => FlowMap.block(graph, n.id))];
  for (const [i, map] of blocks.entries()) {
    const cycle = cycleThrough(map);
    if (cycle) errors.push(`The edges make a cycle through ${named(byId.get(cycle)!)}: use a Loop node to go back`);
    if (i === 0) {
      const loose = map.startingNodes().filter((id) => !defOf(byId.get(id)!)?.start);
      if (loose.length)
        errors.push(
          `Only the Start node may have no incoming ` +
            `edge: ${loose.map((id) => named(byId.get(id)!)).join(", ")} ${loose.length === 1 ? "has" : "have"} none`,
        );
    }
  }
  return { errors, warnings };
}
