// Issue 32 point 1: a chatflow this isolate streamed lately, asked again by a caller it can check
// without D1, gets its stream's head before the run's batch (services/runs/early-stream.ts); the
// batch, the checks on fresh rows and the run follow inside the stream. A flow that changed within
// the bound answers an error frame and `end`, and nothing runs or is stored for it.
import { describe, expect, it } from "vitest";
import { marker, requestsWith } from "../engine/helpers";
import { json, uuid } from "../helpers";
import { standinFlow, workerWith } from "./helpers";

const planet = workerWith({ ENVIRONMENT: "development", D1_SIMULATED_RTT_MS: "60", D1_SIMULATED_REPLICA_RTT_MS: "20" });
const traceOf = async (res: { headers: Headers }) => (await planet("GET", `/__d1-trace/${res.headers.get("x-request-id")}`)).body;
const stream = (flowId: string, question: string, headers: Record<string, string> = {}) =>
  planet("POST", `/prediction/${flowId}`, { headers, body: { question, streaming: true } });
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((f) => f.startsWith("message:"))
    .map((f) => JSON.parse(f.slice(f.indexOf("data:") + 5)) as { event: string; data: unknown });

describe("the stream's head before the batch", () => {
  it("the second stream of a chatflow: no round trip before its head, one replica trip before its first token, the same frames", async () => {
    const flowId = await standinFlow();
    const first = await stream(flowId, "[bench:3:0] one");
    expect((await traceOf(first)).head).toEqual({ primary: 0, replica: 1 });
    const second = await stream(flowId, "[bench:3:0] two");
    expect(second.status).toBe(200);
    expect(second.headers.get("content-type")).toBe("text/event-stream");
    const trace = await traceOf(second);
    expect(trace.head).toEqual({ primary: 0, replica: 0 });
    expect(trace.firstToken).toEqual({ primary: 0, replica: 1 });
    expect(trace.end).toEqual({ primary: 1, replica: 1 });
    expect(events(second.text).map((e) => e.event)).toEqual(events(first.text).map((e) => e.event));
    const metadata = events(second.text).find((e) => e.event === "metadata")!.data as { chatId: string; chatMessageId: string };
    const stored = await json("GET", `/chatmessage/${flowId}?chatId=${metadata.chatId}`);
    expect(stored.map((m: { role: string }) => m.role)).toEqual(["userMessage", "apiMessage"]);
  });

  it("an API key that only ever streams: the run's batch keeps its key, so its next stream's head needs no round trip", async () => {
    const flowId = await standinFlow();
    const key = await json("POST", "/apikey", { body: { keyName: `early ${uuid()}` } });
    const asKey = { authorization: `Bearer ${key.apiKey}` };
    expect((await traceOf(await stream(flowId, "[bench:2:0] one", asKey))).head).toEqual({ primary: 0, replica: 1 });
    const second = await stream(flowId, "[bench:2:0] two", asKey);
    expect(second.text).toContain('"event":"token"');
    expect((await traceOf(second)).head).toEqual({ primary: 0, replica: 0 });
  });

  it("a flow deleted within the bound: an error frame and end, the model never asked, nothing stored", async () => {
    const flowId = await standinFlow();
    expect((await stream(flowId, "[bench:2:0] warm")).status).toBe(200);
    await json("DELETE", `/chatflows/${flowId}`);
    const m = marker();
    const res = await stream(flowId, `${m} after the delete`);
    expect(res.status).toBe(200);
    expect(events(res.text)).toEqual([
      { event: "error", data: expect.stringMatching(/not found/i) },
      { event: "end", data: "[DONE]" },
    ]);
    expect(await requestsWith(m)).toHaveLength(0);
  });

  it("a flow made private within the bound: an anonymous caller gets an error frame, never a token", async () => {
    const flowId = await standinFlow();
    await json("PUT", `/chatflows/${flowId}`, { body: { isPublic: true } });
    const anonymous = { authorization: "" };
    expect((await stream(flowId, "[bench:2:0] warm", anonymous)).text).toContain('"event":"token"');
    await json("PUT", `/chatflows/${flowId}`, { body: { isPublic: false } });
    const m = marker();
    const res = await stream(flowId, `${m} now private`, anonymous);
    const frames = events(res.text);
    expect(frames.map((e) => e.event)).toEqual(["error", "end"]);
    expect(String(frames[0].data)).toMatch(/not public/);
    expect(await requestsWith(m)).toHaveLength(0);
  });

  it("a caller the isolate cannot check without D1 (an unknown token), a JSON request and a rate-limited flow take the checked path", async () => {
    const flowId = await standinFlow();
    await stream(flowId, "[bench:2:0] warm");
    const unknown = await stream(flowId, "[bench:2:0] who", { authorization: `Bearer ${uuid()}${uuid()}` });
    expect(unknown.status).toBe(401);
    const jsonAnswer = await planet("POST", `/prediction/${flowId}`, { body: { question: "[bench:2:0] json" } });
    expect((await traceOf(jsonAnswer)).head.replica).toBe(1);
    const limited = await standinFlow();
    const rateLimit = { status: true, limitMax: 1, limitDuration: 60, limitMsg: "slow down" };
    await json("PUT", `/chatflows/${limited}`, { body: { apiConfig: JSON.stringify({ rateLimit }) } });
    expect((await stream(limited, "[bench:2:0] one")).status).toBe(200);
    const refused = await stream(limited, "[bench:2:0] two");
    expect(refused.status).toBe(429);
    expect(refused.text).toBe("slow down");
  });
});
