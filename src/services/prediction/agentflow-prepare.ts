// Everything before an agentflow's first node: request checks (400s), ids, the execution to resume
// (found and claimed) or a new one, and the runtime's request. HTTP-free.
import { z } from "@hono/zod-openapi";
import { and, desc, eq } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { badRequest } from "../../errors";
import { execution } from "../../db/schema";
import type { ChatType } from "../../db/enums";
import type { AgentflowGraph, AgentflowRequest, AgentflowUpload, ExecutedData, HumanInput } from "../../engine/agentflow/types";
import { type ChatTurn, type RunContext, type Runtime, createRunContext } from "../../engine";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { uuid } from "../../schemas/common";
import type { PredictionInput } from "../../schemas/prediction";
import { ExecutionRecorder } from "../execution-runs";
import { claimForResume, findResumeTarget } from "../execution-resume";
import type { Prefetched, RunnableFlow } from "./index";
import { agentflowGraph, postProcessingOf } from "./agentflow-check";
import { gateNodeOverrides, gateVarOverrides } from "./overrides";
import { trackRun } from "./runs";
import { notingSecrets } from "./credentials";
import { limitRunTime } from "./time-limit";
import { workerSecretValues } from "../../lib/secrets";
import type { UploadInput } from "./uploads";

const HumanInputBody = z.object({
  type: z.enum(["proceed", "reject"]),
  startNodeId: z.string().min(1).max(1000).optional(),
  feedback: z.string().max(100_000).optional(),
  executionId: uuid().optional(),
});

export interface AgentflowRun {
  flow: RunnableFlow;
  /** Where the execution and the exchange are stored. */
  db: Db;
  /** The worker's env: the lease (EXECUTION_LEASE_SECONDS) and uploads' bucket (FILES). */
  env: Env;
  graph: AgentflowGraph;
  request: AgentflowRequest;
  ctx: RunContext;
  recorder: ExecutionRecorder;
  controller: AbortController;
  input: PredictionInput;
  uploads: UploadInput[];
  startedAt: string;
  apiMessageId: string;
  /** Stored messages of (agentflow, session), oldest first: read beside the other look-ups. */
  pastHistory: ChatTurn[];
  /** Set on a resume: gives the pause back when the run is refused before its first node. */
  releaseClaim?: () => Promise<void>;
  /** Secret values this run knows (the worker's, its credentials'): its errors are scrubbed of them. */
  secrets: Set<string>;
  /** Stops the run's clock (RUN_TIMEOUT_MS) and its tracking for PUT /chatmessage/abort. */
  release: () => void;
  /** Who started the run, as the stored messages name it (EXTERNAL when unset: POST /prediction). */
  chatType?: ChatType;
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
    throw badRequest(`humanInput must be {type: "proceed"|"reject", startNodeId?, feedback?, executionId?}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "humanInput"}: ${i.message}`).join("; ")}`);
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

async function previousExecutionData(db: Db, agentflowId: string, sessionId: string): Promise<ExecutedData[] | undefined> {
  const row = await db.select({ executionData: execution.executionData }).from(execution)
    .where(and(eq(execution.agentflowId, agentflowId), eq(execution.sessionId, sessionId)))
    .orderBy(desc(execution.createdDate), desc(execution.id)).limit(1).get();
  if (!row) return undefined;
  try {
    const data = JSON.parse(row.executionData);
    return Array.isArray(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * chatId = body chatId, else overrideConfig.sessionId, else (a resume) the paused run's session,
 * else new; sessionId = overrideConfig.sessionId, else chatId.
 */
export async function prepareAgentflowRun(
  db: Db, env: Env, runtime: Runtime, flow: RunnableFlow, input: PredictionInput, uploads: UploadInput[], prefetched: Prefetched, callStack: string[] = [],
): Promise<AgentflowRun> {
  const graph = agentflowGraph(flow.flowData, flow.type);
  const humanInput = humanInputOf(input, flow.type);
  if (input.question && input.form && Object.keys(input.form).length) throw badRequest("Send either question or form, not both");

  const overrideConfig = input.overrideConfig ?? {};
  const overrideSession = typeof overrideConfig.sessionId === "string" && overrideConfig.sessionId ? overrideConfig.sessionId : undefined;
  const askedSession = overrideSession ?? input.chatId;

  let executionId = newId();
  let resume: AgentflowRequest["resume"];
  let previousExecution: ExecutedData[] | undefined;
  let claimed: { executionData: string } | undefined;
  let releaseClaim: (() => Promise<void>) | undefined;
  let sessionId: string;
  let pastHistory: ChatTurn[];
  if (humanInput) {
    const target = await findResumeTarget(db, env, flow.id, askedSession, humanInput.executionId);
    const { executionId: _named, ...human } = humanInput;
    if (human.startNodeId && !target.executedData.some((e) => e.nodeId === human.startNodeId)) {
      throw badRequest(`humanInput.startNodeId ${human.startNodeId} is not a node of execution ${target.row.id}`);
    }
    sessionId = target.row.sessionId;
    let claim;
    [claim, pastHistory] = await Promise.all([claimForResume(db, target), runtime.memory.load(flow.id, sessionId)]);
    releaseClaim = claim.release;
    executionId = target.row.id;
    resume = { executionId, executedData: target.executedData, humanInput: human };
    claimed = { executionData: JSON.stringify(target.executedData) };
  } else {
    sessionId = askedSession ?? newId();
    [previousExecution, pastHistory] = await Promise.all([previousExecutionData(db, flow.id, sessionId), runtime.memory.load(flow.id, sessionId)]);
  }
  const chatId = input.chatId ?? overrideSession ?? sessionId;
  const history = input.history ?? [];
  const vars = { ...prefetched.vars, ...gateVarOverrides(flow.apiConfig, overrideConfig) };
  const nodeOverrides = gateNodeOverrides(graph, flow.apiConfig, overrideConfig);
  const controller = new AbortController();
  const secrets = new Set(workerSecretValues(env));
  const apiMessageId = newId();
  const postProcessing = postProcessingOf(flow.chatbotConfig);

  const ctx = createRunContext(runtime, {
    chatId, sessionId, history, vars, nodeOverrides,
    chatflowid: flow.id,
    question: input.question ?? "",
    signal: controller.signal,
    getCredential: notingSecrets(prefetched.getCredential, secrets),
  });
  const request: AgentflowRequest = {
    chatflowId: flow.id, chatId, sessionId, apiMessageId,
    question: input.question,
    form: input.form,
    history,
    uploads: uploads.length ? runtimeUploads(uploads) : undefined,
    streaming: !!input.streaming && !postProcessing,
    nodeOverrides, vars, previousExecution, resume, callStack, postProcessing,
  };
  const untrack = trackRun(flow.id, chatId, controller);
  const stopClock = limitRunTime(env, controller);
  return {
    flow, db, env, graph, request, ctx, controller, input, uploads, apiMessageId, releaseClaim, pastHistory, secrets,
    recorder: new ExecutionRecorder(db, { id: executionId, agentflowId: flow.id, sessionId }, claimed),
    startedAt: nowIso(),
    release: () => {
      stopClock();
      untrack();
    },
  };
}
