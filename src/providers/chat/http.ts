// Shared plumbing for providers' HTTP answers: the provider's error message, server-sent event
// frames, and broken streams as ApiError 502. Deadlines and retries: src/lib/run-control.ts.
import { createParser } from "eventsource-parser";
import { badGateway } from "../../errors";
import { redact } from "../../lib/redact";

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
