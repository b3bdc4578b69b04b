// The run door: every way a flow is run — POST /prediction, the test chat, Execute Flow, MCP, webhooks, schedules,
// the OpenAI API (triggers.ts) — goes through runFlow, whatever the flow's kind (chatflow, assistant, Agentflow V2,
// V1 multi-agent). Four stages, one file each:
//   prepare  (prepare.ts)  one D1 batch from a replica: the flow, its variables and credentials,
//                          the caller's key, the named session's memory;
//                          the caller's access, origin and rate limit; the flow checked and planned
//   execute  (chatflow.ts, agentflow.ts) the engine's runtime for the flow's kind, through its ports
//   record   (same files)  uploads, then messages (and the execution's final state) in one guarded batch
//   deliver  (deliver.ts)  JSON or Flowise's event stream, as the request asks
// HTTP-free: an adapter (routes/prediction.ts) hands in the request as data and turns Delivered
// into its response.
import { type AgentflowRun, startAgentflow } from "./agentflow-start";
import { agentflowAnswer, chatflowAnswer } from "./answers";
import { runBase } from "./base";
import { type ChatflowRun, startChatflow } from "./chatflow";
import { type Delivered, deliver } from "./deliver";
import { detach } from "./detach";
import { answersEarly, noteStreamed, streamEarly } from "./early-stream";
import { flowCaller } from "./execute-flow";
import { assertStartTrigger } from "./start-trigger";
import { type Ready, checkRequest, prepare } from "./prepare";
import { carriesRecordings, withHeardRecordings } from "./speech";
import { traced } from "./trace";
import { type TriggerDefinition, triggerRule } from "./triggers";
import type { RunDeps, RunRequest } from "./types";

export async function runFlow(deps: RunDeps, request: RunRequest): Promise<Delivered> {
  const rule = triggerRule(request.trigger);
  checkRequest(rule, request);
  // A stream this isolate may open before its batch (early-stream.ts): the head now, the rest inside it.
  // Not for recordings: their limits and their provider's refusal answer with their status (speech.ts).
  if (!carriesRecordings(request) && (await answersEarly(deps.env, request, rule)))
    return { kind: "sse", body: streamEarly(deps, () => begin(deps, request, rule)) };
  const ready = await prepare(deps, request, rule);
  assertStartTrigger(rule, ready.prepared, ready.flow.id);
  const heard = await withHeardRecordings(deps, ready, request); // recordings heard: their transcript is the question
  // Detached: accepted here (the caller checked, the flow planned), run by the Workflow later.
  if (heard.delivery === "detached") return { kind: "detached", body: await detach(deps, ready, heard, rule.chatType) };
  return deliver(await started(deps, ready, heard, rule), heard.delivery, heard.frames);
}

/** Prepared and started: a stream whose head went out early begins here. */
async function begin(deps: RunDeps, request: RunRequest, rule: TriggerDefinition): Promise<ChatflowRun | AgentflowRun> {
  const ready = await prepare(deps, request, rule);
  assertStartTrigger(rule, ready.prepared, ready.flow.id);
  return started(deps, ready, request, rule);
}

/** Started, following its caller's signal; a streamed chatflow is noted for the next early head. */
async function started(deps: RunDeps, ready: Ready, request: RunRequest, rule: TriggerDefinition): Promise<ChatflowRun | AgentflowRun> {
  const run = await start(deps, ready, request, rule);
  deps.runStarted?.();
  follow(request.signal, run.controller);
  if (request.delivery === "sse") noteStreamed(rule, run);
  return run;
}

/** The run of the flow's kind, its clock started (and, for an agentflow, its execution new or claimed). */
async function start(deps: RunDeps, ready: Ready, request: RunRequest, rule: TriggerDefinition): Promise<ChatflowRun | AgentflowRun> {
  const { flow, prefetched, prepared } = ready;
  const base = runBase(deps.env, flow, prefetched, request.input, request.uploads ?? [], rule.chatType);
  const caller = flowCaller((call) => runFlow(deps, call));
  if (prepared.kind === "chatflow") {
    const run = startChatflow(deps, base, prepared, request.steps, { caller, callStack: request.callStack ?? [] });
    const { recordAlso } = request;
    if (recordAlso) run.recordAlso = (done) => recordAlso(chatflowAnswer(run, done));
    return traced(deps, run);
  }
  const run = await startAgentflow(deps, base, {
    prepared,
    executionId: request.executionId,
    steps: request.steps,
    streaming: request.delivery === "sse" || request.frames !== undefined, // a detached run streams into its event log
    observed: request.frames !== undefined,
    callStack: request.callStack ?? [],
    webhook: request.webhook,
    runFlow: caller,
  });
  if (request.steps) run.answerOf = (done) => agentflowAnswer(run, done);
  const { recordAlso } = request;
  if (recordAlso) run.recordAlso = (done) => recordAlso(agentflowAnswer(run, done));
  return traced(deps, run);
}

/** The run stops when its caller does, with the caller's reason. */
function follow(signal: AbortSignal | undefined, controller: AbortController): void {
  if (!signal) return;
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
}

// What adapters and other services may use: the door's index is its only entrance (a
// dependency-cruiser rule keeps deep imports into services/runs/ out).
export { CallerRefused } from "./access";
export type { Caller, RecordedAnswer, RecordStatement, RunDeps, RunFrames, RunRequest } from "./types";
export type { Delivered } from "./deliver";
export type { DeliveryKind, TriggerDefinition, TriggerId, TriggerRule } from "./triggers";
export { DETACHED_RUN, TRIGGERS } from "./triggers";
export type { RunAnswer } from "./answers";
export type { RunSteps } from "./steps";
export { type RunnableFlow, findRunnable } from "./flow";
export { agentflowTypeFault, postProcessingOf, runsOnAgentflowRuntime } from "./flow-types";
export { type ResponseRow, type RunLookups, type SessionAsked, lookUpNamedRun, lookUpRun, mayReadMemory } from "./lookups";
export { loadSessionMemory } from "./history";
export { loadVariables } from "./vars";
export { gateNodeOverrides, gateVarOverrides } from "./overrides";
export { startInputsOf } from "./start-trigger";
export { abortRun } from "./in-flight";
export { type UploadInput, decodeDataUri, storeUploads } from "./uploads";
export { isAttachedText } from "./attached-files";
export { unparkUploads, unparkWebhook } from "./park";
