import type { PredictionInput } from "../../schemas/prediction";
import { type RecordStatement, type RecordedAnswer, type RunDeps, runFlow as runThroughDoor } from "../runs";
import { type RunnableFlow, findRunnable } from "../runs";
import { runsOnAgentflowRuntime } from "../runs";
import { type RunLookups, type SessionAsked, lookUpRun, mayReadMemory } from "../runs";
import { type TokenUsage, collectUsage } from "./usage";
import type { Deps } from "../deps";

export type { RunLookups, RunnableFlow, SessionAsked };
export type FlowRunDeps = RunDeps;

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

/** The run's answer as the door gave it (`json`: a chatflow's structured output), and what the adapter adds. */
export interface FlowRunOutcome extends Omit<RecordedAnswer, "action"> {
  /** An agentflow stopped for human input: `text` is its question. */
  paused: boolean;
  /** The text went out token by token through onToken (else not at all). */
  streamed: boolean;
  /** What the flow's chat models reported, summed; undefined when none did. */
  usage?: Omit<TokenUsage, "source">;
}

/**
 * The flow `id` and what a run needs beside it, in one D1 round trip with the caller's key (`token`)
 * and, when the request names a session the flow may read, its memory (as the run door's own batch:
 * no memory read between the batch and the model).
 */
export function lookUpFlow(deps: Deps<"db" | "env">, id: string, token: string | undefined, session?: SessionAsked): RunLookups {
  if (typeof session === "object") return lookUpRun(deps, id, token, { ...session, memory: session.memory && mayReadMemory(id) });
  return lookUpRun(deps, id, token, session && mayReadMemory(id) ? session : undefined);
}

/** The flow (or assistant) `id`, without the run's other look-ups; 404 when there is none. */
export const findFlow = (deps: Deps<"db">, id: string): Promise<RunnableFlow> => findRunnable(deps, id);

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
    ...(resume
      ? { humanInput: { type: resume.type, executionId: resume.executionId, ...(resume.feedback ? { feedback: resume.feedback } : {}) } }
      : {}),
  };
}

/** The outcome of an answer the door gave (its JSON answer), without what the adapter adds. */
function outcomeOf(answer: RecordedAnswer): Omit<FlowRunOutcome, "usage" | "streamed"> {
  const { executionId } = answer;
  return {
    text: answer.text,
    json: answer.json ?? undefined,
    chatId: answer.chatId,
    sessionId: answer.sessionId,
    chatMessageId: answer.chatMessageId,
    executionId,
    paused: executionId !== undefined && !!answer.action,
  };
}

/**
 * Runs the flow through the door (its look-ups handed in: one D1 round trip) and stores its exchange
 * (chatType OPENAI). With `onToken` the run streams where the flow can; `streamed` says whether it
 * did. `keep`: rows made from the outcome and written with its messages, in their batch (the
 * Responses API's stored response). Throws the run's ApiError (400, 404, 409, 502, 504, …).
 */
export async function runFlowAsModel(
  deps: FlowRunDeps,
  flow: RunnableFlow,
  lookups: RunLookups,
  input: FlowRunInput,
  options: { signal: AbortSignal; onToken?: (token: string) => void; keep?: (done: FlowRunOutcome) => Promise<RecordStatement[]> },
): Promise<FlowRunOutcome> {
  const { onToken } = options;
  let streamed = false;
  const token =
    onToken &&
    ((t: string) => {
      streamed = true;
      onToken(t);
    });
  const frames = token && {
    token,
    event: (name: string, data: unknown) => (name === "token" && typeof data === "string" ? token(data) : undefined),
  };
  const { keep } = options;
  // Called by the door before its record's batch: every model call of the run has reported by then.
  const recordAlso = keep && ((answer: RecordedAnswer) => keep({ ...outcomeOf(answer), streamed, usage: usage() }));
  const { result, usage } = collectUsage(async (): Promise<Omit<FlowRunOutcome, "usage" | "streamed">> => {
    const delivered = await runThroughDoor(deps, {
      trigger: "openai",
      flowId: flow.id,
      input: predictionInput(input, !!onToken),
      delivery: "json",
      signal: options.signal,
      lookups,
      frames,
      recordAlso,
    });
    if (delivered.kind !== "json") throw new Error("The openai trigger answers JSON");
    return outcomeOf(delivered.body);
  });
  const outcome = await result;
  return { ...outcome, streamed, usage: usage() };
}
