// Iteration: its input must be an array (JSON, possibly with escaped brackets or quotes); the
// executor runs the nodes inside the block once per item (src/engine/agentflow/iteration.ts).
import { fail } from "../../../errors";
import type { AgentflowNodeDef } from "../node-types";
import { ownerOf } from "./common";

function parseItems(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  if (!raw.trim()) return undefined;
  for (const text of [raw, raw.replace(/\\(["'[\]{}])/g, "$1")]) {
    try {
      return JSON.parse(text);
    } catch {
      // next form
    }
  }
  return undefined;
}

export const iterationNode: AgentflowNodeDef = {
  name: "iterationAgentflow",
  variableParams: ["iterationInput"],
  runsBlock: true,
  async run({ node, inputs, rt }) {
    const items = parseItems(inputs.iterationInput);
    if (!Array.isArray(items)) {
      const shown =
        typeof inputs.iterationInput === "string" ? inputs.iterationInput.slice(0, 200) : JSON.stringify(inputs.iterationInput ?? null);
      throw fail("NODE_FAILED", `${ownerOf(node)}: Invalid input array: its iterationInput must be a JSON array, got ${shown}`);
    }
    return { id: node.id, name: node.data.name, input: { iterationInput: items }, output: {}, state: rt.state };
  },
};
