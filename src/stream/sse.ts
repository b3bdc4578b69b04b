import type { SourceDocument, UsedTool } from "../engine";
import { redact } from "../lib/redact";

const encoder = new TextEncoder();
export const HEARTBEAT_MS = 30_000;

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

/** One frame exactly as Flowise writes it: `message:\ndata:{...}\n\n`, no space after `data:`. */
export const frame = (event: string, data: unknown): string => `message:\ndata:${JSON.stringify({ event, data })}\n\n`;

/**
 * Flowise's event stream over a TransformStream. Each frame is written (and so flushed) as soon
 * as it exists. A failed write means the client went away: `onGone` fires once so the run can be
 * aborted.
 */
export class SseWriter {
  readonly readable: ReadableStream<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private started = false;
  private closed = false;
  private readonly heartbeat: ReturnType<typeof setInterval>;

  /** `heartbeatMs`: how often the `:heartbeat` comment goes out (tests shorten it). */
  constructor(
    private readonly onGone: () => void,
    heartbeatMs: number = HEARTBEAT_MS,
  ) {
    // workerd's native byte pipe: each frame goes to the socket without the JS stream machinery a
    // standard TransformStream runs per chunk (a stream writes one frame per token).
    const { readable, writable } = new IdentityTransformStream({ highWaterMark: 1 << 16 });
    this.readable = readable;
    this.writer = writable.getWriter();
    this.heartbeat = setInterval(() => this.write(":heartbeat\n\n"), heartbeatMs);
  }

  // Frames made in one turn of the event loop (a model chunk often carries several tokens) go out as
  // one write at the end of that turn: no later than one by one, for one encode and one write promise.
  private pending = "";

  private write(text: string): void {
    if (this.closed) return;
    if (!this.pending) queueMicrotask(() => this.flush());
    this.pending += text;
  }

  private flush(): void {
    const text = this.pending;
    this.pending = "";
    if (!text || this.closed) return;
    this.writer.write(encoder.encode(text)).catch(() => this.gone());
  }

  private gone(): void {
    if (this.closed) return;
    this.stop();
    this.onGone();
  }

  private stop(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
  }

  /** `start` goes out once, just before the first token (as Flowise 3 sends it). */
  token(text: string): void {
    if (!this.started) {
      this.started = true;
      this.write(frame("start", ""));
    }
    this.write(frame("token", text));
  }

  sourceDocuments(docs: SourceDocument[]): void {
    this.write(frame("sourceDocuments", docs));
  }

  usedTools(tools: UsedTool[]): void {
    this.write(frame("usedTools", tools));
  }

  event(event: string, data: unknown): void {
    this.write(frame(event, data));
  }

  /** The message scrubbed of anything shaped like a credential (the run scrubbed its known values). */
  error(message: string): void {
    this.write(frame("error", redact(message)));
  }

  /** Sends `end` and closes the stream. */
  async end(): Promise<void> {
    if (this.closed) return;
    this.write(frame("end", "[DONE]"));
    this.flush();
    this.stop();
    await this.writer.close().catch(() => undefined);
  }
}
