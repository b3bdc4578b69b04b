// Everything before an agentflow's first node: request checks (400s), ids, the execution to resume
// (found and claimed) or a new one, the stored history, and the runtime's request. HTTP-free.
import { z } from "@hono/zod-openapi";
import { and, desc, eq, ne } from "drizzle-orm";
import { badRequest } from "../../errors";
import { execution } from "../../db/schema";
import type {
  AgentflowRequest,
  AgentflowUpload,
  ExecutedData,
  FlowCall,
  FlowCallResult,
  HumanInput,
  WebhookPayload,
} from "../../engine/agentflow/types";
import { type AgentflowRunOutcome, type ChatTurn, type PreparedAgentflow, type RunContext, createRunContext } from "../../engine";
import type { Db } from "../../env";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { uuid } from "../../schemas/common";
import type { PredictionInput } from "../../schemas/prediction";
import { ExecutionRecorder } from "../execution-runs";
import { claimForResume, claimedResumeTarget, findResumeTarget } from "../execution-resume";
import { type RunBase, askedSessionOf, runIds, track } from "./base";
import { postProcessingOf } from "./flow-types";
import { gateNodeOverrides } from "./overrides";
import type { RunSteps } from "./steps";
import type { RunDeps } from "./types";
import type { UploadInput } from "./uploads";

/** Execute Flow's port (execute-flow.ts): another flow of this deployment, run through the door. */
export type FlowCaller = (flowId: string, call: FlowCall, signal: AbortSignal) => Promise<FlowCallResult>;

const HumanInputBody = z.object({
  type: z.enum(["proceed", "reject"]),
  startNodeId: z.string().min(1).max(1000).optional(),
  feedback: z.string().max(100_000).optional(),
  executionId: uuid().optional(),
});

export interface AgentflowRun extends RunBase {
  kind: "agentflow";
  prepared: PreparedAgentflow<AgentflowRunOutcome>;
  deps: RunDeps;
  request: AgentflowRequest;
  ctx: RunContext;
  recorder: ExecutionRecorder;
  startedAt: string;
  apiMessageId: string;
  /** Stored messages of (agentflow, session), oldest first: read beside the other look-ups. */
  pastHistory: ChatTurn[];
  /** Set on a resume: gives the pause back when the run is refused before its first node. */
  releaseClaim?: () => Promise<void>;
  runFlow: FlowCaller;
  /** A detached run's durable steps (RunRequest.steps). */
  steps?: RunSteps;
  /** A request resuming a detached run in its own isolate: the run's Workflow, waiting for the resume, is told when it is done. */
  detachedResume?: boolean;
  /** A detached run: the JSON answer of a done run, stored with its final state (the door sets it: answers.ts). */
  answerOf?: (done: { outcome: AgentflowRunOutcome; chatMessageId: string }) => unknown;
}

/** Flowise V1's answer to an approval: the question is the approve or reject button's label, with the action shown. */
function v1Answer(input: PredictionInput): HumanInput | undefined {
  const mapping = input.action?.mapping;
  if (!mapping || input.question === undefined) return undefined;
  if (input.question === mapping.approve) return { type: "proceed" };
  if (input.question === mapping.reject) return { type: "reject" };
  return undefined;
}

