// Flowise's TypeScript SDK (`flowise-sdk`, unchanged) against the Worker, streaming and not.
//
// The SDK calls the global `fetch`: GET {baseUrl}/api/v1/chatflows-streaming/{id} first (never with
// a token), then POST {baseUrl}/api/v1/prediction/{id} with the whole PredictionData as the body.
// When the chatflow streams and `streaming` is true it reads the body line by line and yields
// JSON.parse of every line starting with `data:`; otherwise it answers the JSON body.
// Here global fetch is stubbed so that requests for the test host reach the Worker's own fetch
// handler (the same one test/helpers.ts `call` uses); every other URL (the worker's calls to the
// model stand-in) goes out as usual.
import { exports } from "cloudflare:workers";
import { FlowiseClient } from "flowise-sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import listParser from "../engine/fixtures/list-output-parser.json";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { ADMIN_KEY, json } from "../helpers";

const ORIGIN = "http://sdk.edgeflow.test";
const worker = (exports as unknown as { default: Fetcher }).default;

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body?: any;
}
let seen: Seen[] = [];

beforeEach(() => {
  seen = [];
  const passthrough = globalThis.fetch.bind(globalThis);
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== ORIGIN) return passthrough(input, init);
    const body = request.method === "POST" ? await request.clone().json() : undefined;
    seen.push({ method: request.method, path: url.pathname, authorization: request.headers.get("authorization"), body });
    return worker.fetch(request);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function saveFlow(fixture: unknown, extra: Record<string, unknown> = {}): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const flowData = flowDataOf(fixture as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "sdk flow", flowData, ...extra } })).id;
}

const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);

/** Everything the SDK yields for a streaming prediction. */
async function collect(stream: AsyncIterable<{ event: string; data: any }>) {
  const events: { event: string; data: any }[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe("flowise-sdk against edgeflow", () => {
  it("non-streaming: createPrediction answers the prediction JSON, and the exchange is stored", async () => {
    const id = await saveFlow(llmChain);
    const client = new FlowiseClient({ baseUrl: ORIGIN, apiKey: ADMIN_KEY });
    const answer: any = await client.createPrediction({ chatflowId: id, question: "socks", streaming: false });

    expect(answer.text).toContain("What is a good name for a company that makes socks?");
    expect(answer).toMatchObject({
      question: "socks",
      json: null,
      memoryType: null,
      sourceDocuments: [],
      usedTools: [],
      isStreamValid: true,
    });
    expect(answer.sessionId).toBe(answer.chatId);
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["userMessage", "socks"],
      ["apiMessage", answer.text],
    ]);
    expect(stored[1].id).toBe(answer.chatMessageId);

    // What the SDK sent: the streaming probe without a token, then the prediction with it (its
    // body carries the SDK's own chatflowId field, which edgeflow ignores).
    expect(seen.map((s) => [s.method, s.path, s.authorization])).toEqual([
      ["GET", `/api/v1/chatflows-streaming/${id}`, null],
      ["POST", `/api/v1/prediction/${id}`, `Bearer ${ADMIN_KEY}`],
    ]);
    expect(seen[1].body).toEqual({ chatflowId: id, question: "socks", streaming: false });
  });

  it("streaming: the SDK yields start, the tokens, metadata and end; the tokens make the stored answer", async () => {
    const id = await saveFlow(llmChain);
    const client = new FlowiseClient({ baseUrl: ORIGIN, apiKey: ADMIN_KEY });
    const stream = await client.createPrediction({ chatflowId: id, question: "socks", streaming: true, chatId: "sdk-chat" });
    const events = await collect(stream as AsyncIterable<{ event: string; data: any }>);

    const names = events.map((e) => e.event);
    expect(names[0]).toBe("start");
    expect(names.slice(-2)).toEqual(["metadata", "end"]);
    const tokens = events.filter((e) => e.event === "token").map((e) => e.data as string);
    expect(names.slice(1, -2)).toEqual(tokens.map(() => "token"));
    expect(tokens.length).toBeGreaterThan(5); // the stand-in streams word by word
    expect(events.at(-1)).toEqual({ event: "end", data: "[DONE]" });

    const text = tokens.join("");
    expect(text).toContain("What is a good name for a company that makes socks?");
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ["userMessage", "socks"],
      ["apiMessage", text],
    ]);
    const metadata = events.find((e) => e.event === "metadata")!.data;
    expect(metadata).toEqual({
      chatId: "sdk-chat",
      chatMessageId: stored[1].id,
      question: "socks",
      sessionId: "sdk-chat",
      memoryType: null,
    });

    // The same question without streaming gives the same text (the stand-in is deterministic).
    const plain: any = await client.createPrediction({ chatflowId: id, question: "socks" });
    expect(plain.text).toBe(text);
  });

  it("streaming a public chatflow without an API key", async () => {
    const id = await saveFlow(llmChain, { isPublic: true });
    const client = new FlowiseClient({ baseUrl: ORIGIN });
    const events = await collect(
      (await client.createPrediction({ chatflowId: id, question: "mugs", streaming: true })) as AsyncIterable<{ event: string; data: any }>,
    );
    expect(events.map((e) => e.event).filter((e) => e !== "token")).toEqual(["start", "metadata", "end"]);
    expect(
      events
        .filter((e) => e.event === "token")
        .map((e) => e.data)
        .join(""),
    ).toContain("makes mugs?");
    expect(seen.every((s) => s.authorization === null)).toBe(true);
  });

  it("a chatflow that cannot stream: the SDK asks chatflows-streaming, sees false, and answers JSON", async () => {
    const id = await saveFlow(listParser);
    const client = new FlowiseClient({ baseUrl: ORIGIN, apiKey: ADMIN_KEY });
    const answer: any = await client.createPrediction({ chatflowId: id, question: "[csv] three letters", streaming: true });
    expect(answer.json).toEqual(["a", "b", "c"]);
    expect(answer.isStreamValid).toBe(false);
    expect(seen.map((s) => s.path)).toEqual([`/api/v1/chatflows-streaming/${id}`, `/api/v1/prediction/${id}`]);
  });

  it("errors: a private chatflow without a key makes the streaming SDK throw the status; an unknown chatflow answers the 404 body", async () => {
    const id = await saveFlow(llmChain);
    const anonymous = new FlowiseClient({ baseUrl: ORIGIN });
    const stream = (await anonymous.createPrediction({ chatflowId: id, question: "q", streaming: true })) as AsyncIterable<unknown>;
    await expect(collect(stream as AsyncIterable<{ event: string; data: any }>)).rejects.toThrow("HTTP error! status: 401");
    expect(await messagesOf(id)).toEqual([]);

    // chatflows-streaming answers 404 JSON, so the SDK falls back to a plain POST and hands back its body.
    const missing = crypto.randomUUID();
    const client = new FlowiseClient({ baseUrl: ORIGIN, apiKey: ADMIN_KEY });
    const answer: any = await client.createPrediction({ chatflowId: missing, question: "q", streaming: true });
    expect(answer).toMatchObject({ statusCode: 404, success: false, message: `Chatflow ${missing} not found` });
  });
});
