// Execute Flow: runs another chatflow or agentflow of this deployment in-process (the `runFlow`
// port, JSON answer) with the same chatId, the resolved input as its question and the override
// config. Calling itself, or a flow already on the call stack (a cycle), is refused.
import { fail } from "../../../errors";
import { outsideRun } from "../../tools/nested";
import type { AgentflowNodeDef } from "../node-types";
import { historyName, isObject, nonBlank } from "../util";
import { ownerOf, stateAfter, streamsAnswer } from "./common";

function overrideConfigOf(raw: unknown, owner: string): Record<string, unknown> | undefined {
  if (isObject(raw)) return raw;
  if (typeof raw !== "string" || !raw.trim()) return undefined;
  try {
    const parsed = JSON.parse(raw);
    if (isObject(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw fail("INVALID_FLOW", `${owner}: its override config (executeFlowOverrideConfig) is not a JSON object`);
}

export const executeFlowNode: AgentflowNodeDef = {
  name: "executeFlowAgentflow",
  variableParams: ["executeFlowInput", "executeFlowOverrideConfig", "executeFlowUpdateState"],
  async run(args) {
    const { node, inputs, rt } = args;
    const owner = ownerOf(node);
    const flowId = nonBlank(inputs.executeFlowSelectedFlow)?.trim();
    if (!flowId) throw fail("INVALID_FLOW", `${owner} needs a flow to run (executeFlowSelectedFlow)`);
    const here = rt.request.chatflowId;
    const stack = [...(rt.request.callStack ?? []), here];
    if (flowId === here) throw fail("INVALID_FLOW", `${owner}: a flow cannot execute itself (${flowId})`);
    if (stack.includes(flowId))
      throw fail("INVALID_FLOW", `${owner}: executing ${flowId} would make a cycle (${[...stack, flowId].join(" → ")})`);
    const question = typeof inputs.executeFlowInput === "string" ? inputs.executeFlowInput : String(inputs.executeFlowInput ?? "");
    const overrideConfig = overrideConfigOf(inputs.executeFlowOverrideConfig, owner);

    // The callee is a run of its own, traced by its own settings (Flowise calls it over HTTP): the
    // caller's trace shows this node, not the callee's calls.
    const call = { question, chatId: rt.request.chatId, overrideConfig, callStack: stack };
    const answer = await outsideRun(() => rt.ports.runFlow(flowId, call));
    const content = answer.text
      ? answer.text
      : answer.json !== undefined && answer.json !== null
        ? `\`\`\`json\n${JSON.stringify(answer.json, null, 2)}`
        : JSON.stringify(answer, null, 2);
    const sourceDocuments = answer.sourceDocuments ?? [];
    const usedTools = answer.usedTools ?? [];
    const artifacts = answer.artifacts ?? [];
    if (streamsAnswer(args)) {
      rt.emit.token(content);
      if (sourceDocuments.length) rt.emit.event("sourceDocuments", sourceDocuments);
      if (usedTools.length) rt.emit.event("usedTools", usedTools);
      if (artifacts.length) rt.emit.event("artifacts", artifacts);
    }
    const role = inputs.executeFlowReturnResponseAs === "assistantMessage" ? "assistant" : "user";
    return {
      id: node.id,
      name: node.data.name,
      input: { messages: [{ role: "user", content: question }] },
      output: {
        content,
        ...(sourceDocuments.length ? { sourceDocuments } : {}),
        ...(usedTools.length ? { usedTools } : {}),
        ...(artifacts.length ? { artifacts } : {}),
      },
      state: stateAfter(rt.state, inputs.executeFlowUpdateState, content),
      chatHistory: [
        ...(rt.runtimeChatHistory.length ? [] : [{ role: "user" as const, content: question }]),
        {
          role,
          content,
          name: historyName(node.data.label, node.id),
          ...(usedTools.length || artifacts.length
            ? { additional_kwargs: { ...(usedTools.length ? { usedTools } : {}), ...(artifacts.length ? { artifacts } : {}) } }
            : {}),
        },
      ],
    };
  },
};
