// ChatflowTool and agentAsTool: another flow of this deployment (a chatflow or an agentflow) as a
// tool. The call goes through the run door in-process (the run's `flows` port, Agentflow's Execute
// Flow door), not over HTTP as Flowise does, so Base URL and the API-key credential are not used.
// The callee runs with the caller's chatId and (overrideConfig) sessionId — new ones per call with
// startNewSession — stores its exchange under its own flow, and its answer text is the tool's
// result. A flow calling itself, or a flow already on the call stack, is refused when the tool is
// built (a 400 for that run); a refused or failing callee is a failing tool call.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { bool, isObject, str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { toolName } from "./names";
import { outsideRun } from "./nested";
import type { ToolDeps } from "./types";

interface FlowToolKind {
  /** The input naming the flow to call. */
  input: "selectedChatflow" | "selectedAgentflow";
  what: "chatflow" | "agentflow";
  defaultName: string;
}

function overrideConfigOf(raw: unknown, label: string): Record<string, unknown> {
  if (isObject(raw)) return raw;
  if (typeof raw !== "string" || !raw.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isObject(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw fail("INVALID_FLOW", `${label}: its Override Config is not a JSON object`);
}

/** The flows from the first caller to this run, this run's flow last: a callee on it is a cycle. */
const stackOf = (ctx: RunContext): string[] => [...(ctx.flows?.callStack ?? []), ctx.chatflowid];

function flowTool(kind: FlowToolKind) {
  return async (inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<DynamicStructuredTool> => {
    const flowId = str(inputs[kind.input])?.trim();
    if (!flowId) throw fail("INVALID_FLOW", `${label} needs a ${kind.what} to call (${kind.input})`);
    const stack = stackOf(ctx);
    if (flowId === ctx.chatflowid) throw fail("INVALID_FLOW", `${label}: Cannot call the same ${kind.what}! (${flowId})`);
    if (stack.includes(flowId))
      throw fail("INVALID_FLOW", `${label}: calling ${flowId} would make a cycle (${[...stack, flowId].join(" → ")})`);
    const description = str(inputs.description);
    if (!description) throw fail("INVALID_FLOW", `${label} needs a description (the model reads it to decide when to use the tool)`);
    const overrideConfig = overrideConfigOf(inputs.overrideConfig, label);
    const fixedInput = bool(inputs.useQuestionFromChat) ? ctx.question : (str(inputs.customInput) ?? "");
    const newSession = bool(inputs.startNewSession);

    return new DynamicStructuredTool({
      name: toolName(str(inputs.name) ?? kind.defaultName),
      description,
      returnDirect: bool(inputs.returnDirect),
      schema: z.object({ input: z.string().describe("input question") }),
      func: async ({ input }) => {
        if (!ctx.flows) throw new Error(`${label}: calling another flow is not available here`);
        const chatId = newSession ? crypto.randomUUID() : ctx.chatId;
        const sessionId = newSession ? crypto.randomUUID() : ctx.sessionId;
        // The callee is a run of its own, as Flowise's HTTP call makes it: traced by its own analytic, if any;
        // the caller's trace shows this tool call (question, answer), not the callee's calls.
        const flows = ctx.flows;
        const call = { question: fixedInput || input, chatId, overrideConfig: { sessionId, ...overrideConfig }, callStack: stack };
        const answer = await outsideRun(() => flows.run(flowId, call));
        if (answer.text) return answer.text;
        return answer.json !== undefined && answer.json !== null ? JSON.stringify(answer.json) : "";
      },
    });
  };
}

export const chatflowTool = flowTool({ input: "selectedChatflow", what: "chatflow", defaultName: "chatflow_tool" });
export const agentAsTool = flowTool({ input: "selectedAgentflow", what: "agentflow", defaultName: "agentflow_tool" });
