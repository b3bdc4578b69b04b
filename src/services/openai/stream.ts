// An OpenAI event stream that opens late: at the run's first token, at its end, or after OPEN_WITHIN_MS
// — whichever comes first. A run refused or failing before that answers an ordinary error (its own
// status: a 400, a 502 from the model), which SDKs raise with its status; one failing after it ends
// the stream with an error event, which SDKs raise too. A write the client does not take (it went
// away) aborts the run.
import { HEARTBEAT_MS } from "../../stream/sse";

const encoder = new TextEncoder();

/** How long the headers may wait for the first token before the stream opens anyway (keeps proxies and clients from giving up). */
export const OPEN_WITHIN_MS = 5_000;

export interface FrameWriter {
  /** Writes a raw SSE block (already framed, ending with a blank line). */
  write(text: string): void;
}

export interface LateStreamParts {
  /** Runs the flow, calling `open()` before its first write of a token; resolves when every frame is written. */
  run(open: () => FrameWriter): Promise<void>;
  /** Frames that start the stream (a role chunk, response.created …), written once as it opens. */
  preamble(out: FrameWriter): void;
  /** Frames ending a stream the run failed after it opened. */
  failed(err: unknown, out: FrameWriter): void;
  /** The client went away: stop the run. */
  onGone(): void;
}

export interface LateStream {
  /** The body, once the stream opens; rejects with the run's error when it fails before. */
  readable: Promise<ReadableStream<Uint8Array>>;
  /** Settles when the run is over and the stream closed (for waitUntil). */
  work: Promise<void>;
}

export function startLateStream(parts: LateStreamParts, openWithinMs = OPEN_WITHIN_MS, heartbeatMs = HEARTBEAT_MS): LateStream {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let opened = false;
  let closed = false;
  let resolveReadable!: (r: ReadableStream<Uint8Array>) => void;
  let rejectReadable!: (err: unknown) => void;
  const readablePromise = new Promise<ReadableStream<Uint8Array>>((resolve, reject) => {
    resolveReadable = resolve;
    rejectReadable = reject;
  });
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  const gone = () => {
    if (closed) return;
    closed = true;
    parts.onGone();
  };
  const out: FrameWriter = {
    write(text) {
      if (closed) return;
      writer.write(encoder.encode(text)).catch(gone);
    },
  };
  const open = (): FrameWriter => {
    if (!opened) {
      opened = true;
      clearTimeout(timer);
      parts.preamble(out);
      // SSE comments, which SDKs skip: a long silence (a tool call, a slow model) stays a live connection.
      heartbeat = setInterval(() => out.write(": keep-alive\n\n"), heartbeatMs);
      resolveReadable(readable);
    }
    return out;
  };
  const timer = setTimeout(open, openWithinMs);

  const work = parts
    .run(open)
    .then(
      () => {
        open();
      },
      (err: unknown) => {
        clearTimeout(timer);
        if (!opened) {
          closed = true;
          rejectReadable(err);
          return;
        }
        parts.failed(err, out);
      },
    )
    .finally(async () => {
      clearInterval(heartbeat);
      if (!opened) return writer.abort().catch(() => undefined);
      closed = true;
      await writer.close().catch(() => undefined);
    });
  return { readable: readablePromise, work };
}
