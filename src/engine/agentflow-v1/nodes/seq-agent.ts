// seqAgent: a chat model with tools over the conversation (system prompt, history selection, human
// prompt, promptValues), the agentflow tool loop (maxIterations). With `interrupt` (Require
// Approval) every tool call pauses the run first: the answer is Flowise's approval question and a
// V1 action; humanInput proceed runs the calls, reject drops them and the agent answers without.
import { fail } from "../../../errors";
import { maxIterationsOf, runToolLoop } from "../../agentflow/agent-loop";
import type { AgentflowMessage, HumanInput } from "../../agentflow/types";
import { bool, nonBlank, num } from "../../agentflow/util";
import { modelOf, ownerOf, resolveV1, toolsOf } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, agentTools, carried, reasoning } from "./common";
import { applyState, approvalMessage, said, seqPrompt, seqTranslate, stateUpdates } from "./seq-common";

function resumeOf(humanInput: HumanInput | undefined, checkpoint: unknown, owner: string) {
  if (!humanInput) return undefined;
  if (humanInput.type !== "proceed" && humanInput.type !== "reject")
    throw fail("INVALID_INPUT", `${owner}: humanInput.type must be "proceed" or "reject"`);
  return { humanInput, checkpoint: Array.isArray(checkpoint) ? (checkpoint as AgentflowMessage[]) : [] };
}

export const seqAgentNode: V1NodeDef = {
  name: "seqAgent",
  mode: "sequential",
  variableParams: [],
  pauses: (result) => result?.output?.isWaitingForHumanInput === true,
  translate: seqTranslate,
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs, found } = await resolveV1(v1, rt, input);
    const model = modelOf(v1, inputs);
    const tools = agentTools(toolsOf(inputs.tools), bool(inputs.interrupt));
    const maxIterations = maxIterationsOf(num(inputs.maxIterations));

    const resume = resumeOf(rt.humanInput, rt.humanInputAction?.data?.input?.messages, owner);
    const messages = resume ? [] : seqPrompt(v1, inputs, rt, input);
    const loop = await runToolLoop({ model, tools, messages, maxIterations, live: false, rt }, resume);

    if (loop.waitingForHumanInput) {
      const calls = (loop.messages.at(-1)?.tool_calls ?? []).map((c) => ({ tool: c.name, toolInput: c.args, toolOutput: "" }));
      const question = await approvalMessage(model, inputs.approvalPrompt, calls, rt.signal);
      return {
        id: node.id,
        name: node.data.name,
        input: { messages: loop.messages },
        output: {
          content: question,
          isWaitingForHumanInput: true,
          v1Action: {
            approve: nonBlank(inputs.approveButtonText) ?? "Yes",
            reject: nonBlank(inputs.rejectButtonText) ?? "No",
            toolCalls: loop.messages.at(-1)?.tool_calls ?? [],
          },
          usedTools: calls,
          ...reasoning({
            agentName: node.data.label,
            messages: [question],
            usedTools: calls,
            sourceDocuments: [],
            state: {},
            nodeName: "seqAgent",
            nodeId: node.id,
          }),
        },
        state: rt.state,
      };
    }
    const content = loop.content;
    const updates = await stateUpdates(inputs, rt, input, { content, usedTools: loop.usedTools, sourceDocuments: found }, owner);
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: loop.messages },
      output: {
        content,
        ...carried(loop.usedTools, found),
        ...reasoning({
          agentName: node.data.label,
          messages: [content],
          usedTools: loop.usedTools,
          sourceDocuments: found,
          state: updates,
          nodeName: "seqAgent",
          nodeId: node.id,
        }),
      },
      state: applyState(rt.state, updates, v1.data.v1.channels),
      chatHistory: [said(v1, content, carried(loop.usedTools, found))],
    };
  },
};
