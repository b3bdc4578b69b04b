// Issue 8, point 7: a model stream with a malformed frame, or one that ends without [DONE] or a
// finish_reason, was stored as a complete answer (the broken frame skipped as noise); a model that
// trickles a token a second held a run forever (its per-call deadline restarts with each token).
// Now both broken streams are an `error` frame (nothing stored), and a whole run stops at
// RUN_TIMEOUT_MS: `error` + `end` when streaming, 504 JSON otherwise.
import { describe, expect, it } from "vitest";
import { runTimeoutMs } from "../../src/services/runs/time-limit";
import { makeCtx, recordingSink, runFlow, runtimeWith } from "../engine/helpers";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import { type Fixture, flowDataOf } from "../engine/helpers";
import { call, expectError, json } from "../helpers";
import { framesOf, openAICredential, saveChain, setVars } from "./helpers";

const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);

async function streamed(question: string) {
  const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
  const frames = await framesOf(await call("POST", `/prediction/${id}`, { body: { question, streaming: true } }));
  return { id, frames };
}

describe("a broken model stream is an error, not an answer", () => {
  it("a frame that is not JSON: the tokens so far, then error and end; nothing stored", async () => {
    const { id, frames } = await streamed("[malformed] one two three four five six");
    const events = frames.map((f) => f.event);
    expect(events.slice(-2)).toEqual(["error", "end"]);
    expect(events).not.toContain("metadata");
    expect(frames.at(-2)!.data).toMatch(/OpenAI-compatible endpoint sent a malformed stream frame/);
    expect(
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).not.toContain("lost");
    expect(await messagesOf(id)).toEqual([]);
  });

  it("a stream that ends without [DONE] or finish_reason: error and end; nothing stored", async () => {
    const { id, frames } = await streamed("[cutoff] one two three four five six");
    expect(frames.map((f) => f.event).slice(-2)).toEqual(["error", "end"]);
    expect(frames.some((f) => f.event === "token")).toBe(true); // the half that came is not hidden…
    expect(frames.at(-2)!.data).toMatch(/stream ended before the answer was complete/);
    expect(await messagesOf(id)).toEqual([]); // …but it is not kept as an answer
  });

  it("a whole stream still answers and is stored", async () => {
    const { id, frames } = await streamed("all fine here");
    expect(frames.map((f) => f.event).slice(-2)).toEqual(["metadata", "end"]);
    expect((await messagesOf(id)).map((m) => m.content)).toEqual(["all fine here", "echo: all fine here"]);
  });

  it("Workers AI: a stream cut before [DONE], or with a frame that is not JSON, is a 502", async () => {
    const enc = new TextEncoder();
    const ai = (frames: string[]) => ({
      async run() {
        return new ReadableStream<Uint8Array>({
          start(controller) {
            for (const f of frames) controller.enqueue(enc.encode(f));
            controller.close();
          },
        });
      },
    });
    const flow = flowDataOf(conversationChain as unknown as Fixture, (nodes) => {
      const model = [...nodes.values()].find((n) => n.data.category === "Chat Models")!;
      model.data.inputs = { ...model.data.inputs, modelName: "@cf/meta/llama-3.1-8b-instruct" };
    });
    const run = (frames: string[]) => {
      const ctx = makeCtx("hi");
      ctx.runtime = runtimeWith({ AI: ai(frames) as unknown as Ai });
      return runFlow(flow, ctx, recordingSink().sink).catch((e) => e);
    };
    const ok = `data: ${JSON.stringify({ response: "half " })}\n\n`;
    expect(await run([ok])).toMatchObject({
      status: 502,
      message: expect.stringMatching(/Workers AI's answer stream ended before the answer was complete/),
    });
    expect(await run([ok, "data: {not json\n\n", "data: [DONE]\n\n"])).toMatchObject({
      status: 502,
      message: expect.stringMatching(/Workers AI sent a malformed stream frame/),
    });
    expect(await run([ok, "data: [DONE]\n\n"])).toMatchObject({ text: "half " });
  });
});

describe("the whole run's time limit (RUN_TIMEOUT_MS)", () => {
  it("defaults to 120 s", () => {
    expect(runTimeoutMs({})).toBe(120_000);
    expect(runTimeoutMs({ RUN_TIMEOUT_MS: "nope" })).toBe(120_000);
    expect(runTimeoutMs({ RUN_TIMEOUT_MS: "1500" })).toBe(1500);
  });

  it("a model trickling a token a second: streaming is cut with error then end, nothing stored", async () => {
    const restore = setVars({ RUN_TIMEOUT_MS: "2500" });
    try {
      const started = Date.now();
      const { id, frames } = await streamed("[trickle] go on forever");
      const took = Date.now() - started;
      expect(frames.filter((f) => f.event === "token").length).toBeGreaterThanOrEqual(1); // it was answering…
      expect(frames.map((f) => f.event).slice(-2)).toEqual(["error", "end"]);
      expect(frames.at(-2)!.data).toBe("The run did not finish within its time limit (2.5 s)");
      expect(took).toBeGreaterThanOrEqual(2400);
      expect(took).toBeLessThan(6000);
      expect(await messagesOf(id)).toEqual([]);
    } finally {
      restore();
    }
  });

  it("a JSON request answers 504 JSON at the limit", async () => {
    const restore = setVars({ RUN_TIMEOUT_MS: "1500" });
    try {
      const id = await saveChain({ model: "chatOpenAI", credential: await openAICredential("sk-test") });
      const started = Date.now();
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "[trickle] slowly" } }), 504);
      expect(err.message).toBe("The run did not finish within its time limit (1.5 s)");
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await messagesOf(id)).toEqual([]);
    } finally {
      restore();
    }
  });
});
