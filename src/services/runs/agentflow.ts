// An agentflow run (V2, and V1 translated): executed by the engine's agentflow runtime through its
// ports — a checkpoint per node into its execution row, the stored history, frames, Execute Flow —
// then recorded: on success or pause the final state and the two messages in one guarded batch; on
// failure only the execution (ERROR, TERMINATED, TIMEOUT past the run's time limit), no messages.
// HTTP-free.
import { eq } from "drizzle-orm";
import { chatMessage } from "../../db/schema";
import { ApiError } from "../../errors";
import { redactError } from "../../lib/redact";
import type { AgentflowRunOutcome } from "../../engine";
import type { AgentflowEvents, AgentflowOutcome, AgentflowPorts } from "../../engine/agentflow/types";
import { resultStatement } from "../executions";
import { exchangeStatements } from "./agentflow-messages";
import { asksFollowUps, followUpsFor } from "./follow-up-prompts";
import type { AgentflowRun } from "./agentflow-start";
import { stoppedRunError, untilAborted } from "./time-limit";
import { type StoredUpload, removeUploads, storeUploads } from "./uploads";

export const NO_EVENTS: AgentflowEvents = { event: () => undefined };

export interface AgentflowDone {
  outcome: AgentflowRunOutcome;
  chatMessageId: string;
  /** The follow-up questions stored on the answer (a JSON string list), when the flow asks for them. */
  followUpPrompts?: string;
}

/** How a stopped run's execution ends: TIMEOUT past its time limit (RUN_TIMEOUT_MS), else TERMINATED. */
const stoppedState = (signal: AbortSignal) => (stoppedRunError(signal).status === 504 ? "TIMEOUT" : "TERMINATED");

/** What the user sent, as the stored user message says it. */
function userContent(run: AgentflowRun): string {
  const { input } = run;
  if (input.form && Object.keys(input.form).length) {
    return Object.entries(input.form)
      .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join("\n");
  }
  // A webhook flow passing its whole payload stores it as what the user sent (Flowise's "payload" mode).
  const payload = run.request.webhook && !run.request.resume ? JSON.stringify(run.request.webhook) : undefined;
  return input.question || run.request.resume?.humanInput.feedback || payload || " ";
}

