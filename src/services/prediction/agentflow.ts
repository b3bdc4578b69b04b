// Runs a prepared agentflow (agentflow-prepare.ts) through the runtime, checkpointing every node
// into its execution row, and stores the outcome: on success or pause the final state and the two
// messages in one batch; on failure only the execution (ERROR, TERMINATED, TIMEOUT past the run's
// time limit), no messages. HTTP-free.
import { ApiError } from "../../errors";
import { redactError } from "../../lib/redact";
import { runAgentflow, stripCredentialIds } from "../../engine/agentflow";
import { type V1Outcome, runMultiagent } from "../../engine/agentflow-v1";
import type { AgentflowEvents, AgentflowOutcome, AgentflowPorts } from "../../engine/agentflow/types";
import { callFlow } from "./agentflow-calls";
import { exchangeStatements } from "./agentflow-messages";
import type { AgentflowRun } from "./agentflow-prepare";
import { stoppedRunError, untilAborted } from "./time-limit";
import { type StoredUpload, removeUploads, storeUploads } from "./uploads";

export const NO_EVENTS: AgentflowEvents = { event: () => undefined };

/** A V1 (MULTIAGENT) run's outcome carries agentReasoning and its V1 action too. */
export type RunOutcome = AgentflowOutcome & Partial<Pick<V1Outcome, "agentReasoning" | "v1Action">>;

export interface AgentflowDone {
  outcome: RunOutcome;
  chatMessageId: string;
}

/** How a stopped run's execution ends: TIMEOUT past its time limit (RUN_TIMEOUT_MS), else TERMINATED. */
const stoppedState = (signal: AbortSignal) => (stoppedRunError(signal).status === 504 ? "TIMEOUT" : "TERMINATED");

/** What the user sent, as the stored user message says it. */
function userContent(run: AgentflowRun): string {
  const { input } = run;
  if (input.form && Object.keys(input.form).length) {
    return Object.entries(input.form).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("\n");
  }
  return input.question || run.request.resume?.humanInput.feedback || " ";
}

function portsOf(run: AgentflowRun, events: AgentflowEvents): AgentflowPorts {
  const { ctx } = run;
  return {
    ctx,
    pastChatHistory: async () => run.pastHistory,
    checkpoint: (data, state) => run.recorder.checkpoint(data, state === "TERMINATED" && ctx.signal.aborted ? stoppedState(ctx.signal) : state),
    events,
    runFlow: (flowId, call) => callFlow(run.db, run.env, ctx.runtime, flowId, call, ctx.signal),
  };
}

/**
 * The run's abort, a moment late: long enough for the runtime to record how the run stopped (its
 * TERMINATED entry and frames), not so long that a node ignoring the abort holds the answer.
 */
function graceAfter(signal: AbortSignal, ms = 1000): AbortSignal {
  const late = new AbortController();
  signal.addEventListener("abort", () => setTimeout(() => late.abort(signal.reason), ms), { once: true });
  return late.signal;
}

/** The error a failed outcome answers: the lost row first (409), then a stop (499, or 504 past the time limit), then the runtime's own. */
function failure(run: AgentflowRun, outcome: AgentflowOutcome): ApiError {
  if (run.recorder.lost) return new ApiError(409, run.recorder.lost);
  const { signal } = run.controller;
  if (outcome.state === "TERMINATED" || signal.aborted) return stoppedRunError(signal);
  return new ApiError(outcome.errorStatus ?? 500, outcome.error ?? `The agentflow ended ${outcome.state}`);
}