function humanInputOf(input: PredictionInput, type: string | null): (HumanInput & { executionId?: string }) | undefined {
  if (input.humanInput === undefined) return type === "MULTIAGENT" ? v1Answer(input) : undefined;
  const parsed = HumanInputBody.safeParse(input.humanInput);
  if (!parsed.success) {
    throw badRequest(
      `humanInput must be {type: "proceed"|"reject", startNodeId?, feedback?, ` +
        `executionId?}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "humanInput"}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

/** Uploads as the runtime takes them: data URIs (multipart files re-encoded) or URLs. */
function runtimeUploads(uploads: UploadInput[]): AgentflowUpload[] {
  return uploads.map((u) => {
    if (u.type === "url" || !u.bytes) return { type: u.type, name: u.name, mime: u.mime ?? "", data: u.data };
    let binary = "";
    for (let i = 0; i < u.bytes.length; i += 0x8000) binary += String.fromCharCode(...u.bytes.subarray(i, i + 0x8000));
    return { type: u.type, name: u.name, mime: u.mime ?? "", data: `data:${u.mime || "application/octet-stream"};base64,${btoa(binary)}` };
  });
}

/** The human input's startNodeId must be a node of the execution it resumes. */
function checkStartNode(human: HumanInput, target: { row: { id: string }; executedData: ExecutedData[] }): void {
  if (human.startNodeId && !target.executedData.some((e) => e.nodeId === human.startNodeId)) {
    throw badRequest(`humanInput.startNodeId ${human.startNodeId} is not a node of execution ${target.row.id}`);
  }
}

/** The session's newest execution's data, other than `own` (a detached run's row, made before it started). */
async function previousExecutionData(db: Db, agentflowId: string, sessionId: string, own?: string): Promise<ExecutedData[] | undefined> {
  const row = await db
    .select({ executionData: execution.executionData })
    .from(execution)
    .where(and(eq(execution.agentflowId, agentflowId), eq(execution.sessionId, sessionId), own ? ne(execution.id, own) : undefined))
    .orderBy(desc(execution.createdDate), desc(execution.id))
    .limit(1)
    .get();
  return executedDataOf(row?.executionData);
}

function executedDataOf(json: string | undefined): ExecutedData[] | undefined {
  if (json === undefined) return undefined;
  try {
    const data = JSON.parse(json);
    return Array.isArray(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A new run's previous execution and stored history: none for a session the request did not name
 * (a new one), those the look-ups read (lookups.ts) when they did, else read now beside each other.
 */
async function chatSessionStart(
  db: Db,
  runtime: RunDeps["runtime"],
  base: Omit<RunBase, "release">,
  sessionId: string,
  own?: string,
): Promise<[ExecutedData[] | undefined, ChatTurn[]]> {
  if (askedSessionOf(base.input) === undefined) return [undefined, []];
  const read = base.session;
  if (read && read.id === sessionId && !own) return [executedDataOf(read.previousExecution), read.history.slice()];
  return Promise.all([previousExecutionData(db, base.flow.id, sessionId, own), runtime.memory.load(base.flow.id, sessionId)]);
}

export interface AgentflowStart {
  prepared: PreparedAgentflow<AgentflowRunOutcome>;
  /** A detached run: the execution row made when it was accepted (a fresh start fills it). */
  executionId?: string;
  /** A detached run's durable steps: the resume target is read and claimed in one, so a replay sees the same. */
  steps?: RunSteps;
  /** Whether the answer is streamed (the delivery); post-processing turns it off. */
  streaming: boolean;
  callStack: string[];
  runFlow: FlowCaller;
  /** The webhook that fired the run (`$webhook.*`). */
  webhook?: WebhookPayload;
}

/** The run, its execution new or claimed for a resume. */
export async function startAgentflow(deps: RunDeps, base: Omit<RunBase, "release">, start: AgentflowStart): Promise<AgentflowRun> {
  const { db, env, runtime } = deps;
  const { flow, input, uploads } = base;
  const humanInput = humanInputOf(input, flow.type);
  if (input.question && input.form && Object.keys(input.form).length) throw badRequest("Send either question or form, not both");

  let executionId = newId();
  let resume: AgentflowRequest["resume"];
  let previousExecution: ExecutedData[] | undefined;
  let claimed: { executionData: string } | undefined;
  let releaseClaim: (() => Promise<void>) | undefined;
  let detachedResume = false;
  let pastHistory: ChatTurn[];
  let ids: { chatId: string; sessionId: string };
  if (humanInput && start.steps) {
    // Detached: the target, claimed when the resume was accepted, is read in a durable step (a replay
    // resumes from the same point, whatever the row says by then).
    const { executionId: named, ...human } = humanInput;
    if (!named) throw badRequest("An asynchronous resume names the paused execution: humanInput.executionId");
    const target = await start.steps.do("resume", async () => {
      const found = await claimedResumeTarget(db, flow.id, named); // claimed when the resume was accepted
      checkStartNode(human, found);
      return { id: found.row.id, sessionId: found.row.sessionId, executedData: found.executedData };
    });
    ids = runIds(input, target.sessionId);
    pastHistory = await runtime.memory.load(flow.id, ids.sessionId);
    executionId = target.id;
    resume = { executionId, executedData: target.executedData, humanInput: human };
    claimed = { executionData: JSON.stringify(target.executedData) };
  } else if (humanInput) {
    const target = await findResumeTarget(db, env, flow.id, askedSessionOf(input), humanInput.executionId);
    const { executionId: _named, ...human } = humanInput;
    checkStartNode(human, target);
    ids = runIds(input, target.row.sessionId);
    let claim;
    [claim, pastHistory] = await Promise.all([claimForResume(db, target), runtime.memory.load(flow.id, ids.sessionId)]);
    releaseClaim = claim.release;
    executionId = target.row.id;
    detachedResume = target.row.detached;
    resume = { executionId, executedData: target.executedData, humanInput: human };
    claimed = { executionData: JSON.stringify(target.executedData) };
  } else {
    ids = runIds(input);
    [previousExecution, pastHistory] = await chatSessionStart(db, runtime, base, ids.sessionId, start.executionId);
    if (start.executionId) {
      executionId = start.executionId;
      claimed = { executionData: "[]" };
    }
  }
  const { chatId, sessionId } = ids;
  const history = input.history ?? [];
  const nodeOverrides = gateNodeOverrides(start.prepared.graph, flow.apiConfig, input.overrideConfig ?? {});
  // A detached run's answer id is one its replay makes again: the record after a restart finds the message it stored.
  const apiMessageId = start.steps ? await start.steps.id("answer") : newId();
  const postProcessing = postProcessingOf(flow.chatbotConfig);

  const ctx = createRunContext(runtime, {
    chatId,
    sessionId,
    history,
    nodeOverrides,
    vars: base.vars,
    chatflowid: flow.id,
    question: input.question ?? "",
    signal: base.controller.signal,
    getCredential: base.getCredential,
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
    uploads: uploads.length ? runtimeUploads(uploads) : undefined,
    streaming: start.streaming && !postProcessing,
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
    releaseClaim,
    pastHistory,
    detachedResume,
    recorder: new ExecutionRecorder(db, { id: executionId, agentflowId: flow.id, sessionId }, claimed),
    release: track(env, flow.id, chatId, base.controller),
    startedAt: nowIso(),
  };
}
