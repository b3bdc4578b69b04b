// Execute Flow's port: another chatflow or agentflow of this deployment, run in-process as a JSON
// prediction with the caller's chatId (Flowise makes an HTTP call to its own API instead). The
// owner wired the call into the flow, so the callee's API-key binding is not asked for.
import type { Db, Env } from "../../env";
import type { Runtime } from "../../engine";
import type { FlowCall, FlowCallResult } from "../../engine/agentflow/types";
import type { PredictionInput } from "../../schemas/prediction";
import { agentflowAnswer, executeAgentflow } from "./agentflow";
import { prepareAgentflowRun } from "./agentflow-prepare";
import { runsOnAgentflowRuntime } from "./agentflow-check";
import { executeRun, prepareRun } from "./index";
import { lookUpRun } from "./lookups";

/** The callee stops when the caller does. */
function follow(signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
}

export async function callFlow(db: Db, env: Env, runtime: Runtime, flowId: string, call: FlowCall, signal: AbortSignal): Promise<FlowCallResult> {
  const lookups = lookUpRun(db, env, flowId);
  const [flow, { vars, getCredential }] = await Promise.all([lookups.flow, lookups.prefetched]);
  const input: PredictionInput = { question: call.question, chatId: call.chatId, overrideConfig: call.overrideConfig, streaming: false };
  if (runsOnAgentflowRuntime(flow.type)) {
    const run = await prepareAgentflowRun(db, env, runtime, flow, input, [], { vars, getCredential }, call.callStack);
    follow(signal, run.controller);
    const answer = agentflowAnswer(run, await executeAgentflow(run));
    return { text: answer.text, sourceDocuments: answer.sourceDocuments, usedTools: answer.usedTools };
  }
  const run = await prepareRun(db, env, runtime, flow, input, [], { vars, getCredential });
  follow(signal, run.controller);
  const { result } = await executeRun(run, env.FILES);
  return { text: result.text, json: result.json, sourceDocuments: result.sourceDocuments, usedTools: result.usedTools };
}
