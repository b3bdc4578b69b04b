// A chatflow (or assistant) run: started over the engine's prepared chatflow, executed by the
// chatflow runtime, recorded (uploads, then the two messages in one guarded batch). HTTP-free.
import { type PreparedChatflow, type RunContext, type RunResult, type StreamSink, createRunContext } from "../../engine";
import { redactError } from "../../lib/redact";
import { nowIso } from "../../lib/time";
import { withAttachedText } from "./attached-files";
import type { FlowCaller } from "./agentflow-start";
import { type ExchangeIds, storeExchange } from "./chatflow-messages";
import { asksFollowUps, followUpsFor } from "./follow-up-prompts";
import { type RunBase, askedSessionOf, runIds, track } from "./base";
import { runMemory } from "./memory";
import { gateNodeOverrides } from "./overrides";
import { stoppedRunError, untilAborted } from "./time-limit";
import { removeUploads, runUploads, storeUploads } from "./uploads";
import type { RunSteps } from "./steps";
import type { RunDeps, RecordStatement } from "./types";

export interface ChatflowRun extends RunBase {
  kind: "chatflow";
  prepared: PreparedChatflow;
  ctx: RunContext;
  /** Whether the flow streams its tokens (its plan says so before the run). */
  streamable: boolean;
  startedAt: string;
  deps: RunDeps;
  /** A detached run's durable steps (RunRequest.steps). */
  steps?: RunSteps;
  /** Notes whether the run read its session's memory (the next look-ups read it only if so). */
  noteMemory: () => void;
  /** RunRequest.recordAlso, given this run's answer (the door sets it: index.ts). */
  recordAlso?: (done: ChatflowDone) => Promise<RecordStatement[]>;
}

export interface ChatflowDone {
  result: RunResult;
  chatMessageId: string;
  /** The follow-up questions stored on the answer (a JSON string list), when the flow asks for them. */
  followUpPrompts?: string;
}

/** Everything before the model is called: ids, gated overrides, the run's context, its clock. */
export function startChatflow(
  deps: RunDeps,
  base: Omit<RunBase, "release">,
  prepared: PreparedChatflow,
  steps?: RunSteps,
  calls?: { caller: FlowCaller; callStack: string[] },
): ChatflowRun {
  const { flow, input } = base;
  const { chatId, sessionId } = runIds(input);
  // A detached run's chatflow runs later, in its Workflow: the memory read at acceptance may be old by
  // then. A session the request does not name is new: nothing stored to read (as agentflow-new.ts).
  const fresh = askedSessionOf(input) === undefined ? { id: sessionId, history: [] } : undefined;
  const memory = runMemory(deps.runtime, flow.id, steps ? undefined : (base.session ?? fresh));
  const ctx = createRunContext(memory.runtime, {
    chatId,
    sessionId,
    history: input.history ?? [],
    vars: base.vars,
    chatflowid: flow.id,
    question: withAttachedText(input.question ?? "", base.uploads),
    uploads: runUploads(base.uploads),
    nodeOverrides: gateNodeOverrides(prepared.graph, flow.apiConfig, input.overrideConfig ?? {}),
    signal: base.controller.signal,
    getCredential: base.getCredential,
    // ChatflowTool, agentAsTool: other flows through the door, with this run's call stack.
    ...(calls ? { flows: { callStack: calls.callStack, run: (id, call) => calls.caller(id, call, base.controller.signal) } } : {}),
  });
  return {
    ...base,
    kind: "chatflow",
    prepared,
    ctx,
    deps,
    steps,
    noteMemory: memory.note,
    streamable: prepared.streamable,
    release: track(deps, flow.id, chatId, base.controller),
    startedAt: nowIso(),
  };
}

