// Which children run after a node (AGENTFLOW.md §4.5): a decision node's unfulfilled branches are
// skipped, and a node with several inputs waits for them (a join). Inputs that hang from the same
// decision node form a group where one arrival is enough; every other input is required.
// Better than Flowise: a target reached by a fulfilled branch is never skipped, even when an
// unfulfilled branch of the same decision also points at it.
import { type FlowMap, branchHandle, isDecision } from "./graph";
import type { NodeResultData } from "./types";

interface Waiting {
  required: Set<string>;
  groups: Map<string, string[]>;
  received: Set<string>;
}

export class Joins {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly map: FlowMap) {}

  /** Children of `nodeId` that become ready now that it finished with `result`. */
  arrive(nodeId: string, result: NodeResultData): string[] {
    const node = this.map.nodes.get(nodeId);
    const skipped = node && isDecision(node) ? this.skippedBy(nodeId, result) : new Set<string>();
    const ready: string[] = [];
    for (const child of new Set(this.map.childrenOf(nodeId))) {
      if (skipped.has(child)) continue;
      let w = this.waiting.get(child);
      if (!w) {
        w = this.expect(child);
        this.waiting.set(child, w);
      }
      w.received.add(nodeId);
      if ([...w.required].every((r) => w.received.has(r)) && [...w.groups.values()].every((g) => g.some((s) => w.received.has(s)))) {
        this.waiting.delete(child);
        ready.push(child);
      }
    }
    return ready;
  }

  /** Joins that got some inputs but not all, and what they still wait for. */
  stalled(): Array<{ nodeId: string; missing: string[] }> {
    return [...this.waiting.entries()].map(([nodeId, w]) => ({
      nodeId,
      missing: [...w.required]
        .filter((r) => !w.received.has(r))
        .concat([...w.groups.values()].filter((g) => !g.some((s) => w.received.has(s))).flat()),
    }));
  }

  private expect(nodeId: string): Waiting {
    const w: Waiting = { required: new Set(), groups: new Map(), received: new Set() };
    for (const source of new Set(this.map.parentsOf(nodeId))) {
      const decision = this.map.decisionAbove(source);
      if (decision) w.groups.set(decision, [...(w.groups.get(decision) ?? []), source]);
      else w.required.add(source);
    }
    return w;
  }

  /** Targets only unfulfilled branches reach. No branch fulfilled: the last one is taken. */
  private skippedBy(nodeId: string, result: NodeResultData): Set<string> {
    const conditions = Array.isArray(result.output?.conditions) ? (result.output.conditions as Array<{ isFulfilled?: unknown }>) : [];
    if (!conditions.length) return new Set();
    if (!conditions.some((c) => c?.isFulfilled === true)) conditions[conditions.length - 1].isFulfilled = true;
    const taken = new Set<string>();
    const notTaken = new Set<string>();
    for (const edge of this.map.edges) {
      if (edge.source !== nodeId) continue;
      const index = conditions.findIndex((_, i) => edge.sourceHandle === branchHandle(nodeId, i));
      if (index >= 0 && conditions[index]?.isFulfilled === true) taken.add(edge.target);
      else notTaken.add(edge.target);
    }
    return new Set([...notTaken].filter((t) => !taken.has(t)));
  }
}
