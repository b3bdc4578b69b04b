// How a call out of a run is bounded: the run's abort (RunAborted), one deadline per attempt (reset
// while a stream makes progress), and at most one retry of a failure worth it (network, 5xx) before
// anything was produced. Shared by providers, tools, the sandbox and the engine's runtimes.
import { ApiError, fail } from "../errors";

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Thrown when the caller's signal aborted the call (client gone, PUT /chatmessage/abort). */
export class RunAborted extends Error {
  constructor(message = "The run was aborted") {
    super(message);
    this.name = "AbortError";
  }
}

/** A failure worth one more attempt (network, 5xx) when nothing has been produced yet. */
export class RetryableProviderError extends ApiError {
  constructor(message: string) {
    super("MODEL_FAILED", message);
  }
}

export function timeoutOf(value: unknown): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_TIMEOUT_MS;
}

/**
 * One attempt's deadline, linked to the caller's signal. `signal` aborts on either; `touch()`
 * restarts the clock (a stream that keeps producing is not timed out); `done()` releases it.
 */
export class Deadline {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired = false;
  private readonly unlink: () => void;

  constructor(
    private readonly ms: number,
    private readonly external?: AbortSignal,
  ) {
    const onAbort = () => this.controller.abort(new RunAborted());
    if (external?.aborted) onAbort();
    external?.addEventListener("abort", onAbort);
    this.unlink = () => external?.removeEventListener("abort", onAbort);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.expired;
  }

  get aborted(): boolean {
    return !!this.external?.aborted;
  }

  /**
   * Restarts the clock. Called for every chunk of a stream, so it only notes the time: the one
   * timer, when it fires, waits again for what is left since the last touch (a timer cleared and
   * set per token cost more CPU than the token's own handling).
   */
  touch(): void {
    this.touched = Date.now();
    if (this.timer === undefined && !this.controller.signal.aborted) this.arm(this.ms);
  }

  private touched = 0;

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const left = this.touched + this.ms - Date.now();
      if (left > 0) return this.arm(left);
      this.expired = true;
      this.controller.abort(new Error("timeout"));
    }, ms);
  }

  done(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.touched = Number.NEGATIVE_INFINITY; // no re-arming after done
    this.unlink();
  }

  /** Rejects when the deadline passes or the caller aborts; for awaiting things that take no signal. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  /** Maps whatever a call threw into the error the engine reports. */
  failure(err: unknown, provider: string): Error {
    if (this.aborted) return new RunAborted();
    if (this.expired) return fail("MODEL_TIMEOUT", `${provider} did not answer within ${Math.round(this.ms)} ms`);
    if (err instanceof ApiError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new RetryableProviderError(`${provider} request failed: ${message}`);
  }
}

/** Runs `attempt` once more when it fails with a retryable error and `produced()` is still false. */
export async function withOneRetry<T>(attempt: () => Promise<T>, produced: () => boolean, signal?: AbortSignal): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!(err instanceof RetryableProviderError) || produced() || signal?.aborted) throw err;
    return attempt();
  }
}

/** How a chat call is retried: per-attempt time limit, the caller's signal, the provider's name. */
export interface AttemptRules {
  timeoutMs: number;
  signal?: AbortSignal;
  provider: string;
  /** Scrubs the error that leaves (a provider may echo the key it was sent). */
  scrub?: (err: Error) => Error;
}

/** One call, each attempt under its own Deadline; a retryable failure (5xx, network) is tried once more. */
export async function callWithRetry<T>(rules: AttemptRules, attempt: (deadline: Deadline) => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    const deadline = new Deadline(rules.timeoutMs, rules.signal);
    try {
      return await attempt(deadline);
    } catch (err) {
      const failure = deadline.failure(err, rules.provider);
      if (failure instanceof RetryableProviderError && n === 0 && !rules.signal?.aborted) continue;
      throw rules.scrub ? rules.scrub(failure) : failure;
    } finally {
      deadline.done();
    }
  }
}

/** A stream, each attempt under its own Deadline; retried once like callWithRetry, but only before its first item. */
export async function* streamWithRetry<T>(rules: AttemptRules, attempt: (deadline: Deadline) => AsyncGenerator<T>): AsyncGenerator<T> {
  let produced = false;
  for (let n = 0; ; n++) {
    const deadline = new Deadline(rules.timeoutMs, rules.signal);
    try {
      for await (const item of attempt(deadline)) {
        produced = true;
        yield item;
      }
      return;
    } catch (err) {
      const failure = deadline.failure(err, rules.provider);
      if (failure instanceof RetryableProviderError && n === 0 && !produced && !rules.signal?.aborted) continue;
      throw rules.scrub ? rules.scrub(failure) : failure;
    } finally {
      deadline.done();
    }
  }
}
