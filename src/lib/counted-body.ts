// A request body counted as it streams, never held: the handler reads it piece by piece as it
// arrives, and the piece that passes the limit errors the stream instead of reaching the handler
// (so nothing past the limit is parsed or stored). Whatever the handler leaves unread is then read
// and thrown away (drained) before the answer goes out: workerd closes a connection whose request
// body is still arriving when the response is sent, and a client still sending then sees a reset
// (ECONNRESET, EPIPE) instead of the answer.
import { fail } from "../errors";

/** A route's body limit and the 413 message that names it. */
export interface BodyLimit {
  maxBytes: number;
  message: string;
}

/**
 * Past this much, a body is no longer drained: the answer goes out and the connection may close.
 * Cloudflare's edge refuses larger request bodies on every plan (500 MB at most), so only a local
 * server ever meets it.
 */
export const DRAIN_MAX_BYTES = 512 * 1024 * 1024;

/** Reads `reader` to its end (or `upTo` bytes) and discards it; answers how many bytes it read. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, upTo = DRAIN_MAX_BYTES): Promise<number> {
  let read = 0;
  try {
    while (read <= upTo) {
      const { done, value } = await reader.read();
      if (done) break;
      read += value.byteLength;
    }
  } catch {
    // The client went away: nothing left to drain.
  }
  return read;
}

export class CountedBody {
  /** Bytes read from the client so far, handed on or drained. */
  size = 0;
  /** The body passed the limit (the handler saw its stream fail). */
  over = false;
  /** What the handler reads instead of the request's own body. */
  readonly stream: ReadableStream<Uint8Array>;
  private ended = false;
  private pending: Promise<unknown> = Promise.resolve();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly limit: BodyLimit,
  ) {
    this.reader = body.getReader();
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => {
          const step = this.pullInto(controller);
          this.pending = step.catch(() => undefined);
          return step;
        },
        // The handler stopped reading: the rest is left for finish() to drain.
        cancel: () => undefined,
      },
      // Nothing is read ahead of the handler: a handler that answers without reading reads nothing.
      { highWaterMark: 0 },
    );
  }

  private async pullInto(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (this.ended || this.over) return controller.close();
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await this.reader.read();
    } catch (err) {
      this.ended = true;
      return controller.error(err);
    }
    if (next.done) {
      this.ended = true;
      return controller.close();
    }
    this.size += next.value.byteLength;
    if (this.size > this.limit.maxBytes) {
      this.over = true;
      return controller.error(fail("PAYLOAD_TOO_LARGE", this.limit.message));
    }
    controller.enqueue(next.value);
  }

  /**
   * After the handler: drains what it left unread (up to DRAIN_MAX_BYTES), counting it, and answers
   * whether the whole body passed the limit.
   */
  async finish(): Promise<boolean> {
    await this.pending;
    if (!this.ended) {
      this.ended = true;
      this.size += await drain(this.reader, Math.max(0, DRAIN_MAX_BYTES - this.size));
    }
    return this.over || this.size > this.limit.maxBytes;
  }
}
