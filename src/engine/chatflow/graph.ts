// A chatflow graph: which node answers (the ending node) and which nodes to build first.
import { fail } from "../../errors";
import { isStickyNote, referencedIds } from "../core/flow-data";
import type { FlowGraph, FlowNode } from "../core/types";
import { orderVariables } from "./flow-variables";
import { registry } from "./registry";

const ENDING_CATEGORIES = new Set(["Chains", "Agents", "Engine"]);
const NO_ENDING_NODE = "Ending node must be either a Chain or Agent or Engine";

/** A node whose chosen output is `EndingNode` (a Custom JS Function) may answer, whatever its category. */
const endsByOutput = (node: FlowNode): boolean => node.data.outputs?.output === "EndingNode";

/** A node's category: its own data.category, else the registry's. */
const categoryOf = (node: FlowNode): string | undefined => node.data.category || registry.get(node.data.name)?.category;

/** Whether prediction skips this node: a loader feeding a vector store (its def decides). */
function isUpsertOnly(node: FlowNode, graph: FlowGraph): boolean {
  const flag = registry.get(node.data.name)?.upsertOnly;
  return typeof flag === "function" ? flag(node, graph) : !!flag;
}

export interface RunPlan {
  /** The node that answers; with a branching node (ifElseFunction), the last of `endings`. */
  ending: FlowNode;
  /**
   * Nodes that may answer: the ending node alone, or, in a flow with a branching node, every
   * candidate (the run answers with the last one its branches leave in).
   */
  endings: FlowNode[];
  /** Upstream node ids of every node (edges, references, Set → Get Variable). */
  upstream: Map<string, string[]>;
  /** Nodes to build, dependencies first, the ending node last. */
  order: FlowNode[];
  /** Nodes the run does not build (upsert-only loaders and what only they use). */
  skipped: Set<string>;
}

/** Upstream node ids of every node: edges plus {{x.data.instance}} references (either suffices). */
export function upstreamMap(graph: FlowGraph, live: Map<string, FlowNode>): Map<string, string[]> {
  const up = new Map<string, Set<string>>();
  for (const id of live.keys()) up.set(id, new Set());
  for (const e of graph.edges) if (live.has(e.source) && live.has(e.target)) up.get(e.target)!.add(e.source);
  for (const node of live.values()) for (const ref of referencedIds(node)) if (live.has(ref) && ref !== node.id) up.get(node.id)!.add(ref);
  return new Map([...up].map(([k, v]) => [k, [...v]]));
}

/** Nodes on a cycle (Kahn's algorithm leaves them with unmet dependencies), in graph order. */
function cycleNodes(nodes: FlowNode[], up: Map<string, string[]>): FlowNode[] {
  const pending = new Map(nodes.map((n) => [n.id, up.get(n.id)!.length]));
  const down = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
  for (const [id, sources] of up) for (const s of sources) down.get(s)!.push(id);
  const queue = nodes.filter((n) => pending.get(n.id) === 0).map((n) => n.id);
  while (queue.length) {
    const id = queue.shift()!;
    pending.delete(id);
    for (const d of down.get(id)!) {
      const left = pending.get(d)! - 1;
      pending.set(d, left);
      if (left === 0) queue.push(d);
    }
  }
  // What is left is on a cycle or downstream of one; keep those that can reach themselves.
  const left = new Set(pending.keys());
  const onCycle = (start: string): boolean => {
    const seen = new Set<string>();
    const stack = [...(up.get(start) ?? [])];
    while (stack.length) {
      const id = stack.pop()!;
      if (id === start) return true;
      if (seen.has(id) || !left.has(id)) continue;
      seen.add(id);
      stack.push(...(up.get(id) ?? []));
    }
    return false;
  };
  return nodes.filter((n) => left.has(n.id) && onCycle(n.id));
}

