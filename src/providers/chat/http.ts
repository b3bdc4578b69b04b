// Shared plumbing for chat providers' HTTP calls: the one request (a JSON POST) under a deadline
// and the outbound policy, non-2xx as the provider's error, the JSON answer, server-sent event
// frames, and broken answers and streams as ApiError 502. Deadlines and retries: src/lib/run-control.ts.
import { createParser } from "eventsource-parser";
import { fail } from "../../errors";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { type Deadline, RetryableProviderError } from "../../lib/run-control";

/** What a provider is sent: where, with which headers (content-type is added), what (as JSON). */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * One request under `deadline` and the outbound policy (`policy`: the URL and every redirect hop
 * checked; a refusal is its 400): non-2xx → 502 naming the provider (retryable when 5xx), network
 * failure → retryable 502. Every chat provider's request goes out here.
 */
export async function providerFetch(
  url: string,
  init: RequestInit,
  deadline: Deadline,
  provider: string,
  policy: EndpointPolicy,
): Promise<Response> {
  let res: Response;
  try {
    res = await endpointFetch(url, { ...init, signal: deadline.signal }, policy);
  } catch (err) {
    throw deadline.failure(err, provider);
  }
  if (!res.ok) {
    const message = `${provider} answered ${res.status}: ${await deadline.race(providerErrorMessage(res)).catch(() => res.statusText)}`;
    throw res.status >= 500 ? new RetryableProviderError(message) : fail("MODEL_FAILED", message);
  }
  return res;
}

/** `req` POSTed as JSON (providerFetch's rules). */
export function postJson(req: WireRequest, deadline: Deadline, provider: string, policy: EndpointPolicy): Promise<Response> {
  const init = { method: "POST", headers: { "content-type": "application/json", ...req.headers }, body: JSON.stringify(req.body) };
  return providerFetch(req.url, init, deadline, provider, policy);
}

/** The JSON body of a 2xx answer; a body that is not JSON → 502. */
export async function readJson<T = Record<string, unknown>>(res: Response, deadline: Deadline, provider: string): Promise<T> {
  try {
    return (await deadline.race(res.json())) as T;
  } catch (err) {
    if (deadline.timedOut || deadline.aborted) throw err;
    throw fail("MODEL_FAILED", `${provider} answered with a body that is not JSON`);
  }
}

/** The message of an `error` a provider put in a 2xx answer or a stream frame (a string or {message}). */
export function messageOf(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return JSON.stringify(error);
}

/**
 * The provider's own error message from a non-2xx answer (OpenAI, Azure, Mistral, Ollama, watsonx shapes):
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
      // IBM watsonx.ai: {errors: [{code, message}], status_code}
      (Array.isArray(body.errors) && typeof body.errors[0]?.message === "string" && body.errors[0].message) ||
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
  // The signal cancels the reader (its pending read then ends) rather than racing each read against
  // a promise: one listener per stream instead of a Promise.race per chunk on the token path.
  const onAbort = () => reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  const events: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event.data) });
  try {
    for (;;) {
      // Checked around the read in the loop itself: no async function (and promise) more per chunk.
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      onProgress?.();
      parser.feed(decoder.decode(value, { stream: true }));
      yield* events.splice(0);
    }
    // A last event without its blank line still counts (the stream's end closes it).
    parser.feed(`${decoder.decode()}\n\n`);
    yield* events.splice(0);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {});
  }
}

/** `body`'s event payloads under `deadline`: every chunk restarts its clock, its end stops a waiting read. */
export const eventsOf = (body: ReadableStream<Uint8Array>, deadline: Deadline): AsyncGenerator<string> =>
  sseData(body, () => deadline.touch(), deadline.signal);

/**
 * The JSON events of a chat completions stream (OpenAI's shape; Workers AI streams it too) up to
 * `[DONE]`: keep-alives skipped, a frame that is not a JSON object a 502, and a stream that ends
 * without [DONE] or a finish_reason a 502 (cut short). `stopOnAbort`: for a stream no fetch signal
 * governs, the deadline is checked before every frame (one read may bring many).
 */
export async function* chatCompletionEvents(
  body: ReadableStream<Uint8Array>,
  deadline: Deadline,
  provider: string,
  stopOnAbort = false,
): AsyncGenerator<Record<string, unknown>> {
  let complete = false; // [DONE] or a finish_reason seen: anything less is a cut-off answer
  for await (const data of eventsOf(body, deadline)) {
    if (stopOnAbort && deadline.signal.aborted) throw deadline.signal.reason;
    if (data.trim() === "[DONE]") {
      complete = true;
      break;
    }
    if (!data.trim()) continue; // an empty keep-alive event
    const event = streamEvent(data, provider);
    if ((event.choices as Array<{ finish_reason?: unknown }> | undefined)?.[0]?.finish_reason) complete = true;
    yield event;
  }
  if (!complete) throw streamCutShort(provider);
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
    throw fail("MODEL_FAILED", `${provider} sent a malformed stream frame: ${redact(data.slice(0, 80))}`);
  }
  return event as Record<string, unknown>;
}

/** A stream that ended without saying it was done ([DONE], a finish_reason): cut short, so a failure. */
export const streamCutShort = (provider: string) =>
  fail("MODEL_FAILED", `${provider}'s answer stream ended before the answer was complete (no [DONE] or finish_reason)`);
