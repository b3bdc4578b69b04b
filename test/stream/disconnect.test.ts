// A client that hangs up mid-stream aborts the model call, and nothing is stored for that run.
// The stand-in's `[slow]` answer waits 300 ms before each token after the first; its request
// record says how many tokens went out and whether the caller closed the connection early.
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, type Recorded, flowDataOf, marker, pointAtStandin, requestsWith } from "../engine/helpers";
import { call, json } from "../helpers";

type Streamed = Recorded & { stream?: { tokens: number; sent: number; finished: boolean; closedEarly: boolean } };

/** The llm-chain template with its prompt reduced to the question, so the stand-in sees it verbatim. */
async function saveEchoFlow(): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
    nodes.get("promptTemplate_0")!.data.inputs = { ...nodes.get("promptTemplate_0")!.data.inputs, template: "{product}" };
  });
  return (await json("POST", "/chatflows", { body: { name: "echo", flowData } })).id;
}

const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await wait(25);
  }
}

describe("client disconnect", () => {
  it("cancelling the response body mid-stream aborts the model call; nothing is stored", async () => {
    const id = await saveEchoFlow();
    const m = marker();
    // "echo: [slow] <m> a b c d e f" — 9 tokens, 8 × 300 ms after the first: about 2.4 s in all.
    const question = `[slow] ${m} a b c d e f`;
    const started = Date.now();
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true, chatId: `gone-${m}` } });
    expect(res.status).toBe(200);

    // Read until the first token, then hang up.
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes('"event":"token"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before a token: ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
    await reader.cancel("the person closed the tab");

    // The stand-in sees its caller close the connection with most of the answer unsent.
    const [request] = await until("the model call to be cut off", async () => {
      const list = (await requestsWith(m)) as Streamed[];
      return list[0]?.stream?.closedEarly ? list : undefined;
    });
    expect(request.body.stream).toBe(true);
    expect(request.stream).toMatchObject({ tokens: 9, finished: false, closedEarly: true });
    expect(request.stream!.sent).toBeLessThan(4); // cut within a token or two of the hang-up
    expect(Date.now() - started).toBeLessThan(2000); // well before the answer would have ended

    // Past the time the whole answer would have taken: still nothing stored, and one model call only.
    await wait(Math.max(0, 2800 - (Date.now() - started)));
    expect(await messagesOf(id)).toEqual([]);
    expect(await requestsWith(m)).toHaveLength(1);
    // The run is over, so there is nothing left to abort for that chat.
    expect(await json("PUT", `/chatmessage/abort/${id}/gone-${m}`)).toEqual({ aborted: false });
  });

  it("the same flow read to the end stores the exchange (the control case)", async () => {
    const id = await saveEchoFlow();
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `${m} a b`, streaming: true } });
    const text = await res.text();
    expect(text).toContain('"event":"end"');
    const [request] = (await requestsWith(m)) as Streamed[];
    expect(request.stream).toMatchObject({ tokens: 4, sent: 4, finished: true, closedEarly: false });
    const stored = await messagesOf(id);
    expect(stored.map((s) => [s.role, s.content])).toEqual([
      ["userMessage", `${m} a b`],
      ["apiMessage", `echo: ${m} a b`],
    ]);
  });
});