/** Execute: the chatflow runtime over the run's context; a stopped run is a 499, or 504 past its time limit. */
async function execute(run: ChatflowRun, sink?: StreamSink): Promise<RunResult> {
  const signal = run.controller.signal;
  const result = await untilAborted(run.prepared.run(run.ctx, sink), signal).catch((err: unknown) => {
    throw signal.aborted ? stoppedRunError(signal) : err;
  });
  if (signal.aborted) throw stoppedRunError(signal);
  return result;
}

/**
 * Record: uploads, then the question and answer (one guarded batch); answers the API message id.
 * `ids`: the messages' ids (a detached run's, which its replay makes again).
 */
async function record(run: ChatflowRun, result: RunResult, ids?: ExchangeIds, followUpPrompts?: string): Promise<string> {
  const fileUploads = run.uploads.length ? await storeUploads(run.deps.env.FILES, run.flow.id, run.ctx.chatId, run.uploads) : undefined;
  return storeExchange(
    run.deps,
    {
      chatflowid: run.flow.id,
      chatType: run.chatType,
      chatId: run.ctx.chatId,
      sessionId: run.ctx.sessionId,
      memoryType: result.memoryType,
      question: run.input.question ?? "",
      answer: result.text,
      startedAt: run.startedAt,
      fileUploads,
      leadEmail: run.input.leadEmail,
      sourceDocuments: result.sourceDocuments,
      usedTools: result.usedTools,
      artifacts: result.artifacts,
      followUpPrompts,
      form: run.input.form,
      humanInput: run.input.humanInput,
    },
    ids,
    run.recordAlso && ((chatMessageId) => run.recordAlso!({ result, chatMessageId })),
  ).catch(async (err: unknown) => {
    // No message names the uploads (the chatflow is gone, or D1 failed): they must not linger.
    await removeUploads(run.deps.env.FILES, run.flow.id, run.ctx.chatId, fileUploads);
    throw err;
  });
}

/**
 * Executes then records; only a run that succeeded stores anything. A detached run does both in one
 * durable step (a replay answers the stored answer). Errors leave scrubbed of the run's secrets.
 */
export async function completeChatflow(run: ChatflowRun, sink?: StreamSink): Promise<ChatflowDone> {
  const complete = async (): Promise<ChatflowDone> => {
    const result = await execute(run, sink);
    run.noteMemory();
    // After the answer's last token, before it is stored (stored with it, as Flowise does).
    const followUpPrompts = await followUpsFor(run, run.input.question ?? "", result.text);
    return { result, followUpPrompts, chatMessageId: await record(run, result, undefined, followUpPrompts) };
  };
  const work = () => (run.steps ? completeInSteps(run, run.steps, sink) : complete());
  try {
    if (!run.trace) return await work();
    return await run.trace.around(work, (done) => ({ output: done.result.text, metadata: { chatMessageId: done.chatMessageId } }));
  } catch (err) {
    throw redactError(err, run.secrets); // the last scrub before an error leaves (JSON body or stream frame)
  } finally {
    run.release();
  }
}

/**
 * A detached run: the answer is one durable step and its record another, so a restart between them
 * does not ask the model again; the record's messages have ids the replay makes again, so a record
 * cut off after its batch landed finds them and stores nothing twice.
 */
async function completeInSteps(run: ChatflowRun, steps: RunSteps, sink?: StreamSink): Promise<ChatflowDone> {
  const ran = await steps.do("run", () => execute(run, sink));
  // A run started before the record had its own step answered both at once (its replay keeps that).
  if ("chatMessageId" in ran && "result" in ran) return ran as unknown as ChatflowDone;
  const ids: ExchangeIds = { question: await steps.id("question"), answer: await steps.id("answer") };
  // Their own step (only when asked for): a replay neither asks again nor stores other questions.
  const ask = async () => (await followUpsFor(run, run.input.question ?? "", ran.text)) ?? null;
  const followUpPrompts = asksFollowUps(run) ? ((await steps.do("follow-ups", ask)) ?? undefined) : undefined;
  return { result: ran, followUpPrompts, chatMessageId: await steps.do("record", () => record(run, ran, ids, followUpPrompts)) };
}
