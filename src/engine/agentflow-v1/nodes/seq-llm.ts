// seqLLMNode: one model call over the conversation (prompts, history selection, promptValues), with
// the tools of the Tool Nodes it hands to (or gets from) bound, so its tool calls go to them; with
// structured output rows, a forced `extract` call whose object is the output (`$flow.output.key`
// in its state updates) and, as JSON, its message.
import { contentText } from "../../../providers/chat/messages";
import { refId } from "../../core/refs";
import { callChat } from "../../agentflow/model-call";
import { structuredSchema } from "../../agentflow/structured";
import { fromReply } from "../../agentflow/messages";
import { modelOf, ownerOf, resolveV1, toolsOf } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, reasoning, toMessages } from "./common";
import { applyState, said, seqName, seqPrompt, stateUpdates, structuredAnswer, structuredRows } from "./seq-common";

export const seqLLMNode: V1NodeDef = {
  name: "seqLLMNode",
  mode: "sequential",
  variableParams: [],
  translate(node, scope) {
    const neighbours = [...scope.childrenOf(node.id), ...scope.parentsOf(node.id)]
      .map((id) => scope.byId.get(id)!)
      .filter((n) => n.data.name === "seqToolNode");
    const toolRefs = neighbours.flatMap((n) => {
      const tools = n.data.inputs?.tools;
      return (Array.isArray(tools) ? tools : [tools]).map(refId).filter((id): id is string => !!id);
    });
    return { label: seqName(node.data.inputs, node.data.label), info: { toolRefs } };
  },
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs, built } = await resolveV1(v1, rt, input);
    const model = modelOf(v1, inputs);
    const tools = toolsOf((v1.data.v1.toolRefs ?? []).map((id) => built.get(id)));
    const prompt = seqPrompt(v1, inputs, rt, input);
    const messages = toMessages(prompt);
    const schema = structuredSchema(structuredRows(inputs.llmStructuredOutput), owner);

    let content: string;
    let output: Record<string, unknown>;
    let toolCalls: ReturnType<typeof fromReply>["tool_calls"];
    if (schema) {
      output = await structuredAnswer(model, messages, schema, owner, rt.signal);
      content = String(output.content);
    } else {
      const bound = tools.length && typeof model.bindTools === "function" ? model.bindTools(tools) : model;
      const reply = await callChat(bound, messages, rt.signal);
      content = contentText(reply.content);
      toolCalls = fromReply(reply).tool_calls;
      output = { content, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) };
    }
    const updates = await stateUpdates(inputs, rt, input, output, owner);
    const message = { ...said(v1, content), ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) };
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: prompt },
      output: {
        ...output,
        ...reasoning({
          agentName: node.data.label,
          messages: [content],
          usedTools: [],
          sourceDocuments: [],
          state: updates,
          nodeName: "seqLLMNode",
          nodeId: node.id,
        }),
      },
      state: applyState(rt.state, updates, v1.data.v1.channels),
      chatHistory: [message],
    };
  },
};
