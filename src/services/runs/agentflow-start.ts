// Everything before an agentflow's first node: request checks (400s), then where the run begins — a
// new run (agentflow-new.ts), a resume run in the request (agentflow-resume.ts), or a detached run's
// resume in its Workflow (agentflow-resume-detached.ts) — and the runtime's request built on it.
// HTTP-free.
import { badRequest } from "../../errors";
import type { AgentflowRequest, FlowCall, FlowCallResult, WebhookPayload } from "../../engine/agentflow/types";
import { type AgentflowRunOutcome, type ChatTurn, type PreparedAgentflow, type RunContext, createRunContext } from "../../engine";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { ExecutionCheckpointer } from "../executions";
import type { Beginning } from "./agentflow-beginning";
import { beginNew } from "./agentflow-new";
import { resumeInRequest } from "./agentflow-resume";
import { resumeDetached } from "./agentflow-resume-detached";
import { type RunBase, track } from "./base";
import { postProcessingOf } from "./flow-types";
import { humanInputOf } from "./human-input";
import { gateNodeOverrides } from "./overrides";
import type { RunSteps } from "./steps";
import type { RunDeps, RecordStatement } from "./types";
import { runUploads } from "./uploads";
import { attachedText } from "./attached-files";

/** Execute Flow's port (execute-flow.ts): another flow of this deployment, run through the door. */
export type FlowCaller = (flowId: string, call: FlowCall, signal: AbortSignal) => Promise<FlowCallResult>;

export interface AgentflowRun extends RunBase {
  kind: "agentflow";
  prepared: PreparedAgentflow<AgentflowRunOutcome>;
  deps: RunDeps;
  request: AgentflowRequest;
  ctx: RunContext;
  /** The run's execution: the engine's checkpoints are written through it (services/executions). */
  execution: ExecutionCheckpointer;
  startedAt: string;
  apiMessageId: string;
  /** Stored messages of (agentflow, session), oldest first: read beside the other look-ups. */
  pastHistory: ChatTurn[];
  runFlow: FlowCaller;
  /** A detached run's durable steps (RunRequest.steps). */
  steps?: RunSteps;
  /** A request resuming a detached run in its own isolate: the run's Workflow, waiting for the resume, is told when it is done. */
  detachedResume?: boolean;
  /** A detached run: the JSON answer of a done run, stored with its final state (the door sets it: answers.ts). */
  answerOf?: (done: { outcome: AgentflowRunOutcome; chatMessageId: string }) => unknown;
  /** RunRequest.recordAlso, given this run's answer (the door sets it: index.ts). */
  recordAlso?: (done: { outcome: AgentflowRunOutcome; chatMessageId: string }) => Promise<RecordStatement[]>;
}

export interface AgentflowStart {
  prepared: PreparedAgentflow<AgentflowRunOutcome>;
  /** A detached run: the execution row made when it was accepted (a fresh start fills it). */
  executionId?: string;
  /** A detached run's durable steps: the resume target is read and claimed in one, so a replay sees the same. */
  steps?: RunSteps;
  /** Whether the answer is streamed (the delivery); post-processing turns it off. */
  streaming: boolean;
  /** Frames go somewhere besides the caller (a detached run's event log, a webhook listener): see AgentflowRequest.observed. */
  observed: boolean;
  callStack: string[];
  runFlow: FlowCaller;
  /** The webhook that fired the run (`$webhook.*`). */
  webhook?: WebhookPayload;
}

/** Where the run begins: a resume (in its Workflow when detached, else here) or a new run. */
async function begin(deps: RunDeps, base: Omit<RunBase, "release">, start: AgentflowStart): Promise<Beginning> {
  const humanInput = humanInputOf(base.input, base.flow.type);
  if (base.input.question && base.input.form && Object.keys(base.input.form).length)
    throw badRequest("Send either question or form, not both");
  if (!humanInput) return beginNew(deps, base, start.executionId);
  const { executionId: named, ...human } = humanInput;
  return start.steps ? resumeDetached(deps, base, human, named, start.steps) : resumeInRequest(deps, base, human, named);
}

/** The run, its execution new or claimed for a resume. */
export async function startAgentflow(deps: RunDeps, base: Omit<RunBase, "release">, start: AgentflowStart): Promise<AgentflowRun> {
  const { flow, input, uploads } = base;
  const { ids, execution, pastHistory, resume, previousExecution, detachedResume = false } = await begin(deps, base, start);
  const { chatId, sessionId } = ids;
  const history = input.history ?? [];
  const nodeOverrides = gateNodeOverrides(start.prepared.graph, flow.apiConfig, input.overrideConfig ?? {});
  // A detached run's answer id is one its replay makes again: the record after a restart finds the message it stored.
  const apiMessageId = start.steps ? await start.steps.id("answer") : newId();
  const postProcessing = postProcessingOf(flow.chatbotConfig);

  const ctx = createRunContext(deps.runtime, {
    chatId,
    sessionId,
    history,
    nodeOverrides,
    vars: base.vars,
    chatflowid: flow.id,
    question: input.question ?? "",
    signal: base.controller.signal,
    getCredential: base.getCredential,
    // ChatflowTool in a Tool or Agent node: other flows through the door, as Execute Flow.
    flows: { callStack: start.callStack, run: (flowId, call) => start.runFlow(flowId, call, base.controller.signal) },
  });
  const request: AgentflowRequest = {
    chatflowId: flow.id,
    chatId,
    sessionId,
    apiMessageId,
    question: input.question,
    form: input.form,
    webhook: start.webhook,
    history,
    uploads: runUploads(uploads),
    fileText: attachedText(uploads) || undefined,
    streaming: start.streaming && !postProcessing,
    observed: start.observed,
    nodeOverrides,
    vars: base.vars,
    previousExecution,
    resume,
    callStack: start.callStack,
    postProcessing,
  };
  return {
    ...base,
    kind: "agentflow",
    prepared: start.prepared,
    runFlow: start.runFlow,
    steps: start.steps,
    deps,
    request,
    ctx,
    apiMessageId,
    pastHistory,
    detachedResume,
    execution,
    release: track(deps, flow.id, chatId, base.controller),
    startedAt: nowIso(),
  };
}