function portsOf(run: AgentflowRun, events: AgentflowEvents): AgentflowPorts {
  const { ctx } = run;
  return {
    ctx,
    pastChatHistory: async () => run.pastHistory,
    // A detached run replaying finished steps has stored those checkpoints already (and may have
    // moved its row on since): only a live run writes them.
    checkpoint: (data, state) =>
      run.steps && !run.steps.live
        ? Promise.resolve()
        : run.execution.checkpoint(data, state === "TERMINATED" && ctx.signal.aborted ? stoppedState(ctx.signal) : state),
    events,
    runFlow: (flowId, call) => run.runFlow(flowId, call, ctx.signal),
    step: run.steps ? (name, work) => run.steps!.do(name, work) : undefined,
    aroundNode: run.trace?.aroundNode,
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
  if (run.execution.lost) return new ApiError(409, run.execution.lost);
  const { signal } = run.controller;
  if (outcome.state === "TERMINATED" || signal.aborted) return stoppedRunError(signal);
  return new ApiError(outcome.errorCode ?? "INTERNAL", outcome.error ?? `The agentflow ended ${outcome.state}`);
}

/** Execute: the runtime through its ports; answers a FINISHED or STOPPED outcome, throws for the rest (its execution says how it ended). */
async function execute(run: AgentflowRun, events: AgentflowEvents): Promise<AgentflowRunOutcome> {
  const { execution } = run;
  const { signal } = run.controller;
  let outcome: AgentflowRunOutcome;
  try {
    // A node busy past the time limit does not hold the answer: the run is given up soon after the abort.
    outcome = await untilAborted(run.prepared.run(run.request, portsOf(run, events)), graceAfter(signal));
  } catch (err) {
    // Refused before its first node: a claimed pause is given back untouched.
    const stopped = signal.aborted;
    if (!execution.started) await execution.release();
    else await execution.abandon(stopped ? stoppedState(signal) : "ERROR");
    if (execution.lost) throw new ApiError(409, execution.lost);
    throw stopped ? stoppedRunError(signal) : err;
  }
  if (outcome.state !== "FINISHED" && outcome.state !== "STOPPED") {
    await execution.settled();
    throw failure(run, outcome);
  }
  return outcome;
}

/** Record: uploads, then the execution's final state and the two messages in one batch, the messages guarded on that write. */
async function record(run: AgentflowRun, outcome: AgentflowRunOutcome, followUpPrompts?: string): Promise<void> {
  const { execution, ctx, deps } = run;
  await execution.ready();
  let fileUploads: StoredUpload[] | undefined;
  try {
    fileUploads = run.uploads.length ? await storeUploads(deps.env.FILES, run.flow.id, ctx.chatId, run.uploads) : undefined;
    const action = outcome.state === "STOPPED" ? (outcome.v1Action ?? outcome.action) : undefined;
    const { statement, guard } = execution.finish(outcome.executedData, outcome.state as "FINISHED" | "STOPPED", action);
    const also = run.recordAlso ? await run.recordAlso({ outcome, chatMessageId: run.apiMessageId }) : [];
    const [[written]] = await Promise.all([
      deps.db.batch([
        statement,
        ...exchangeStatements(
          deps.db,
          {
            chatflowid: run.flow.id,
            chatType: run.chatType,
            chatId: ctx.chatId,
            sessionId: ctx.sessionId,
            executionId: execution.run.id,
            userContent: userContent(run),
            startedAt: run.startedAt,
            answer: outcome.text,
            fileUploads,
            leadEmail: run.input.leadEmail,
            sourceDocuments: outcome.sourceDocuments,
            usedTools: outcome.usedTools,
            artifacts: outcome.artifacts,
            action,
            agentReasoning: outcome.agentReasoning,
            followUpPrompts,
            resumed: !!run.request.resume,
          },
          run.apiMessageId,
          guard,
        ),
        ...detachedResult(run, outcome, followUpPrompts),
        ...also,
      ]),
      execution.drain(),
    ]);
    await execution.confirm(written as unknown[]);
  } catch (err) {
    // Nothing names the uploads then: they must not linger.
    await Promise.all([execution.abandon(), removeUploads(deps.env.FILES, run.flow.id, ctx.chatId, fileUploads)]);
    throw err;
  }
}

/** Whether the run's answer is stored: its record's batch (state, messages, result, all or none) landed. */
async function recorded(run: AgentflowRun): Promise<boolean> {
  const row = await run.deps.db.select({ id: chatMessage.id }).from(chatMessage).where(eq(chatMessage.id, run.apiMessageId)).get();
  return row !== undefined;
}

/**
 * A detached run's answer, written with its final state (GET /executions/{id} never shows the new
 * state with the previous part's result).
 */
function detachedResult(run: AgentflowRun, outcome: AgentflowRunOutcome, followUpPrompts?: string) {
  if (!run.steps || !run.answerOf) return [];
  const done: AgentflowDone = { outcome, chatMessageId: run.apiMessageId, followUpPrompts };
  return [resultStatement(run.deps.db, run.execution.run.id, run.answerOf(done))];
}

/** Executes then records. Errors leave scrubbed of the run's secrets. */
export async function completeAgentflow(run: AgentflowRun, events: AgentflowEvents = NO_EVENTS): Promise<AgentflowDone> {
  const stopLease = run.execution.keepAlive(run.deps.env, (reason) => run.controller.abort(new Error(reason)));
  let followUpPrompts: string | undefined;
  const work = async () => {
    const outcome = await execute(run, events);
    // A finished run's follow-up questions, stored with its answer (a paused run's answer is its
    // pending question: follow-ups would only invite a way around it). A detached run asks in a step.
    if (outcome.state === "FINISHED" && asksFollowUps(run)) {
      const ask = async () => (await followUpsFor(run, userContent(run), outcome.text)) ?? null;
      followUpPrompts = (run.steps ? await run.steps.do("follow-ups", ask) : await ask()) ?? undefined;
    }
    // A detached run records in a durable step: a replay does not store the messages twice, and a
    // record cut off after its batch landed finds its answer stored and does nothing more.
    if (run.steps)
      await run.steps.do("record", async () => (await recorded(run)) || record(run, outcome, followUpPrompts).then(() => true));
    else await record(run, outcome, followUpPrompts);
    return outcome;
  };
  try {
    const outcome = run.trace
      ? await run.trace.around(work, (o) => ({
          output: o.text,
          metadata: { executionId: run.execution.run.id, chatMessageId: run.apiMessageId, state: o.state },
        }))
      : await work();
    return { outcome, chatMessageId: run.apiMessageId, followUpPrompts };
  } catch (err) {
    throw redactError(err, run.secrets); // the last scrub before an error leaves (JSON body or stream frame)
  } finally {
    stopLease();
    run.release();
    if (run.detachedResume) run.deps.waitUntil(tellWorkflow(run));
  }
}

/** A detached run resumed by a request: its Workflow, waiting for the resume, looks at the row again. */
async function tellWorkflow(run: AgentflowRun): Promise<void> {
  const id = run.execution.run.id;
  try {
    if (!run.deps.detached) throw new Error("no RUNS Workflow binding");
    await run.deps.detached.notify(id);
  } catch (err) {
    console.error(`execution ${id}: its run was not told of the resume: ${String(err)}`);
  }
}
