// A whole run's time limit (RUN_TIMEOUT_MS, default 120 s; a detached run's is ASYNC_RUN_TIMEOUT_MS,
// handed in as RunDeps.timeLimitMs). A model's own deadline restarts with
// every token, so one that trickles a token a second would hold a run — and its isolate's memory —
// forever; this clock does not move. Past it the run is aborted and answers 504 (JSON) or an
// `error` frame then `end` (stream), with nothing stored.
import { configOf } from "../../config";
import { ApiError, gatewayTimeout } from "../../errors";

export function runTimeoutMs(env: { RUN_TIMEOUT_MS?: unknown }): number {
  return configOf(env).RUN_TIMEOUT_MS;
}

/** The abort reason of a run stopped by its time limit. */
class RunTimedOut extends Error {
  constructor(readonly ms: number) {
    super(`The run did not finish within its time limit (${Number((ms / 1000).toFixed(1))} s)`);
    this.name = "RunTimedOut";
  }
}

/** Aborts `controller` once `ms` pass; answers the function that stops the clock. */
export function limitRunTime(ms: number, controller: AbortController): () => void {
  const timer = setTimeout(() => controller.abort(new RunTimedOut(ms)), ms);
  return () => clearTimeout(timer);
}

/** The error of a run whose signal aborted: 504 past its time limit, else 499 (its caller stopped it). */
export function stoppedRunError(signal: AbortSignal): ApiError {
  // 499 (client closed request): the run was stopped by its caller, by abort or by disconnecting.
  return signal.reason instanceof RunTimedOut ? gatewayTimeout(signal.reason.message) : new ApiError(499, "The run was aborted");
}

/**
 * `work`'s outcome, or a rejection as soon as `signal` aborts: work that does not watch the signal
 * (a busy node) cannot hold the answer past the limit; its late result is dropped unused.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined); // a rejection after the abort is nobody's to handle
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
