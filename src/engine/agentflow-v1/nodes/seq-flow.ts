// seqLoop and seqEnd. A Loop goes back to the agent or LLM node its "Loop To" names (the V2 model's
// loop back), at most SEQ_LOOP_LIMIT times per request (LangGraph's recursion limit is what stops
// a V1 loop in Flowise; here the loop's fallback answer says so). End answers the last message.
import { type V1NodeDef, lastSaid } from "./common";
import { seqName } from "./seq-common";

const SEQ_LOOP_LIMIT = 25;

const norm = (s: string) => s.toLowerCase().replace(/[\s_]+/g, "");

export const seqLoopNode: V1NodeDef = {
  name: "seqLoop",
  mode: "sequential",
  variableParams: [],
  loopsBack: true,
  translate(node, scope) {
    const to = String(node.data.inputs?.loopToName ?? "");
    const target = scope.flow.find(
      (n) =>
        n.id !== node.id &&
        !["seqLoop", "seqEnd", "seqStart"].includes(n.data.name) &&
        norm(seqName(n.data.inputs, n.data.label)) === norm(to),
    );
    if (!target) {
      scope.errors.push(`${node.data.label} (${node.id}) loops to "${to}", which names no agent or LLM node of this flow`);
      return {};
    }
    return { inputs: { loopBackToNode: `${target.id}-${seqName(target.data.inputs, target.data.label)}`, maxLoopCount: SEQ_LOOP_LIMIT } };
  },
  async run({ node, rt }) {
    const target = String(node.data.inputs?.loopBackToNode ?? "").split("-")[0];
    const label = String(node.data.inputs?.loopBackToNode ?? "")
      .split("-")
      .slice(1)
      .join("-");
    return {
      id: node.id,
      name: node.data.name,
      input: { nodeID: target },
      output: {
        content: `Loop back to ${label} (${target})`,
        nodeID: target,
        maxLoopCount: SEQ_LOOP_LIMIT,
        fallbackMessage: `Stopped: the loop back to ${label} ran ${SEQ_LOOP_LIMIT} times in this request.`,
      },
      state: rt.state,
    };
  },
};

export const seqEndNode: V1NodeDef = {
  name: "seqEnd",
  mode: "sequential",
  variableParams: [],
  async run({ node, rt }) {
    const last = lastSaid(rt.runtimeChatHistory);
    return { id: node.id, name: node.data.name, input: {}, output: { content: last?.content ?? "" }, state: rt.state };
  },
};
