// The SSE writer on its own: the `:heartbeat` comment every 30 s (fake timers) or at an injected
// interval, frames never split by it, nothing after `end`, and a client that went away noticed
// at the next write — a heartbeat included — exactly once.
import { FlowiseClient } from "flowise-sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HEARTBEAT_MS, SseWriter, frame } from "../../src/stream/sse";

const HEARTBEAT = ":heartbeat\n\n";

/**
 * Reads the writer's stream into `chunks` as it arrives; `done` settles when it closes or the
 * reader cancels (workerd's native byte stream rejects the pending read with the cancel's reason).
 */
function drain(sse: SseWriter) {
  const reader = sse.readable.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  let cancelled = false;
  const cancel = reader.cancel.bind(reader);
  reader.cancel = (reason?: unknown) => {
    cancelled = true;
    return cancel(reason);
  };
  const done = (async () => {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (err) {
        if (cancelled) return;
        throw err;
      }
      if (read.done) return;
      chunks.push(decoder.decode(read.value, { stream: true }));
    }
  })();
  return { reader, chunks, done, text: () => chunks.join("") };
}

const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("SseWriter heartbeat", () => {
  it("is 30 s by default: nothing before, one comment at 30 s, another at 60 s, none after end", async () => {
    expect(HEARTBEAT_MS).toBe(30_000);
    vi.useFakeTimers();
    const sse = new SseWriter(() => {});
    const out = drain(sse);

    await vi.advanceTimersByTimeAsync(29_999);
    expect(out.chunks).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(out.chunks).toEqual([HEARTBEAT]);

    sse.token("hi");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(out.text()).toBe(HEARTBEAT + frame("start", "") + frame("token", "hi") + HEARTBEAT);

    await sse.end();
    await out.done; // the stream closed
    const before = out.text();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(out.text()).toBe(before);
    expect(before.endsWith(frame("end", "[DONE]"))).toBe(true);
  });

  it("an injected interval: heartbeats come between whole frames, and stop with end", async () => {
    const sse = new SseWriter(() => {}, 10);
    const out = drain(sse);
    await wait(35);
    sse.token("a");
    await wait(35);
    sse.token("b");
    sse.event("metadata", { chatId: "c" });
    await sse.end();
    await out.done;
    const text = out.text();

    // Each chunk is whole frames (those made in one turn go out as one write) or one heartbeat: a
    // heartbeat never lands inside a frame.
    const expectedFrames = [
      frame("start", ""),
      frame("token", "a"),
      frame("token", "b"),
      frame("metadata", { chatId: "c" }),
      frame("end", "[DONE]"),
    ];
    const written = out.chunks.filter((c) => c !== HEARTBEAT);
    expect(written.join("")).toBe(expectedFrames.join(""));
    for (const chunk of written) expect(chunk.split(/(?<=\n\n)/).every((f) => expectedFrames.includes(f))).toBe(true);
    expect(written).toEqual([
      frame("start", "") + frame("token", "a"),
      frame("token", "b") + frame("metadata", { chatId: "c" }) + frame("end", "[DONE]"),
    ]);
    const beats = out.chunks.filter((c) => c === HEARTBEAT).length;
    expect(beats).toBeGreaterThanOrEqual(4); // ~70 ms at 10 ms (timers may run late, never early)
    expect(text.startsWith(HEARTBEAT)).toBe(true);
    expect(text.endsWith(frame("end", "[DONE]"))).toBe(true);

    await wait(40);
    expect(out.text()).toBe(text); // nothing after end
  });

  it("a client gone while the model is silent is noticed at the next heartbeat: onGone once, then silence", async () => {
    vi.useFakeTimers();
    const onGone = vi.fn();
    const sse = new SseWriter(onGone);
    const out = drain(sse);
    sse.token("first");
    await vi.advanceTimersByTimeAsync(0);
    await out.reader.cancel("client went away");
    await out.done;
    expect(onGone).not.toHaveBeenCalled(); // nothing written yet since the cancel

    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS); // the heartbeat's write fails
    expect(onGone).toHaveBeenCalledTimes(1);

    sse.token("late");
    sse.error("late");
    await vi.advanceTimersByTimeAsync(10 * HEARTBEAT_MS);
    await sse.end(); // ending a stream that is gone neither throws nor calls onGone again
    expect(onGone).toHaveBeenCalledTimes(1);
  });

  it("a write after the client cancelled calls onGone once, however many writes follow", async () => {
    const onGone = vi.fn();
    const sse = new SseWriter(onGone, 60_000);
    const out = drain(sse);
    sse.token("one");
    await wait(0);
    await out.reader.cancel();
    for (let i = 0; i < 5; i++) sse.token(`more ${i}`);
    await wait(10);
    expect(onGone).toHaveBeenCalledTimes(1);
    await sse.end();
    expect(onGone).toHaveBeenCalledTimes(1);
  });
});

describe("flowise-sdk reads a stream with heartbeats in it", () => {
  it("yields only the data frames", async () => {
    const sse = new SseWriter(() => {}, 5);
    const passthrough = globalThis.fetch.bind(globalThis);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new Request(input, init).url;
      if (url.endsWith("/api/v1/chatflows-streaming/flow-1")) return Response.json({ isStreaming: true });
      if (url.endsWith("/api/v1/prediction/flow-1"))
        return new Response(sse.readable, { headers: { "content-type": "text/event-stream" } });
      return passthrough(input, init);
    });
    // The model speaks slowly: heartbeats go out before, between and after its tokens.
    const writing = (async () => {
      await wait(20);
      sse.token("Hello");
      await wait(20);
      sse.token(" world");
      await wait(20);
      sse.event("metadata", { chatId: "c1", chatMessageId: "m1" });
      await sse.end();
    })();

    const client = new FlowiseClient({ baseUrl: "http://sdk.test" });
    const stream = (await client.createPrediction({ chatflowId: "flow-1", question: "q", streaming: true })) as AsyncIterable<{
      event: string;
      data: unknown;
    }>;
    const events: { event: string; data: unknown }[] = [];
    for await (const e of stream) events.push(e);
    await writing;
    expect(events).toEqual([
      { event: "start", data: "" },
      { event: "token", data: "Hello" },
      { event: "token", data: " world" },
      { event: "metadata", data: { chatId: "c1", chatMessageId: "m1" } },
      { event: "end", data: "[DONE]" },
    ]);
  });
});
