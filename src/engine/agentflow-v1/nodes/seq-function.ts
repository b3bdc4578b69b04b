// seqCustomFunction and seqExecuteFlow: JavaScript in the QuickJS sandbox (input variables as
// `$name`, `$flow.state`), or another flow of this deployment through the runFlow port (the call
// stack refuses cycles). Either answer joins the conversation as an AI or human message, or —
// returned as a state object — updates the state.
import { fail } from "../../../errors";
import { ApiError } from "../../../errors";
import { RunAborted } from "../../../lib/run-control";
import { runFunction } from "../../agentflow/nodes/custom-function";
import type { NodeResultData } from "../../agentflow/types";
import { errorMessage, isObject, nonBlank } from "../../agentflow/util";
import { ownerOf, resolveV1 } from "../components";
import type { V1Node } from "../types";
import { type V1NodeDef, promptValuesOf, reasoning } from "./common";
import { applyState, flowOf, flowValue, said, seqTranslate } from "./seq-common";

/** The node's answer as returnValueAs says: a message (AI by default, or human), or state updates. */
function answered(
  v1: V1Node,
  content: string,
  as: unknown,
  state: Record<string, unknown>,
  owner: string,
): Pick<NodeResultData, "state" | "chatHistory"> & { updates: Record<string, unknown> } {
  if (as === "stateObj") {
    let updates: unknown;
    try {
      updates = JSON.parse(content);
    } catch {
      updates = undefined;
    }
    if (!isObject(updates)) throw fail("SANDBOX_FAILED", `${owner}: it returns a state object, but its answer is not a JSON object`);
    return { updates, state: applyState(state, updates, v1.data.v1.channels) };
  }
  const message = as === "humanMessage" ? { ...said(v1, content), role: "user" as const } : said(v1, content);
  return { updates: {}, state, chatHistory: [message] };
}

export const seqCustomFunctionNode: V1NodeDef = {
  name: "seqCustomFunction",
  mode: "sequential",
  variableParams: [],
  translate: seqTranslate,
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs } = await resolveV1(v1, rt, input);
    const code = nonBlank(inputs.javascriptFunction);
    if (!code) throw fail("INVALID_FLOW", `${owner} has no JavaScript function`);
    const flow = flowOf(rt, input);
    const variables = Object.fromEntries(
      Object.entries(promptValuesOf(inputs.functionInputVariables)).map(([k, v]) => [k, flowValue(v, flow)]),
    );
    let content: string;
    try {
      content = await runFunction(code, input, variables, rt);
    } catch (err) {
      if (err instanceof RunAborted || err instanceof ApiError) throw err;
      throw fail("SANDBOX_FAILED", `${owner}: ${errorMessage(err)}`);
    }
    const { updates, ...rest } = answered(v1, content, inputs.returnValueAs, rt.state, owner);
    return {
      id: node.id,
      name: node.data.name,
      input: { code, variables },
      output: {
        content,
        ...reasoning({ agentName: node.data.label, messages: [content], state: updates, nodeName: "seqCustomFunction", nodeId: node.id }),
      },
      ...rest,
    };
  },
};

export const seqExecuteFlowNode: V1NodeDef = {
  name: "seqExecuteFlow",
  mode: "sequential",
  variableParams: [],
  translate: seqTranslate,
  async run({ node, input, rt }) {
    const v1 = node as V1Node;
    const owner = ownerOf(node);
    const { inputs } = await resolveV1(v1, rt, input);
    const flowId = nonBlank(inputs.selectedFlow)?.trim();
    if (!flowId) throw fail("INVALID_FLOW", `${owner} needs a flow to run (selectedFlow)`);
    const stack = [...(rt.request.callStack ?? []), rt.request.chatflowId];
    if (stack.includes(flowId))
      throw fail("INVALID_FLOW", `${owner}: executing ${flowId} would make a cycle (${[...stack, flowId].join(" → ")})`);
    const asked = inputs.seqExecuteFlowInput;
    const question =
      asked === "userQuestion" || asked === undefined || asked === "" ? (input ?? "") : String(flowValue(asked, flowOf(rt, input)) ?? "");
    const overrideConfig = promptValuesOf(inputs.overrideConfig);
    const chatId = inputs.startNewSession === true || inputs.startNewSession === "true" ? crypto.randomUUID() : rt.request.chatId;
    const answer = await rt.ports.runFlow(flowId, { question, chatId, overrideConfig, callStack: stack });
    const content = answer.text || JSON.stringify(answer.json ?? "");
    const { updates, ...rest } = answered(v1, content, inputs.returnValueAs, rt.state, owner);
    const usedTools = answer.usedTools ?? [];
    const sourceDocuments = answer.sourceDocuments ?? [];
    return {
      id: node.id,
      name: node.data.name,
      input: { question, flowId },
      output: {
        content,
        ...reasoning({
          agentName: node.data.label,
          messages: [content],
          usedTools,
          sourceDocuments,
          state: updates,
          nodeName: "seqExecuteFlow",
          nodeId: node.id,
        }),
      },
      ...rest,
    };
  },
};
