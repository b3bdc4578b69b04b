// The OpenAI-compatible API's one way to run a flow: look it up, then run it whole (JSON) or with a
// token callback (streaming), its messages stored with chatType OPENAI. Every other file of the
// OpenAI API goes through this one, so it alone follows how runs are started (today the prediction
// services; later the run door).
import type { Db, Env } from "../../env";
import type { Runtime, StreamSink } from "../../engine";
import type { PredictionInput } from "../../schemas/prediction";
import { type Prefetched, type RunnableFlow, executeRun, findRunnable, predictionAnswer, prepareRun } from "../prediction";
import { agentflowAnswer, executeAgentflow } from "../prediction/agentflow";
import { runsOnAgentflowRuntime } from "../prediction/agentflow-check";
import { prepareAgentflowRun } from "../prediction/agentflow-prepare";
import { type RunLookups, lookUpRun } from "../prediction/lookups";
import { type TokenUsage, collectUsage } from "./usage";

export type { Prefetched, RunnableFlow };

export interface FlowRunDeps {
  db: Db;
  env: Env;
  runtime: Runtime;
}

export interface FlowTurn {
  role: "userMessage" | "apiMessage";
  content: string;
}

export interface FlowRunInput {
  question: string;
  /** Earlier turns sent with the request (before the flow's stored memory of the session). */
  history: FlowTurn[];
  chatId?: string;
  sessionId?: string;
  /** overrideConfig parameters; each applies only where the flow's apiConfig.overrideConfig enables it. */
  overrides: Record<string, unknown>;
  /** Resumes the paused agentflow run `executionId`. */
  resume?: { executionId: string; type: "proceed" | "reject"; feedback?: string };
}

export interface FlowRunOutcome {
  text: string;
  /** A chatflow's structured output (its output parser's JSON), when it has one. */
  json?: unknown;
  chatId: string;
  sessionId: string;
  chatMessageId: string;
  /** Agentflows: the execution (paused or not). */
  executionId?: string;
  /** An agentflow stopped for human input: `text` is its question. */
  paused: boolean;
  /** The text went out token by token through onToken (else not at all). */
  streamed: boolean;
  /** What the flow's chat models reported, summed; undefined when none did. */
  usage?: Omit<TokenUsage, "source">;
}

/** The flow `id` and what a run needs beside it, in one D1 round trip with the caller's key (`token`). */
export function lookUpFlow(deps: FlowRunDeps, id: string, token: string | undefined): RunLookups {
  return lookUpRun(deps.db, deps.env, id, token);
}

/** The flow (or assistant) `id`, without the run's other look-ups; 404 when there is none. */
export const findFlow = (db: Db, id: string): Promise<RunnableFlow> => findRunnable(db, id);

export const isAgentflow = (flow: RunnableFlow): boolean => runsOnAgentflowRuntime(flow.type);

function predictionInput(input: FlowRunInput, streaming: boolean): PredictionInput {
  const overrideConfig: Record<string, unknown> = { ...input.overrides };
  if (input.sessionId) overrideConfig.sessionId = input.sessionId;
  const { resume } = input;
  return {
    question: input.question,
    history: input.history,
    chatId: input.chatId,
    overrideConfig,
    streaming,
    ...(resume ? { humanInput: { type: resume.type, executionId: resume.executionId, ...(resume.feedback ? { feedback: resume.feedback } : {}) } } : {}),
  };
}

/** The run stops when `signal` does (the client went away). */
function follow(signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
}

/**
 * Runs the flow and stores its exchange (chatType OPENAI). With `onToken` the run streams where the
 * flow can; `streamed` says whether it did. Throws the run's ApiError (400, 404, 409, 502, 504, …).
 */
export async function runFlow(
  deps: FlowRunDeps, flow: RunnableFlow, prefetched: Prefetched, input: FlowRunInput, options: { signal: AbortSignal; onToken?: (token: string) => void },
): Promise<FlowRunOutcome> {
  const { onToken } = options;
  let streamed = false;
  const token = onToken && ((t: string) => {
    streamed = true;
    onToken(t);
  });
  const request = predictionInput(input, !!onToken);
  const { result, usage } = collectUsage(async (): Promise<Omit<FlowRunOutcome, "usage" | "streamed">> => {
    if (isAgentflow(flow)) {
      const run = await prepareAgentflowRun(deps.db, deps.env, deps.runtime, flow, request, [], prefetched);
      run.chatType = "OPENAI";
      follow(options.signal, run.controller);
      const done = await executeAgentflow(run, token ? { event: (name, data) => { if (name === "token" && typeof data === "string") token(data); } } : undefined);
      const answer = agentflowAnswer(run, done);
      return {
        text: answer.text, chatId: answer.chatId, sessionId: answer.sessionId, chatMessageId: answer.chatMessageId,
        executionId: answer.executionId, paused: done.outcome.state === "STOPPED",
      };
    }
    const run = await prepareRun(deps.db, deps.env, deps.runtime, flow, request, [], prefetched);
    run.chatType = "OPENAI";
    follow(options.signal, run.controller);
    const sink: StreamSink | undefined = token && run.streamable ? { token, event: () => undefined } : undefined;
    const answer = predictionAnswer(run, await executeRun(run, deps.env.FILES, sink));
    return {
      text: answer.text, json: answer.json ?? undefined, chatId: answer.chatId, sessionId: answer.sessionId,
      chatMessageId: answer.chatMessageId, paused: false,
    };
  });
  const outcome = await result;
  return { ...outcome, streamed, usage: usage() };
}
