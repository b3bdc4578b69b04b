import { eq } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { notFound } from "../../errors";
import { chatFlow } from "../../db/schema";
import type { ChatType } from "../../db/enums";
import { assistantFlowData } from "../assistant-flow";
import { type PreparedFlow, type RunContext, type RunResult, type Runtime, type StreamSink, createRunContext, prepareFlow } from "../../engine";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { PredictionInput } from "../../schemas/prediction";
import { type CredentialReader, notingSecrets } from "./credentials";
import { redactError } from "../../lib/redact";
import { workerSecretValues } from "../../lib/secrets";
import { limitRunTime, stoppedRunError, untilAborted } from "./time-limit";
import { storeExchange } from "./memory";
import { gateNodeOverrides, gateVarOverrides } from "./overrides";
import { trackRun } from "./runs";
import { type UploadInput, removeUploads, storeUploads } from "./uploads";

export type RunnableFlow = typeof chatFlow.$inferSelect;

/** The chatflow to run; 404 when the id names nothing. */
export async function findRunnable(db: Db, id: string): Promise<RunnableFlow> {
  const flow = await db.select().from(chatFlow).where(eq(chatFlow.id, id)).get();
  if (flow) return flow;
  // An assistant runs as a graph made from its details; it is never public and has no key or origins.
  const flowData = await assistantFlowData(db, id);
  if (flowData) {
    const now = nowIso();
    return {
      id, flowData, name: "assistant", type: "ASSISTANT", deployed: true, isPublic: false, apikeyid: null,
      chatbotConfig: null, apiConfig: null, analytic: null, speechToText: null, textToSpeech: null,
      followUpPrompts: null, category: null, createdDate: now, updatedDate: now,
    };
  }
  throw notFound(`Chatflow ${id} not found`);
}

export interface PreparedRun {
  flow: RunnableFlow;
  /** flowData parsed and planned once; checks, the streaming decision and the run all use it. */
  prepared: PreparedFlow;
  ctx: RunContext;
  /** Where the exchange is stored once the run succeeded. */
  db: Db;
  controller: AbortController;
  streamable: boolean;
  uploads: UploadInput[];
  startedAt: string;
  input: PredictionInput;
  /** Secret values this run knows (the worker's, its credentials'): its errors are scrubbed of them. */
  secrets: Set<string>;
  release: () => void;
  /** Who started the run, as the stored messages name it (EXTERNAL when unset: POST /prediction). */
  chatType?: ChatType;
}

/**
 * Everything before the model is called: graph checks (400s), ids, gated overrides, variables.
 * chatId = body chatId, else overrideConfig.sessionId, else new; sessionId = overrideConfig.sessionId, else chatId.
 */
/** What the route looked up beside the chatflow: stored variables, and a credential reader. */
export interface Prefetched {
  vars: Record<string, string>;
  getCredential: CredentialReader;
}

export async function prepareRun(db: Db, env: Env, runtime: Runtime, flow: RunnableFlow, input: PredictionInput, uploads: UploadInput[], prefetched: Prefetched): Promise<PreparedRun> {
  const prepared = prepareFlow(flow.type, flow.flowData);
  const graph = prepared.graph;

  const overrideConfig = input.overrideConfig ?? {};
  const overrideSession = typeof overrideConfig.sessionId === "string" && overrideConfig.sessionId ? overrideConfig.sessionId : undefined;
  const chatId = input.chatId ?? overrideSession ?? newId();
  const sessionId = overrideSession ?? chatId;
  const history = input.history ?? [];
  const vars = { ...prefetched.vars, ...gateVarOverrides(flow.apiConfig, overrideConfig) };
  const controller = new AbortController();
  const secrets = new Set(workerSecretValues(env));

  const ctx = createRunContext(runtime, {
    chatId, sessionId, history, vars,
    chatflowid: flow.id,
    question: input.question ?? "",
    nodeOverrides: gateNodeOverrides(graph, flow.apiConfig, overrideConfig),
    signal: controller.signal,
    getCredential: notingSecrets(prefetched.getCredential, secrets),
  });
  const untrack = trackRun(flow.id, chatId, controller);
  const stopClock = limitRunTime(env, controller);
  return {
    flow, ctx, controller, uploads, input, secrets, prepared, db,
    streamable: prepared.streamable,
    startedAt: nowIso(),
    release: () => {
      stopClock();
      untrack();
    },
  };
}

export interface Completed {
  result: RunResult;
  chatMessageId: string;
}

/** Runs the flow; only after it succeeded are uploads and the two messages stored. */
export async function executeRun(run: PreparedRun, files: R2Bucket, sink?: StreamSink): Promise<Completed> {
  try {
    const signal = run.controller.signal;
    const result = await untilAborted(run.prepared.run(run.ctx, sink), signal).catch((err: unknown) => {
      throw signal.aborted ? stoppedRunError(signal) : err;
    });
    if (signal.aborted) throw stoppedRunError(signal);
    const fileUploads = run.uploads.length ? await storeUploads(files, run.flow.id, run.ctx.chatId, run.uploads) : undefined;
    const chatMessageId = await storeExchange(run.db, {
      chatflowid: run.flow.id,
      chatId: run.ctx.chatId,
      sessionId: run.ctx.sessionId,
      memoryType: result.memoryType,
      question: run.ctx.question,
      answer: result.text,
      startedAt: run.startedAt,
      fileUploads,
      leadEmail: run.input.leadEmail,
      sourceDocuments: result.sourceDocuments,
      usedTools: result.usedTools,
      form: run.input.form,
      humanInput: run.input.humanInput,
      chatType: run.chatType,
    }).catch(async (err: unknown) => {
      // No message names the uploads (the chatflow is gone, or D1 failed): they must not linger.
      await removeUploads(files, run.flow.id, run.ctx.chatId, fileUploads);
      throw err;
    });
    return { result, chatMessageId };
  } catch (err) {
    throw redactError(err, run.secrets); // the last scrub before an error leaves (JSON body or stream frame)
  } finally {
    run.release();
  }
}

/** The JSON answer of a prediction. */
export function predictionAnswer(run: PreparedRun, done: Completed) {
  return {
    text: done.result.text,
    json: done.result.json ?? null,
    question: run.ctx.question,
    chatId: run.ctx.chatId,
    chatMessageId: done.chatMessageId,
    sessionId: run.ctx.sessionId,
    memoryType: done.result.memoryType,
    sourceDocuments: done.result.sourceDocuments ?? [],
    usedTools: done.result.usedTools ?? [],
    isStreamValid: run.streamable,
  };
}
