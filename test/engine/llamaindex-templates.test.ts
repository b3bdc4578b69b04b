// Flowise's LlamaIndex marketplace templates — Context Chat Engine, Query Engine, SubQuestion Query
// Engine (Simple Chat Engine: llamaindex.test.ts) — saved as exported (no warning) and run against
// the stand-ins: OpenAI (chat + embeddings), Anthropic, Pinecone. Only what a user fills in is
// added: credentials, the Pinecone index, the endpoints of the stand-ins.
import { describe, expect, inject, it } from "vitest";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import type { FlowNode } from "../../src/engine";
import { flowDataWarning } from "../../src/services/chatflows";
import contextChatEngine from "./fixtures/context-chat-engine.json";
import queryEngine from "./fixtures/query-engine.json";
import subQuestionEngine from "./fixtures/subquestion-query-engine.json";
import {
  type Fixture,
  canStreamFlow,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
  standinUrl,
  storeTurns,
} from "./helpers";
import { BAKERY, LIBRARY, STATION, textFile } from "./retrieval-flows";

const pinecone = () => inject("pineconeUrl");
const anthropic = () => inject("anthropicUrl");
const runtime = (over: Record<string, string> = {}) =>
  runtimeWith({ PINECONE_BASE_URL: pinecone(), ANTHROPIC_BASE_URL: anthropic(), ...over });
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

interface Received {
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}
const received = async (base: string, contains?: string): Promise<Received[]> =>
  (await fetch(`${base}/requests${contains ? `?contains=${encodeURIComponent(contains)}` : ""}`)).json();

/** What a user fills in on a template: credentials, the endpoints, the Pinecone index. */
async function fillIn(fixture: unknown, index: string, patch?: (nodes: Map<string, FlowNode>) => void) {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-llamaindex" });
  const pc = await credential("pineconeApi", { pineconeApiKey: "pc-llamaindex-key" });
  const claude = await credential("anthropicApi", { anthropicApiKey: "sk-ant-llamaindex" });
  return flowDataOf(fixture as Fixture, (nodes) => {
    for (const node of nodes.values()) {
      const name = node.data.name;
      if (name === "chatOpenAI_LlamaIndex") pointAtStandin(node, openai);
      if (name === "openAIEmbedding_LlamaIndex") pointAtStandin(node, openai);
      if (name === "chatAnthropic_LlamaIndex") node.data.credential = claude;
      if (name === "pineconeLlamaIndex") {
        node.data.credential = pc;
        node.data.inputs = { ...node.data.inputs, pineconeIndex: index };
      }
    }
    patch?.(nodes);
  });
}

