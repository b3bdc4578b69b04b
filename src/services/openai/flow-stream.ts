// What the two OpenAI endpoints (chat completions, responses) share when they answer a flow's run:
// the answer's text (a JSON response_format gets the structured output whole), the run streamed
// token by token into the caller's frames, and a failure after the stream opened as a status and
// a message that carries no secret.
import { ApiError } from "../../errors";
import { errorText, redact } from "../../lib/redact";
import type { RecordStatement } from "../runs";
import { type FlowRunDeps, type FlowRunInput, type FlowRunOutcome, type RunLookups, type RunnableFlow, runFlowAsModel } from "./run-flow";

/** The flow a request names as its model. */
export interface ChatTarget {
  flow: RunnableFlow;
  /** The flow's look-ups (one D1 batch), which the run goes on with. */
  lookups: RunLookups;
  /** The model as the request named it: answers echo it. */
  model: string;
}

export interface StreamLog {
  requestId: string;
  /** Secrets a stray error message must not carry (the worker's). */
  secrets: string[];
}

/** What a request to run the flow as a model holds (a chat completion's or a response's). */
export interface ModelRun {
  input: FlowRunInput;
  wantsJson: boolean;
}

/** The answer's content: with a JSON response_format, the flow's structured output as JSON text. */
export function contentOf(done: FlowRunOutcome, run: Pick<ModelRun, "wantsJson">): string {
  return run.wantsJson && done.json !== undefined && done.json !== null ? JSON.stringify(done.json) : done.text;
}

/**
 * The run, each token handed to `onToken` as it comes (none with a JSON response_format); `text` is
 * what the answer carries, and `whole` says it was not streamed and goes out in one piece.
 */
export async function runStreamed(
  deps: FlowRunDeps,
  target: ChatTarget,
  run: ModelRun,
  signal: AbortSignal,
  onToken: (token: string) => void,
  keep?: (done: FlowRunOutcome, text: string) => Promise<RecordStatement[]>,
): Promise<{ done: FlowRunOutcome; text: string; whole: boolean }> {
  let sent = "";
  const tokens = run.wantsJson
    ? undefined
    : (token: string) => {
        sent += token;
        onToken(token);
      };
  const textOf = (done: FlowRunOutcome) => (done.streamed ? sent : contentOf(done, run));
  const done = await runFlowAsModel(deps, target.flow, target.lookups, run.input, {
    signal,
    onToken: tokens,
    keep: keep && ((outcome) => keep(outcome, textOf(outcome))),
  });
  const text = textOf(done);
  return { done, text, whole: !done.streamed && text !== "" };
}

/** A stream's failure after it opened: its status and a message fit for the caller (unexpected ones logged, redacted). */
export function streamFailure(err: unknown, log: StreamLog, what: string): { status: number; message: string } {
  if (err instanceof ApiError) return { status: err.status, message: redact(err.message, log.secrets) };
  console.error(`[${log.requestId}] ${what} failed: ${redact(errorText(err), log.secrets)}`);
  return { status: 500, message: "The flow failed while answering" };
}

/** A controller that aborts with `signal` (the request's: the client hung up) and also on its own (the stream's reader went away). */
export function abortWith(signal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason ?? new Error("Client disconnected")), { once: true });
  return controller;
}
