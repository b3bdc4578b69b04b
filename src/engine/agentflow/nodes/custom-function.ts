// Custom Function: JavaScript in the QuickJS sandbox (the custom tools' time, memory and fetch
// limits; fetch only under the outbound URL policy). It sees `$input` (the user input), `$vars`,
// `$flow` {input, state, chatflowId, sessionId, chatId, …} and `$<name>` per input variable, and
// returns a string or a value (objects become pretty JSON). A throw, a timeout or a syntax error
// fails the node with the sandbox's message.
import { ApiError, fail } from "../../../errors";
import { RunAborted } from "../../../lib/run-control";
import type { AgentflowNodeDef, NodeRuntime } from "../node-types";
import { runForValue, valueText } from "../../core/function-code";
import { errorMessage, listOf } from "../util";
import { ownerOf, stateAfter, streamsAnswer } from "./common";

export async function runFunction(
  code: string,
  input: string | undefined,
  variables: Record<string, unknown>,
  rt: NodeRuntime,
  extraFlow: Record<string, unknown> = {},
): Promise<string> {
  const flow = {
    input: input ?? "",
    state: rt.state,
    chatflowId: rt.request.chatflowId,
    sessionId: rt.request.sessionId,
    chatId: rt.request.chatId,
    ...extraFlow,
  };
  return valueText(
    await runForValue(code, rt.ctx.runtime, { args: { input: input ?? "", ...variables }, vars: rt.request.vars, flow, signal: rt.signal }),
  );
}

export const customFunctionNode: AgentflowNodeDef = {
  name: "customFunctionAgentflow",
  variableParams: ["customFunctionInputVariables", "customFunctionUpdateState"],
  async run(args) {
    const { node, inputs, input, rt } = args;
    const code = typeof inputs.customFunctionJavascriptFunction === "string" ? inputs.customFunctionJavascriptFunction : "";
    if (!code.trim()) throw fail("INVALID_FLOW", `${ownerOf(node)} has no JavaScript function (customFunctionJavascriptFunction)`);
    const rows = listOf<{ variableName?: unknown; variableValue?: unknown }>(inputs.customFunctionInputVariables);
    const variables: Record<string, unknown> = {};
    for (const r of rows) if (typeof r.variableName === "string" && r.variableName) variables[r.variableName] = r.variableValue;
    let content: string;
    try {
      content = await runFunction(code, input, variables, rt);
    } catch (err) {
      if (err instanceof RunAborted || err instanceof ApiError) throw err;
      throw fail("SANDBOX_FAILED", `${ownerOf(node)}: ${errorMessage(err)}`);
    }
    if (streamsAnswer(args)) rt.emit.token(content);
    return {
      id: node.id,
      name: node.data.name,
      input: { inputVariables: rows, code },
      output: { content },
      state: stateAfter(rt.state, inputs.customFunctionUpdateState, content),
    };
  },
};