/** Vectors put into Pinecone the way Flowise's LlamaIndex node writes them (text in metadata.text), embedded by the stand-in. */
async function fillIndex(index: string, namespace: string, docs: Array<{ text: string; metadata: Record<string, unknown> }>) {
  const res = await fetch(`${standinUrl()}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "text-embedding-ada-002", input: docs.map((d) => d.text) }),
  });
  const { data } = (await res.json()) as { data: Array<{ embedding: number[] }> };
  const vectors = docs.map((d, i) => ({ id: crypto.randomUUID(), values: data[i].embedding, metadata: { ...d.metadata, text: d.text } }));
  const up = await fetch(`${pinecone()}/idx/${index}/vectors/upsert`, {
    method: "POST",
    headers: { "Api-Key": "x", "content-type": "application/json" },
    body: JSON.stringify({ namespace, vectors }),
  });
  expect(up.status).toBe(200);
}

describe("the templates save without a warning", () => {
  it.each([
    ["Query Engine", queryEngine],
    ["SubQuestion Query Engine", subQuestionEngine],
  ])("%s", (_name, fixture) => {
    expect(flowDataWarning(flowDataOf(fixture as unknown as Fixture))).toBeUndefined();
  });
});

describe("context-chat-engine.json (textFile → pineconeLlamaIndex → contextChatEngine)", () => {
  // RedisBackedChatMemory comes with the Redis memory (another branch): the engine is run here with Buffer Memory.
  const withBufferMemory = (nodes: Map<string, FlowNode>) => {
    const memory = nodes.get("RedisBackedChatMemory_0")!;
    memory.data = { ...memory.data, name: "bufferMemory", label: "Buffer Memory", inputs: { memoryKey: "chat_history" } };
  };

  it("upserts the uploaded file into Pinecone, then answers with the passages in the context message; sources; history", async () => {
    const index = `ctx-${marker()}`;
    const flowData = await fillIn(contextChatEngine, index, withBufferMemory);
    const chatflowid = crypto.randomUUID();
    const { graph, plan } = planFlowUpsert(flowData);
    const counts = await runUpsert(graph, plan, makeCtx("", { chatflowid, runtime: runtime(), files: { txtFile: [textFile()] } }));
    expect(counts).toMatchObject({ numAdded: 3 });
    const upserts = (await received(pinecone())).filter((r) => r.path === `/idx/${index}/vectors/upsert`);
    expect(upserts).toHaveLength(1);
    expect(upserts[0].headers["api-key"]).toBe("pc-llamaindex-key");
    expect(upserts[0].body.vectors.map((v: { metadata: { text: string } }) => v.metadata.text).sort()).toEqual(
      [BAKERY, LIBRARY, STATION].sort(),
    );

    const sessionId = crypto.randomUUID();
    await storeTurns(chatflowid, sessionId, [
      { role: "userMessage", content: "Hi there" },
      { role: "apiMessage", content: "Hello! Ask me about the town." },
    ]);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    expect(canStreamFlow(flowData)).toBe(true);
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(question, { chatflowid, sessionId, runtime: runtime() }), rec.sink);
    expect(rec.text()).toBe(result.text);
    expect(result.text).toBe(`echo: ${question}`);
    expect(result.memoryType).toBe("Buffer Memory");
    // topK '' → 4: the three passages, nearest first
    const passages = result.sourceDocuments!.map((d) => d.pageContent);
    expect(passages[0]).toBe(BAKERY);
    expect([...passages].sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(result.sourceDocuments![0].metadata).toMatchObject({ source: "town.txt" });
    expect(result.sourceDocuments![0].metadata).not.toHaveProperty("text");

    const [chat, ...more] = await chatRequestsWith(m);
    expect(more).toHaveLength(0);
    expect(chat.headers.authorization).toBe("Bearer sk-llamaindex");
    expect(chat.body).toMatchObject({ model: "gpt-3.5-turbo", temperature: 0.9, stream: true });
    expect(chat.body.messages).toEqual([
      { role: "system", content: `Context information is below.\n---------------------\n${passages.join("\n\n")}\n---------------------` },
      { role: "user", content: "Hi there" },
      { role: "assistant", content: "Hello! Ask me about the town." },
      { role: "user", content: question },
    ]);
    const [embedded] = (await requestsWith(m)).filter((r) => r.path.endsWith("/embeddings"));
    expect(embedded.body).toMatchObject({ model: "text-embedding-ada-002" });
    const [query] = (await received(pinecone())).filter((r) => r.path === `/idx/${index}/query`).slice(-1);
    expect(query.body).toMatchObject({ topK: 4 });
  });

  it("Pinecone down: 502 naming Pinecone, never the key", async () => {
    const flowData = await fillIn(contextChatEngine, "down", withBufferMemory);
    const e = await err(runFlow(flowData, makeCtx(`bakery ${marker()}`, { runtime: runtime() })));
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/^Pinecone query failed/);
    expect(e.message).not.toContain("pc-llamaindex-key");
  });
});

describe("query-engine.json (pineconeLlamaIndex + chatAnthropic_LlamaIndex + compactrefineLlamaIndex)", () => {
  it("answers through Anthropic with the template's text QA prompt over what the index holds; sources; streams", async () => {
    const index = `qe-${marker()}`;
    await fillIndex(index, "", [
      { text: BAKERY, metadata: { source: "bakery.txt" } },
      { text: LIBRARY, metadata: { source: "library.txt" } },
    ]);
    const flowData = await fillIn(queryEngine, index);
    expect(canStreamFlow(flowData)).toBe(true);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(question, { runtime: runtime() }), rec.sink);
    expect(result.sourceDocuments).toEqual([
      { pageContent: BAKERY, metadata: { source: "bakery.txt" } },
      { pageContent: LIBRARY, metadata: { source: "library.txt" } },
    ]);
    const prompt = `Context information:\n<context>\n${BAKERY}\n\n${LIBRARY}\n</context>\nGiven the context information and not prior knowledge, answer the query.\nQuery: ${question}`;
    expect(result.text).toBe(`echo: ${prompt}`);
    expect(rec.text()).toBe(result.text);
    const [sent, ...more] = await received(anthropic(), m);
    expect(more).toHaveLength(0);
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe("sk-ant-llamaindex");
    expect(sent.body).toMatchObject({
      model: "claude-2",
      temperature: 0.9,
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
    });
  });

  it("Anthropic down: 502 naming Anthropic", async () => {
    const index = `qe-down-${marker()}`;
    await fillIndex(index, "", [{ text: BAKERY, metadata: {} }]);
    const e = await err(runFlow(await fillIn(queryEngine, index), makeCtx(`bakery [fail] ${marker()}`, { runtime: runtime() })));
    expect(e.status).toBe(502);
    expect(e.message).toContain("Anthropic");
  });
});

describe("subquestion-query-engine.json (two filtered pineconeLlamaIndex query engines as tools)", () => {
  it("one sub-question per tool, each answered from its own company's passages, then the template's SEC prompt over them", async () => {
    const index = `sec-${marker()}`;
    const apple = "Apple Inc reported net sales of 394 billion dollars in fiscal 2022, with iPhone revenue the largest share.";
    const tesla = "Tesla Inc reported total revenues of 81 billion dollars in 2022, with automotive revenue the largest share.";
    await fillIndex(index, "pinecone-form10k", [
      { text: apple, metadata: { source: "apple" } },
      { text: tesla, metadata: { source: "tesla" } },
    ]);
    const flowData = await fillIn(subQuestionEngine, index);
    const m = marker();
    const question = `[subquestions] Compare the 2022 revenue of Apple and Tesla ${m}`;
    const result = await runFlow(flowData, makeCtx(question, { runtime: runtime() }));

    const reqs = await chatRequestsWith(m);
    expect(reqs).toHaveLength(4);
    const [gen, a, b, final] = reqs;
    expect(gen.body.messages[0].content).toContain(
      JSON.stringify(
        {
          apple_tool: "A SEC Form 10K filing describing the financials of Apple Inc (APPL) for the 2022 time period.",
          tesla_tool: "A SEC Form 10K filing describing the financials of Tesla Inc (TSLA) for the 2022 time period.",
        },
        null,
        4,
      ),
    );
    // Each tool's engine retrieved with its own metadata filter: only its company's passage.
    const plain = `Compare the 2022 revenue of Apple and Tesla ${m}`;
    const engineCall = (tool: string) => [a, b].find((r) => r.body.messages[0].content.includes(`Query: ${plain} (${tool})`))!;
    expect(engineCall("apple_tool").body.messages[0].content).toContain(apple);
    expect(engineCall("apple_tool").body.messages[0].content).not.toContain(tesla);
    expect(engineCall("tesla_tool").body.messages[0].content).toContain(tesla);
    expect(engineCall("tesla_tool").body.messages[0].content).not.toContain(apple);
    const queries = (await received(pinecone())).filter((r) => r.path === `/idx/${index}/query`);
    expect(queries.map((q) => q.body.filter)).toEqual(expect.arrayContaining([{ source: "apple" }, { source: "tesla" }]));
    expect(queries.every((q) => q.body.namespace === "pinecone-form10k")).toBe(true);

    // The final answer: the template's compact-refine prompt over the two sub-answers.
    expect(result.sourceDocuments).toHaveLength(2);
    const context = result.sourceDocuments!.map((d) => d.pageContent).join("\n\n");
    expect(context).toContain(`Sub question: ${plain} (apple_tool)\nResponse: echo: `);
    expect(final.body.messages[0].content).toBe(
      `A user has selected a set of SEC filing documents and has asked a question about them.\nThe SEC documents have the following titles:\n- Apple Inc (APPL) FORM 10K 2022\n- Tesla Inc (TSLA) FORM 10K 2022\nContext information is below.\n---------------------\n${context}\n---------------------\nGiven the context information and not prior knowledge, answer the query.\nQuery: ${question}\nAnswer:`,
    );
    expect(result.text).toBe(`echo: ${final.body.messages[0].content}`);
  });
});
