// The end of a run: the execution's final state, the last checkpoint, the closing frames, and
// what the caller answers and stores (AGENTFLOW.md §4.9, §9).
import { RunAborted } from "../../lib/run-control";
import type { SourceDocument, UsedTool } from "../core/types";
import type { NodeFailure, AgentflowExecutor } from "./executor";
import type { AgentflowOutcome, ExecutedData, ExecutionState, HumanInputAction } from "./types";
import { codeOf, errorMessage, isObject } from "./util";

/** TERMINATED if any entry is, else ERROR, else STOPPED, else FINISHED. */
function finalState(data: ExecutedData[]): ExecutionState {
  for (const s of ["TERMINATED", "ERROR", "STOPPED"] as const) if (data.some((e) => e.status === s)) return s;
  return "FINISHED";
}

const listIn = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function outcomeOf(run: AgentflowExecutor, state: ExecutionState): AgentflowOutcome {
  const output = run.executedData.at(-1)?.data?.output;
  const content = output?.content;
  return {
    text: typeof content === "string" ? content : content === undefined || content === null ? " " : JSON.stringify(content),
    state,
    executedData: run.executedData,
    ...(state === "STOPPED" && isObject(output?.humanInputAction)
      ? { action: output.humanInputAction as unknown as HumanInputAction }
      : {}),
    sourceDocuments: listIn(output?.sourceDocuments) as SourceDocument[],
    usedTools: listIn(output?.usedTools) as UsedTool[],
    artifacts: listIn(output?.artifacts),
    ...(Object.keys(run.form).length ? { form: run.form } : {}),
  };
}

export async function finished(run: AgentflowExecutor): Promise<AgentflowOutcome> {
  const state = finalState(run.executedData);
  await run.shared.ports.checkpoint(run.executedData, state);
  run.shared.events.flow(state);
  const outcome = outcomeOf(run, state);
  return run.shared.request.postProcessing ? { ...outcome, text: await postProcessed(run, outcome) } : outcome;
}

/** The chatbot's post-processing function over the final text; its failure keeps the text (as Flowise). */
async function postProcessed(run: AgentflowExecutor, outcome: AgentflowOutcome): Promise<string> {
  const { request, ports, input } = run.shared;
  const output = run.executedData.at(-1)?.data?.output ?? {};
  const flow = {
    input: input ?? "",
    state: run.state,
    chatflowId: request.chatflowId,
    sessionId: request.sessionId,
    chatId: request.chatId,
    rawOutput: outcome.text,
    chatHistory: [...run.pastChatHistory, ...run.runtimeChatHistory],
    sourceDocuments: output.sourceDocuments,
    usedTools: output.usedTools,
    artifacts: output.artifacts,
    fileAnnotations: output.fileAnnotations,
  };
  try {
    const text = await ports.ctx.runtime.code.run(request.postProcessing!, {
      args: { input: input ?? "" },
      vars: request.vars,
      flow,
      signal: ports.ctx.signal,
    });
    return text;
  } catch {
    return outcome.text;
  }
}

/** A node failed or the run was stopped: an ERROR / TERMINATED entry for it, stored and streamed. */
export async function failed(run: AgentflowExecutor, failure: NodeFailure): Promise<AgentflowOutcome> {
  // Stopped from outside (client gone, abort route), or a node saw the abort first.
  const status = run.shared.ports.ctx.signal?.aborted || failure.cause instanceof RunAborted ? "TERMINATED" : "ERROR";
  const message = status === "TERMINATED" ? "Flow execution was cancelled" : errorMessage(failure.cause);
  const { node } = failure;
  run.executedData.push({
    nodeId: node.id,
    nodeLabel: node.data.label,
    previousNodeIds: run.map.parentsOf(node.id),
    data: { id: node.id, name: node.data.name, error: message },
    status,
  });
  const { events } = run.shared;
  events.node(node.id, node.data.label, status, status === "TERMINATED" ? undefined : message);
  events.executedData(run.executedData);
  await run.shared.ports.checkpoint(run.executedData, status);
  events.flow(status);
  return { ...outcomeOf(run, status), text: "", error: message, errorCode: status === "TERMINATED" ? "ABORTED" : codeOf(failure.cause) };
}

/** A copy of executed data without `FLOWISE_CREDENTIAL_ID` keys (what answers and public views show). */
export function stripCredentialIds(data: ExecutedData[]): ExecutedData[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isObject(v)) return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "FLOWISE_CREDENTIAL_ID")
        .map(([k, x]) => [k, strip(x)]),
    );
  };
  return strip(data) as ExecutedData[];
}
