// seqToolNode: runs the tool calls of the model message before it (an LLM Node's). With
// `interrupt` (Require Approval) it pauses first: Flowise's approval question and a V1 action;
// humanInput proceed runs the calls, reject answers each call as rejected (with the feedback) and
// the flow goes on. A message without tool calls ends the flow here (Flowise routes it to END):
// branch 0 is the Tool Node's next nodes, branch 1 leads nowhere.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { RunAborted } from "../../../lib/run-control";
import { contentText } from "../../../providers/chat/messages";
import type { UsedTool } from "../../core/types";
import { MAX_TOOL_OUTPUT_CHARS } from "../../agentflow/agent-loop";
import type { AgentflowMessage } from "../../agentflow/types";
import { bool, errorMessage, nonBlank } from "../../agentflow/util";
import { modelOf, ownerOf, resolveV1, toolsOf } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, carried, reasoning } from "./common";
import { applyState, approvalMessage, seqName, stateUpdates, thisTurn } from "./seq-common";

const text = (out: unknown) =>
  typeof out === "string"
    ? out
    : out && typeof out === "object" && "content" in out
      ? contentText((out as { content: unknown }).content)
      : JSON.stringify(out ?? "");

async function invoke(
  tool: StructuredToolInterface | undefined,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ output: string; error?: string }> {
  if (!tool) return { output: `Error: there is no tool named "${name}"`, error: `there is no tool named "${name}"` };
  try {
    return { output: text(await tool.invoke(args, { signal })).slice(0, MAX_TOOL_OUTPUT_CHARS) };
  } catch (err) {
    if (signal.aborted) throw new RunAborted();
    const error = errorMessage(err);
    return { output: `Error: ${error}`, error };
  }
}

export const seqToolNode: V1NodeDef = {
  name: "seqToolNode",
  mode: "sequential",
  variableParams: [],
  branches: () => 2,
  pauses: (result) => result?.output?.isWaitingForHumanInput === true,
  translate: (node, scope) => ({
    label: seqName(node.data.inputs, node.data.label),
    handles: new Map(scope.edgesFrom(node.id).map((e) => [e, `${node.id}-output-0`])),
  }),
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const calls = [...thisTurn(rt.runtimeChatHistory)].reverse().find((m) => m.role === "assistant")?.tool_calls ?? [];
    const ends = [{ isFulfilled: false }, { isFulfilled: true }];
    const goesOn = [{ isFulfilled: true }, { isFulfilled: false }];
    if (!calls.length)
      return { id: node.id, name: node.data.name, input: { toolCalls: [] }, output: { content: "", conditions: ends }, state: rt.state };

    const { inputs, found } = await resolveV1(v1, rt, input);
    const pending = calls.map((c) => ({ tool: c.name, toolInput: c.args, toolOutput: "" }));
    if (bool(inputs.interrupt) && !rt.humanInput) {
      const question = await approvalMessage(modelOf(v1, inputs), inputs.approvalPrompt, pending, rt.signal);
      return {
        id: node.id,
        name: node.data.name,
        input: { toolCalls: calls },
        output: {
          content: question,
          isWaitingForHumanInput: true,
          conditions: ends,
          usedTools: pending,
          v1Action: {
            approve: nonBlank(inputs.approveButtonText) ?? "Yes",
            reject: nonBlank(inputs.rejectButtonText) ?? "No",
            toolCalls: calls,
          },
          ...reasoning({
            agentName: node.data.label,
            messages: [question],
            usedTools: pending,
            sourceDocuments: [],
            state: {},
            nodeName: "seqToolNode",
            nodeId: node.id,
          }),
        },
        state: rt.state,
      };
    }
    const tools = new Map(toolsOf(inputs.tools).map((t) => [t.name, t]));
    const rejected = rt.humanInput?.type === "reject";
    const usedTools: UsedTool[] = [];
    const replies: AgentflowMessage[] = [];
    for (const call of calls) {
      const { output, error } = rejected
        ? {
            output: `The user rejected this call to ${call.name}.${rt.humanInput?.feedback ? ` Feedback: ${rt.humanInput.feedback}` : ""}`,
            error: undefined,
          }
        : await invoke(tools.get(call.name), call.name, call.args, rt.signal);
      if (!rejected)
        usedTools.push({ tool: call.name, toolInput: call.args, toolOutput: error ? "" : output, ...(error ? { error } : {}) } as UsedTool);
      replies.push({ role: "tool", content: output, tool_call_id: call.id, name: call.name, additional_kwargs: { nodeId: node.id } });
    }
    const contents = replies.map((r) => r.content);
    const updates = await stateUpdates(inputs, rt, input, { content: contents.join("\n"), usedTools, sourceDocuments: found }, owner);
    return {
      id: node.id,
      name: node.data.name,
      input: { toolCalls: calls },
      output: {
        content: contents.join("\n"),
        conditions: goesOn,
        ...carried(usedTools, found),
        ...reasoning({
          agentName: node.data.label,
          messages: contents,
          usedTools,
          sourceDocuments: found,
          state: updates,
          nodeName: "seqToolNode",
          nodeId: node.id,
        }),
      },
      state: applyState(rt.state, updates, v1.data.v1.channels),
      chatHistory: replies,
    };
  },
};
