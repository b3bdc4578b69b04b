// Loop: jumps back to `loopBackToNode` ("<nodeId>-<label>") until it has looped maxLoopCount − 1
// times (default 5); the executor does the jump and, at the limit, answers the fallback message.
import { fail } from "../../../errors";
import type { AgentflowNodeDef } from "../node-types";
import { updateFlowState } from "../state";
import { num } from "../util";
import { ownerOf } from "./common";

const DEFAULT_MAX_LOOP_COUNT = 5;

/** The target id of `loopBackToNode` ("<nodeId>-<label>"): node ids never contain "-". */
export const loopTarget = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim().split("-")[0] : undefined;

export const loopNode: AgentflowNodeDef = {
  name: "loopAgentflow",
  variableParams: ["fallbackMessage", "loopUpdateState"],
  loopsBack: true,
  async run({ node, inputs, rt }) {
    const target = loopTarget(inputs.loopBackToNode);
    if (!target) throw fail("INVALID_FLOW", `${ownerOf(node)} needs a node to loop back to (loopBackToNode)`);
    const label = String(inputs.loopBackToNode).split("-").slice(1).join("-");
    const given = num(inputs.maxLoopCount);
    const maxLoopCount = given !== undefined && given >= 1 ? Math.floor(given) : DEFAULT_MAX_LOOP_COUNT;
    const content = `Loop back to ${label} (${target})`;
    const state = updateFlowState(rt.state, inputs.loopUpdateState);
    for (const [k, v] of Object.entries(state)) if (typeof v === "string" && v.includes("{{ output }}")) state[k] = content;
    const fallbackMessage = typeof inputs.fallbackMessage === "string" ? inputs.fallbackMessage : undefined;
    return {
      id: node.id,
      name: node.data.name,
      input: { nodeID: target, maxLoopCount },
      output: { content, nodeID: target, maxLoopCount, fallbackMessage },
      state,
    };
  },
};