export async function executeAgentflow(run: AgentflowRun, events: AgentflowEvents = NO_EVENTS): Promise<AgentflowDone> {
  const { recorder, ctx } = run;
  const { signal } = run.controller;
  const stopLease = recorder.keepAlive(run.env, (reason) => run.controller.abort(new Error(reason)));
  try {
    let outcome: RunOutcome;
    const runner = run.flow.type === "MULTIAGENT" ? runMultiagent : runAgentflow;
    try {
      // A node busy past the time limit does not hold the answer: the run is given up soon after the abort.
      outcome = await untilAborted(runner(run.graph, run.request, portsOf(run, events)), graceAfter(signal));
    } catch (err) {
      // Refused before its first node: a claimed pause is given back untouched.
      const stopped = signal.aborted;
      if (!recorder.started) await run.releaseClaim?.();
      else await recorder.abandon(stopped ? stoppedState(signal) : "ERROR");
      if (recorder.lost) throw new ApiError(409, recorder.lost);
      throw stopped ? stoppedRunError(signal) : err;
    }
    if (outcome.state !== "FINISHED" && outcome.state !== "STOPPED") {
      await recorder.settled();
      throw failure(run, outcome);
    }
    await recorder.ready();
    let fileUploads: StoredUpload[] | undefined;
    try {
      fileUploads = run.uploads.length ? await storeUploads(run.env.FILES, run.flow.id, ctx.chatId, run.uploads) : undefined;
      const action = outcome.state === "STOPPED" ? (outcome.v1Action ?? outcome.action) : undefined;
      const { statement, guard } = recorder.finish(outcome.executedData, outcome.state, action);
      const [[written]] = await Promise.all([run.db.batch([statement, ...exchangeStatements(run.db, {
        chatflowid: run.flow.id, chatId: ctx.chatId, sessionId: ctx.sessionId, executionId: recorder.run.id,
        userContent: userContent(run), startedAt: run.startedAt, answer: outcome.text, fileUploads,
        leadEmail: run.input.leadEmail, sourceDocuments: outcome.sourceDocuments, usedTools: outcome.usedTools,
        artifacts: outcome.artifacts, action, agentReasoning: outcome.agentReasoning,
        resumed: !!run.request.resume, chatType: run.chatType,
      }, run.apiMessageId, guard)]), recorder.drain()]);
      await recorder.confirm(written as unknown[]);
    } catch (err) {
      // Nothing names the uploads then: they must not linger.
      await Promise.all([recorder.abandon(), removeUploads(run.env.FILES, run.flow.id, ctx.chatId, fileUploads)]);
      throw err;
    }
    return { outcome, chatMessageId: run.apiMessageId };
  } catch (err) {
    throw redactError(err, run.secrets); // the last scrub before an error leaves (JSON body or stream frame)
  } finally {
    stopLease();
    run.release();
  }
}

/** The JSON answer (AGENTFLOW.md §9, plus sourceDocuments and usedTools as API.md lists them). */
export function agentflowAnswer(run: AgentflowRun, done: AgentflowDone) {
  const { outcome } = done;
  if (outcome.agentReasoning) return multiagentAnswer(run, done);
  const form = run.input.form && Object.keys(run.input.form).length ? run.input.form : undefined;
  return {
    text: outcome.text,
    ...(form ? { form } : { question: run.input.question ?? "" }),
    chatId: run.ctx.chatId,
    chatMessageId: done.chatMessageId,
    executionId: run.recorder.run.id,
    agentFlowExecutedData: stripCredentialIds(outcome.executedData),
    ...(outcome.state === "STOPPED" && outcome.action ? { action: outcome.action } : {}),
    sessionId: run.ctx.sessionId,
    sourceDocuments: outcome.sourceDocuments ?? [],
    usedTools: outcome.usedTools ?? [],
  };
}

/** A V1 flow's JSON answer: Flowise's V1 fields (agentReasoning, the V1 action), and the executionId a resume may name. */
function multiagentAnswer(run: AgentflowRun, { outcome, chatMessageId }: AgentflowDone) {
  return {
    text: outcome.text,
    question: run.input.question ?? "",
    chatId: run.ctx.chatId,
    chatMessageId,
    executionId: run.recorder.run.id,
    sessionId: run.ctx.sessionId,
    agentReasoning: outcome.agentReasoning ?? [],
    ...(outcome.state === "STOPPED" && outcome.v1Action ? { action: outcome.v1Action } : {}),
    sourceDocuments: outcome.sourceDocuments ?? [],
    usedTools: outcome.usedTools ?? [],
  };
}
