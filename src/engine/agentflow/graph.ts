// The agentflow graph as the runtime walks it (AGENTFLOW.md §1, §4.5): sticky notes dropped,
// source → targets and target → sources maps, the starting node, Iteration children, and the
// decision node each input of a join hangs from.
import type { FlowEdge } from "../core/types";
import { agentflowNodes } from "./nodes/registry";
import type { AgentflowGraph, AgentflowNode } from "./types";

/** A node whose branches are chosen by its output (Condition, Condition Agent, Human Input). */
export const isDecision = (node: AgentflowNode): boolean => agentflowNodes.get(node.data.name)?.branches !== undefined;

const STICKY_NOTES = new Set(["stickyNoteAgentflow", "stickyNote"]);

export const isStickyNote = (node: AgentflowNode): boolean => STICKY_NOTES.has(node.data.name) || node.type === "stickyNote";

/** The runnable part of a flow (or of one Iteration's block). */
export class FlowMap {
  readonly nodes = new Map<string, AgentflowNode>();
  readonly edges: FlowEdge[];
  /** source → targets, in edge order. */
  readonly children = new Map<string, string[]>();
  /** target → sources, in edge order. */
  readonly parents = new Map<string, string[]>();

  constructor(nodes: AgentflowNode[], edges: FlowEdge[]) {
    for (const n of nodes) if (!isStickyNote(n)) this.nodes.set(n.id, n);
    this.edges = edges.filter((e) => this.nodes.has(e.source) && this.nodes.has(e.target));
    for (const e of this.edges) {
      push(this.children, e.source, e.target);
      push(this.parents, e.target, e.source);
    }
  }

  /** The flow of the top level (nodes outside every Iteration block, and the edges between them). */
  static top(graph: AgentflowGraph): FlowMap {
    const outside = graph.nodes.filter((n) => !n.parentNode);
    const ids = new Set(outside.map((n) => n.id));
    return new FlowMap(
      outside,
      graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
    );
  }

  /** One Iteration's block: its children and the edges between them. */
  static block(graph: AgentflowGraph, iterationId: string): FlowMap {
    const inside = graph.nodes.filter((n) => n.parentNode === iterationId);
    const ids = new Set(inside.map((n) => n.id));
    return new FlowMap(
      inside,
      graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)),
    );
  }

  childrenOf(id: string): string[] {
    return this.children.get(id) ?? [];
  }

  parentsOf(id: string): string[] {
    return this.parents.get(id) ?? [];
  }

  /** Nodes with no incoming edge. */
  startingNodes(): string[] {
    return [...this.nodes.values()].filter((n) => !this.parents.has(n.id)).map((n) => n.id);
  }

  /**
   * The decision node an input comes from, walking up first parents (Flowise's findConditionParent):
   * inputs under the same decision form a group where one arrival is enough.
   */
  decisionAbove(sourceId: string): string | undefined {
    const seen = new Set<string>();
    let current = sourceId;
    for (;;) {
      const node = this.nodes.get(current);
      if (!node) return undefined;
      if (isDecision(node)) return node.id;
      if (seen.has(current)) return undefined;
      seen.add(current);
      const parent = this.parentsOf(current)[0];
      if (!parent) return undefined;
      current = parent;
    }
  }
}

function push(map: Map<string, string[]>, key: string, value: string) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Edge handle of branch `i` of a decision node. */
export const branchHandle = (nodeId: string, index: number): string => `${nodeId}-output-${index}`;
