// Shared plumbing for chat providers: one deadline per call (reset while a stream makes progress),
// the caller's abort signal, at most one retry, and provider failures as ApiError 502 / 504.
import { createParser } from "eventsource-parser";
import { ApiError, badGateway, gatewayTimeout } from "../../errors";
import { redact } from "../../lib/redact";

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
    super(502, message);
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

  touch(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.controller.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new Error("timeout"));
    }, this.ms);
  }

  done(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
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
    if (this.expired) return gatewayTimeout(`${provider} did not answer within ${Math.round(this.ms)} ms`);
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

/**
 * The provider's own error message from a non-2xx answer (OpenAI, Azure, Mistral, Ollama shapes):
 * the JSON body's message, else a short plain-text body's first line, else the status text — never
 * the body whole (a proxy may echo the request's headers), and scrubbed of anything shaped like a
 * credential. The caller scrubs the values it sent (redactError with its headers).
 */
export async function providerErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  let detail: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error as Record<string, unknown> | string | undefined;
    detail =
      (typeof error === "object" && error && typeof error.message === "string" && error.message) ||
      (typeof error === "string" && error) ||
      (typeof body.message === "string" && body.message) ||
      (typeof body.detail === "string" && body.detail) ||
      undefined;
  } catch {
    // not JSON: a plain-text message is quoted, an HTML page is not
    if (!/html/i.test(res.headers.get("content-type") ?? "") && !/^\s*</.test(text)) detail = text.trim().split(/\r?\n/)[0];
  }
  return redact((detail ?? "").slice(0, 300) || res.statusText || "no details");
}

/**
 * Splits a byte stream of server-sent events into the `data` payload of each event. `signal`
 * (a Deadline's) ends a read that waits too long, for streams that no fetch signal governs.
 */
export async function* sseData(body: ReadableStream<Uint8Array>, onProgress?: () => void, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  let stop: Promise<never> | undefined;
  if (signal) {
    stop = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    stop.catch(() => {}); // observed through the race below
  }
  const read = () => (stop ? Promise.race([reader.read(), stop]) : reader.read());
  const decoder = new TextDecoder();
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data) });
  try {
    for (;;) {
      const { done, value } = await read();
      if (done) break;
      onProgress?.();
      parser.feed(decoder.decode(value, { stream: true }));
      yield* events.splice(0);
    }
    // A last event without its blank line still counts (the stream's end closes it).
    parser.feed(`${decoder.decode()}\n\n`);
    yield* events.splice(0);
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * One stream frame's JSON object. A frame that is not one is a broken stream (502), not noise to
 * skip: skipping would store an answer with a hole in it as if it were whole.
 */
export function streamEvent(data: string, provider: string): Record<string, unknown> {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    event = undefined;
  }
  if (!event || typeof event !== "object" || Array.isArray(event)) {
    throw badGateway(`${provider} sent a malformed stream frame: ${redact(data.slice(0, 80))}`);
  }
  return event as Record<string, unknown>;
}

/** A stream that ended without saying it was done ([DONE], a finish_reason): cut short, so a failure. */
export const streamCutShort = (provider: string) =>
  badGateway(`${provider}'s answer stream ended before the answer was complete (no [DONE] or finish_reason)`);
