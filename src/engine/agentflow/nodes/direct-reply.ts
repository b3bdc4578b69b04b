// Direct Reply: answers a fixed (resolved) message; one token when it is the answer.
import type { AgentflowNodeDef } from "../node-types";
import { streamsAnswer } from "./common";

export const directReplyNode: AgentflowNodeDef = {
  name: "directReplyAgentflow",
  variableParams: ["directReplyMessage"],
  async run(args) {
    const { node, inputs, rt } = args;
    const message = typeof inputs.directReplyMessage === "string" ? inputs.directReplyMessage : String(inputs.directReplyMessage ?? "");
    if (streamsAnswer(args)) rt.emit.token(message);
    return { id: node.id, name: node.data.name, input: {}, output: { content: message }, state: rt.state };
  },
};
