// Execute Flow's port (AgentflowPorts.runFlow): another chatflow or agentflow of this deployment,
// run in-process through the door as a JSON answer with the caller's chatId (Flowise makes an HTTP
// call to its own API instead). The `execute-flow` trigger skips the callee's API-key binding,
// origins and rate limit: the owner wired the call into the flow. The door is handed in, so this
// module does not import it (no cycle).
import type { FlowCall, FlowCallResult } from "../../engine/agentflow/types";
import type { FlowCaller } from "./agentflow-start";
import type { Delivered } from "./deliver";
import type { RunRequest } from "./types";

export function flowCaller(door: (request: RunRequest) => Promise<Delivered>): FlowCaller {
  return async (flowId: string, call: FlowCall, signal: AbortSignal): Promise<FlowCallResult> => {
    const delivered = await door({
      trigger: "execute-flow",
      flowId,
      input: { question: call.question, chatId: call.chatId, overrideConfig: call.overrideConfig },
      delivery: "json",
      signal, // the callee stops when the caller does
      callStack: call.callStack,
    });
    if (delivered.kind !== "json") throw new Error("Execute Flow asked for a JSON answer");
    const answer = delivered.body;
    const json = "json" in answer && answer.json !== null ? answer.json : undefined;
    const artifacts = "artifacts" in answer ? answer.artifacts : undefined;
    return { text: answer.text, json, sourceDocuments: answer.sourceDocuments, usedTools: answer.usedTools, artifacts };
  };
}
