// The JSON answers of a run, by kind: a chatflow's (API.md "Prediction"), an agentflow's
// (AGENTFLOW.md §9, plus sourceDocuments and usedTools), and a V1 multi-agent flow's.
import { stripCredentialIds } from "../../engine/agentflow";
import type { AgentflowDone } from "./agentflow";
import type { AgentflowRun } from "./agentflow-start";
import type { ChatflowDone, ChatflowRun } from "./chatflow";

export function chatflowAnswer(run: ChatflowRun, done: ChatflowDone) {
  return {
    text: done.result.text,
    json: done.result.json ?? null,
    question: run.input.question ?? "",
    chatId: run.ctx.chatId,
    chatMessageId: done.chatMessageId,
    sessionId: run.ctx.sessionId,
    memoryType: done.result.memoryType,
    sourceDocuments: done.result.sourceDocuments ?? [],
    usedTools: done.result.usedTools ?? [],
    isStreamValid: run.streamable,
    // Flowise's answer names artifacts only when a tool made some (its Tool Agent's result).
    ...(done.result.artifacts?.length ? { artifacts: done.result.artifacts } : {}),
    ...(done.result.flowVariables ? { flowVariables: done.result.flowVariables } : {}),
    ...followUpsOf(done),
  };
}

/**
 * The follow-up questions as Flowise's JSON answer gives them: the stored JSON text encoded once
 * more (`JSON.stringify(apiMessage.followUpPrompts)`), so a client JSON.parses it twice (the
 * studio's test chat and Flowise's SDK users do); absent when there are none.
 */
const followUpsOf = (done: { followUpPrompts?: string }) =>
  done.followUpPrompts ? { followUpPrompts: JSON.stringify(done.followUpPrompts) } : {};

export function agentflowAnswer(run: AgentflowRun, done: AgentflowDone) {
  const { outcome } = done;
  if (outcome.agentReasoning) return multiagentAnswer(run, done);
  const form = run.input.form && Object.keys(run.input.form).length ? run.input.form : undefined;
  return {
    text: outcome.text,
    ...(form ? { form } : { question: run.input.question ?? "" }),
    chatId: run.ctx.chatId,
    chatMessageId: done.chatMessageId,
    executionId: run.execution.run.id,
    agentFlowExecutedData: stripCredentialIds(outcome.executedData),
    ...(outcome.state === "STOPPED" && outcome.action ? { action: outcome.action } : {}),
    sessionId: run.ctx.sessionId,
    sourceDocuments: outcome.sourceDocuments ?? [],
    usedTools: outcome.usedTools ?? [],
    ...followUpsOf(done),
  };
}

/** A V1 flow's JSON answer: Flowise's V1 fields (agentReasoning, the V1 action), and the executionId a resume may name. */
function multiagentAnswer(run: AgentflowRun, done: AgentflowDone) {
  const { outcome, chatMessageId } = done;
  return {
    text: outcome.text,
    question: run.input.question ?? "",
    chatId: run.ctx.chatId,
    chatMessageId,
    executionId: run.execution.run.id,
    sessionId: run.ctx.sessionId,
    agentReasoning: outcome.agentReasoning ?? [],
    ...(outcome.state === "STOPPED" && outcome.v1Action ? { action: outcome.v1Action } : {}),
    sourceDocuments: outcome.sourceDocuments ?? [],
    usedTools: outcome.usedTools ?? [],
    ...followUpsOf(done),
  };
}

/** The JSON answer of any run. */
export type RunAnswer = ReturnType<typeof chatflowAnswer> | ReturnType<typeof agentflowAnswer>;
