// The late-opening event stream under the OpenAI answers (services/openai/stream.ts): it opens at the
// first write or after its wait, a failure before that rejects (the route answers a plain error with
// its status), one after it ends with the error frames; a reader that goes away stops the run.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors";
import { startLateStream } from "../../src/services/openai/stream";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const textOf = (readable: ReadableStream<Uint8Array>) => new Response(readable).text();

describe("startLateStream", () => {
  it("opens at the first write: the preamble, then the run's frames", async () => {
    const stream = startLateStream({
      preamble: (out) => out.write("data: start\n\n"),
      async run(open) {
        await sleep(20);
        open().write("data: token\n\n");
      },
      failed: () => undefined,
      onGone: () => undefined,
    });
    expect(await textOf(await stream.readable)).toBe("data: start\n\ndata: token\n\n");
    await stream.work;
  });

  it("a run failing before it opened rejects with its error (so the answer keeps its status); nothing is framed", async () => {
    const failed: unknown[] = [];
    const stream = startLateStream({
      preamble: () => undefined,
      async run() {
        throw new ApiError(502, "the model failed");
      },
      failed: (err) => failed.push(err),
      onGone: () => undefined,
    });
    await expect(stream.readable).rejects.toMatchObject({ status: 502 });
    await stream.work;
    expect(failed).toEqual([]);
  });

  it("opens after its wait with no token yet; a later failure is written as the error frames", async () => {
    let opened = 0;
    const stream = startLateStream(
      {
        preamble: (out) => {
          opened = Date.now();
          out.write("data: start\n\n");
        },
        async run() {
          await sleep(150);
          throw new ApiError(504, "too slow");
        },
        failed: (err, out) => out.write(`data: error ${(err as ApiError).status}\n\n`),
        onGone: () => undefined,
      },
      30,
      40,
    );
    const started = Date.now();
    const readable = await stream.readable;
    expect(Date.now() - started).toBeLessThan(140); // before the run ended
    const text = await textOf(readable);
    expect(opened).toBeGreaterThan(0);
    expect(text.startsWith("data: start\n\n")).toBe(true);
    expect(text).toContain(": keep-alive\n\n"); // every 40 ms while nothing else is sent
    expect(text.endsWith("data: error 504\n\n")).toBe(true);
  });

  it("a reader that cancels stops the run (onGone)", async () => {
    let gone = false;
    const stream = startLateStream({
      preamble: () => undefined,
      async run(open) {
        for (let i = 0; i < 50 && !gone; i++) {
          open().write(`data: ${i}\n\n`);
          await sleep(10);
        }
      },
      failed: () => undefined,
      onGone: () => {
        gone = true;
      },
    });
    const reader = (await stream.readable).getReader();
    await reader.read();
    await reader.cancel();
    await stream.work;
    expect(gone).toBe(true);
  });
});
