// seqStart: the sequential flow's entry. The conversation opens with the question (after the
// session's previous conversation when Agent Memory is connected, else the request's history);
// the state channels start at their defaults, or — with Agent Memory — where the session's
// previous execution left them (Flowise's checkpointer; here the execution checkpoints in D1).
import { refId } from "../../core/refs";
import { isObject } from "../../agentflow/util";
import { moderated, resolveV1 } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, openingMessages } from "./common";
import { channelsOf } from "./seq-common";

export const seqStartNode: V1NodeDef = {
  name: "seqStart",
  mode: "sequential",
  variableParams: [],
  start: true,
  topLevelOnly: true,
  translate(node, scope) {
    const starts = scope.ofName("seqStart");
    if (starts.length > 1 && starts[0].id === node.id) {
      scope.errors.push(
        `A sequential agent flow has exactly one Start node (seqStart); this one ` +
          `has ${starts.length}: ${starts.map((s) => `${s.data.label} (${s.id})`).join(", ")}`,
      );
    }
    if (!refId(node.data.inputs?.model))
      scope.errors.push(`${node.data.label} (${node.id}) needs a chat model: connect one to its Chat Model input`);
    return { info: { memory: refId(node.data.inputs?.agentMemory) !== undefined, stateNode: scope.stateNode } };
  },
  async run({ node, input: asked, rt }) {
    const { memory, stateNode } = (node as V1Node).data.v1;
    const input = await moderated(node as V1Node, (await resolveV1(node as V1Node, rt, asked)).inputs, asked);
    const { defaults } = channelsOf(stateNode);
    const previous = memory
      ? [...(rt.request.previousExecution ?? [])].reverse().find((e) => isObject(e.data?.state))?.data.state
      : undefined;
    const state = { ...defaults, ...(previous ?? {}) };
    return {
      id: node.id,
      name: node.data.name,
      input: { question: input ?? "" },
      output: { question: input ?? "", ...(memory ? { agentMemory: true } : {}) },
      state,
      chatHistory: openingMessages(rt, input, memory === true),
    };
  },
};
