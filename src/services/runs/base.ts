// What every run has, whatever its flow's kind: its ids, its abort, its clock and in-flight entry,
// the variables and credentials it reads, the secrets its errors are scrubbed of.
import type { ChatType } from "../../db/enums";
import type { Env } from "../../env";
import { newId } from "../../lib/ids";
import { workerSecretValues } from "../../lib/secrets";
import type { PredictionInput } from "../../schemas/prediction";
import { type CredentialReader, notingSecrets } from "./credentials";
import type { RunnableFlow } from "./flow";
import { trackRun } from "./in-flight";
import type { Prefetched, SessionMemory } from "./lookups";
import { gateVarOverrides } from "./overrides";
import { limitRunTime, runTimeoutMs } from "./time-limit";
import type { RunDeps } from "./types";
import type { UploadInput } from "./uploads";
import type { RunTrace } from "../tracing";

export interface RunBase {
  flow: RunnableFlow;
  input: PredictionInput;
  uploads: UploadInput[];
  /** The trigger's chatType, for the stored messages. */
  chatType: ChatType;
  controller: AbortController;
  /** Secret values this run knows (the worker's, its credentials'): its errors are scrubbed of them. */
  secrets: Set<string>;
  /** `{{$vars.x}}`: the stored variables with the gated overrideConfig.vars applied. */
  vars: Record<string, string>;
  getCredential: CredentialReader;
  /** The named session's memory, read in the run's look-ups (prepare.ts); undefined: read it when needed. */
  session?: SessionMemory;
  /** Stops the run's clock (its time limit: time-limit.ts) and its in-flight entry (PUT /chatmessage/abort). */
  release: () => void;
  /** The run's trace, when its chatflow's analytic switches a backend on (services/runs/trace.ts). */
  trace?: RunTrace;
}

export function runBase(
  env: Env,
  flow: RunnableFlow,
  prefetched: Prefetched,
  input: PredictionInput,
  uploads: UploadInput[],
  chatType: ChatType,
): Omit<RunBase, "release"> {
  const secrets = new Set(workerSecretValues(env));
  return {
    flow,
    input,
    uploads,
    chatType,
    secrets,
    controller: new AbortController(),
    vars: { ...prefetched.vars, ...gateVarOverrides(flow.apiConfig, input.overrideConfig ?? {}) },
    getCredential: notingSecrets(prefetched.getCredential, secrets),
    session: prefetched.session,
  };
}

const overrideSessionOf = (input: PredictionInput): string | undefined => {
  const session = input.overrideConfig?.sessionId;
  return typeof session === "string" && session ? session : undefined;
};

/** The session a request names: overrideConfig.sessionId, else its chatId (undefined: a new one). */
export const askedSessionOf = (input: PredictionInput): string | undefined => overrideSessionOf(input) ?? input.chatId;

/**
 * sessionId = the resumed execution's, else overrideConfig.sessionId, else chatId, else new;
 * chatId = body chatId, else overrideConfig.sessionId, else sessionId.
 */
export function runIds(input: PredictionInput, resumedSession?: string): { chatId: string; sessionId: string } {
  const sessionId = resumedSession ?? askedSessionOf(input) ?? newId();
  return { sessionId, chatId: input.chatId ?? overrideSessionOf(input) ?? sessionId };
}

/** Starts the run's clock (the deps' time limit, else RUN_TIMEOUT_MS) and its in-flight entry; answers the function that stops both. */
export function track(deps: Pick<RunDeps, "env" | "timeLimitMs">, flowId: string, chatId: string, controller: AbortController): () => void {
  const untrack = trackRun(flowId, chatId, controller);
  const stopClock = limitRunTime(deps.timeLimitMs ?? runTimeoutMs(deps.env), controller);
  return () => {
    stopClock();
    untrack();
  };
}