/**
 * The ending node (no outgoing edge, at least one incoming one or the only node, category Chains,
 * Agents or Engine, or output EndingNode) and the build order of its ancestors. Sticky notes are never part of it.
 * Throws ApiError 400 on a cycle or when no node can end the flow.
 */
export function planRun(graph: FlowGraph): RunPlan {
  const nodes = graph.nodes.filter((n) => !isStickyNote(n));
  const live = new Map(nodes.map((n) => [n.id, n]));
  const up = upstreamMap(graph, live);
  orderVariables(nodes, up);

  const cyclic = cycleNodes(nodes, up);
  if (cyclic.length) throw fail("INVALID_FLOW", `flowData has a cycle through nodes: ${cyclic.map((n) => n.id).join(", ")}`);

  const hasOutgoing = new Set<string>();
  const hasIncoming = new Set<string>();
  for (const [id, sources] of up) {
    if (sources.length) hasIncoming.add(id);
    for (const s of sources) hasOutgoing.add(s);
  }
  const endings = nodes.filter(
    (n) =>
      !hasOutgoing.has(n.id) &&
      (hasIncoming.has(n.id) || nodes.length === 1) &&
      (ENDING_CATEGORIES.has(categoryOf(n) ?? "") || endsByOutput(n)),
  );
  // Several candidates: the last one in the graph answers, as Flowise does; with a branching node,
  // the last one its branches leave in (all are built as ending nodes until then).
  const ending = endings[endings.length - 1];
  if (!ending) throw fail("INVALID_FLOW", NO_ENDING_NODE);
  const branching = nodes.some((n) => registry.get(n.data.name)?.branch);
  const candidates = branching ? endings : [ending];

  // Ancestors of the ending node. An upsert-only node (a loader feeding a vector store) is not
  // built on prediction, nor is anything that only it needs.
  const skipped = new Set<string>();
  const needed = new Set<string>(candidates.map((n) => n.id));
  const stack = [...needed];
  while (stack.length) {
    const id = stack.pop()!;
    for (const s of up.get(id) ?? []) {
      if (needed.has(s) || skipped.has(s)) continue;
      if (isUpsertOnly(live.get(s)!, graph)) {
        skipped.add(s);
        continue;
      }
      needed.add(s);
      stack.push(s);
    }
  }

  const order = dependencyOrder(nodes, up, needed);
  return { ending, endings: candidates, upstream: up, order, skipped };
}

/**
 * The `needed` nodes, dependencies first and otherwise in graph order. An upstream node outside
 * `needed` (skipped) counts as done; nodes that can never be ordered form a cycle: 400 naming them.
 */
export function dependencyOrder(nodes: FlowNode[], up: Map<string, string[]>, needed: Set<string>): FlowNode[] {
  const order: FlowNode[] = [];
  const done = new Set<string>();
  const remaining = nodes.filter((n) => needed.has(n.id));
  while (remaining.length) {
    const i = remaining.findIndex((n) => (up.get(n.id) ?? []).every((s) => done.has(s) || !needed.has(s)));
    if (i < 0) throw fail("INVALID_FLOW", `flowData has a cycle through nodes: ${remaining.map((n) => n.id).join(", ")}`);
    const [next] = remaining.splice(i, 1);
    order.push(next);
    done.add(next.id);
  }
  return order;
}

/** Names of nodes (sticky notes aside) that no registry entry builds, sorted, each once. */
export function unsupportedNodes(graph: FlowGraph): string[] {
  const names = new Set<string>();
  for (const node of graph.nodes) if (!isStickyNote(node) && !registry.has(node.data.name)) names.add(node.data.name);
  return [...names].sort();
}

/** The first Memory node connected to something: its label is the run's memoryType. */
export function memoryNode(graph: FlowGraph): FlowNode | undefined {
  const connected = new Set<string>();
  for (const e of graph.edges) connected.add(e.source);
  for (const n of graph.nodes) for (const ref of referencedIds(n)) connected.add(ref);
  return graph.nodes.find((n) => categoryOf(n) === "Memory" && connected.has(n.id));
}
