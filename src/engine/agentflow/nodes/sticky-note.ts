// Sticky Note: a comment on the canvas; dropped before the graph is walked (graph.ts), never run.
import type { AgentflowNodeDef } from "../node-types";

export const stickyNoteNode: AgentflowNodeDef = {
  name: "stickyNoteAgentflow",
  variableParams: [],
  async run({ node, rt }) {
    return { id: node.id, name: node.data.name, input: {}, output: {}, state: rt.state };
  },
};
