// LlamaIndex engines over HTTP: a context chat engine upserted through POST /vector/upsert and asked
// through POST /prediction — the answer with its sources, the exchange stored and read back as the
// next turn's memory, the stream's frames, and a model that is down (JSON 502; stream error, end).
import { describe, expect, it } from "vitest";
import { engineFlow } from "../engine/llamaindex-flows";
import { BAKERY, LIBRARY, ref } from "../engine/retrieval-flows";
import { standinUrl } from "../engine/helpers";
import { framesOf } from "../security/helpers";
import { call, expectError, json } from "../helpers";

const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;
const chatRequestsWith = async (m: string) =>
  ((await (await fetch(`${standinUrl()}/requests?contains=${m}`)).json()) as any[]).filter((r) => r.path.endsWith("/chat/completions"));

async function saveContextEngine(): Promise<string> {
  const flowData = engineFlow(
    "contextChatEngine",
    { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), memory: ref("mem_0"), returnSourceDocuments: true },
    [["mem_0", "bufferMemory", "Memory", { memoryKey: "chat_history" }]],
  );
  const created = await json("POST", "/chatflows", { body: { name: "context engine", flowData } });
  expect(created).not.toHaveProperty("warning");
  const upsert = await call("POST", `/vector/upsert/${created.id}`, { body: {} });
  expect(upsert.status).toBe(200);
  expect(await upsert.json<any>()).toMatchObject({ numAdded: 3 });
  return created.id;
}

describe("contextChatEngine over HTTP", () => {
  it("answers with sources; the stored exchange is the next turn's history", async () => {
    const id = await saveContextEngine();
    const first = await json("POST", `/prediction/${id}`, { body: { question: "When does the bakery open in the morning?" } });
    expect(first).toMatchObject({ text: "echo: When does the bakery open in the morning?", memoryType: "mem_0" });
    expect(first.sourceDocuments).toEqual([{ pageContent: BAKERY, metadata: expect.objectContaining({ source: "town" }) }]);
    const stored = await json<any[]>("GET", `/chatmessage/${id}`);
    expect(stored.map((s) => [s.role, s.content])).toEqual([
      ["userMessage", "When does the bakery open in the morning?"],
      ["apiMessage", first.text],
    ]);
    expect(stored[1].sourceDocuments).toEqual(first.sourceDocuments);

    const m = marker();
    await json("POST", `/prediction/${id}`, { body: { question: `Can I borrow novels at the library? ${m}`, chatId: first.chatId } });
    const [sent] = await chatRequestsWith(m);
    expect(sent.body.messages.map((x: any) => x.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(sent.body.messages[0].content).toContain(LIBRARY);
    expect(sent.body.messages.slice(1, 3).map((x: any) => x.content)).toEqual(["When does the bakery open in the morning?", first.text]);
  });

  it("streams: start, tokens, sourceDocuments, metadata, end", async () => {
    const id = await saveContextEngine();
    expect(await json("GET", `/chatflows-streaming/${id}`)).toEqual({ isStreaming: true });
    const question = `Is there a poetry circle at the library? ${marker()}`;
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const frames = await framesOf(res);
    const events = frames.map((f) => f.event);
    expect(events[0]).toBe("start");
    expect(events.slice(-3)).toEqual(["sourceDocuments", "metadata", "end"]);
    expect(
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toBe(`echo: ${question}`);
    expect(frames.find((f) => f.event === "sourceDocuments")!.data[0].pageContent).toBe(LIBRARY);
  });

  it("a model that is down: 502 JSON; streaming: an error frame, then end", async () => {
    const id = await saveContextEngine();
    const body = await expectError(await call("POST", `/prediction/${id}`, { body: { question: `bakery [fail] ${marker()}` } }), 502);
    expect(body.message).toContain("answered 500");
    const frames = await framesOf(
      await call("POST", `/prediction/${id}`, { body: { question: `bakery [fail] ${marker()}`, streaming: true } }),
    );
    expect(frames.map((f) => f.event).slice(-2)).toEqual(["error", "end"]);
  });
});
