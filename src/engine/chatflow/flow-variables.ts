// Set Variable / Get Variable (Flowise's dynamic variables, Utilities): a value one node keeps for
// the rest of the run, read back by name by another node that need not be connected to it. The
// run's FlowState (./types.ts) holds them; here, the build order: a Get Variable waits for every
// Set Variable of its name (as if connected to them), unless it already feeds that Set Variable
// (then it reads what is there before it, as Flowise's breadth-first build does).
import type { FlowNode } from "../core/types";

const nameOf = (node: FlowNode): string | undefined => {
  const name = node.data.inputs?.variableName;
  return typeof name === "string" && name.trim() ? name.trim() : undefined;
};

/** Whether `target` is upstream of `from` (or is it). */
function isUpstream(up: Map<string, string[]>, from: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const id = stack.pop()!;
    if (id === target) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(up.get(id) ?? []));
  }
  return false;
}

/** Adds Set Variable → Get Variable dependencies (same variable name) to `up`, in place. */
export function orderVariables(nodes: FlowNode[], up: Map<string, string[]>): void {
  const setters = nodes.filter((n) => n.data.name === "setVariable" && nameOf(n));
  if (!setters.length) return;
  for (const getter of nodes) {
    if (getter.data.name !== "getVariable") continue;
    const name = nameOf(getter);
    for (const setter of setters) {
      if (nameOf(setter) !== name || isUpstream(up, setter.id, getter.id)) continue;
      const sources = up.get(getter.id);
      if (sources && !sources.includes(setter.id)) sources.push(setter.id);
    }
  }
}
