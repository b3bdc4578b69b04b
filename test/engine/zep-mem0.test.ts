// Zep and mem0 against their stand-in (test/standin/zep.mjs), driven through the API as a user does
// (POST /chatflows, POST /vector/upsert, POST /prediction): ZepMemoryCloud (Zep Cloud v2), ZepMemory
// (open-source Zep v1) and mem0 in a conversation chain over two turns of one session — what the
// service received, and the second turn's prompt carrying the first's memory; the zep and zepCloud
// stores (upsert, search, a later upsert deleting what it replaced, filters, mmr); and the failures:
// the service's error as a 502 without the key, a missing key or bad config as a 400, a private address.
import { Document } from "@langchain/core/documents";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { credential, db, marker, requestsWith } from "./helpers";
import { LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

const zep = () => inject("zepUrl");
let restore: () => void;
beforeAll(() => {
  restore = setVars({ ZEP_CLOUD_BASE_URL: `${zep()}/api/v2`, MEM0_BASE_URL: zep() });
});
afterAll(() => restore());

type Received = { method: string; path: string; headers: Record<string, string>; body: any };
const received = async (part: string): Promise<Received[]> =>
  ((await (await fetch(`${zep()}/requests`)).json()) as Received[]).filter(
    (r) => r.path.includes(part) || JSON.stringify(r.body ?? "").includes(part),
  );
const dump = async (path: string) => (await fetch(`${zep()}/dump/${path}`)).json();
const lastPrompt = async (m: string) =>
  (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions")).at(-1)!.body.messages as Array<{
    role: string;
    content: string;
  }>;

const save = async (flowData: string) => (await json("POST", "/chatflows", { body: { name: `zep ${marker()}`, flowData } })).id as string;
const predict = (id: string, question: string, sessionId: string) =>
  call("POST", `/prediction/${id}`, { body: { question, overrideConfig: { sessionId } } });
const ask = async (id: string, question: string, sessionId: string) => {
  const res = await predict(id, question, sessionId);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { text: string };
};
const memoryFlow = (memory: string, inputs: Record<string, unknown>) =>
  flow([
    ["mem_0", memory, "Memory", inputs],
    standinModel(),
    ["chain_0", "conversationChain", "Chains", { model: ref("model_0"), memory: ref("mem_0") }],
  ] as never);

describe("ZepMemoryCloud (Zep Cloud v2)", () => {
  it("reads the session's memory, writes each exchange (the session made first), and the next turn's prompt carries it", async () => {
    const key = `z-key-${marker()}`;
    const id = await save(memoryFlow("ZepMemoryCloud", { credential: await credential("zepMemoryApi", { apiKey: key }) }));
    const session = `cloud-${marker()}`;
    const m = marker();
    const first = await ask(id, `My name is Ada ${m}`, session);
    const calls = await received(session);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v2/sessions/${session}/memory?memoryType=perpetual`,
      `POST /api/v2/sessions/${session}/memory`,
      "POST /api/v2/sessions",
      `POST /api/v2/sessions/${session}/memory`,
    ]);
    for (const r of calls) expect(r.headers.authorization).toBe(`Api-Key ${key}`);
    expect(calls[3].body).toEqual({
      messages: [
        { role: "human", role_type: "user", content: `My name is Ada ${m}` },
        { role: "ai", role_type: "assistant", content: first.text },
      ],
    });
    const m2 = marker();
    await ask(id, `What is my name? ${m2}`, session);
    // LangChain's ZepCloudMemory: the memory condensed into one user message.
    expect((await lastPrompt(m2)).filter((x) => x.role !== "system")).toEqual([
      { role: "user", content: `\nhuman: My name is Ada ${m}\nai: ${first.text}` },
      { role: "user", content: `What is my name? ${m2}` },
    ]);
    expect(((await dump(`v2/sessions/${session}`)) as { messages: unknown[] }).messages).toHaveLength(4);
  });

  it("Zep failing → 502 with its message and never the key; a wrong key → 502 naming the credential; no key → 400", async () => {
    const key = `z-secret-${marker()}`;
    const id = await save(memoryFlow("ZepMemoryCloud", { credential: await credential("zepMemoryApi", { apiKey: key }) }));
    const down = await expectError(await predict(id, "hi", `fail-${marker()}`), 502);
    expect(down.message).toBe("Zep Cloud memory read failed (500): zep is having a bad day");
    const wrong = await save(memoryFlow("ZepMemoryCloud", { credential: await credential("zepMemoryApi", { apiKey: "bad-key-123" }) }));
    const refused = await expectError(await predict(wrong, "hi", `s-${marker()}`), 502);
    expect(refused.message).toBe("Zep Cloud memory read was refused (401): check the zepMemoryApi credential");
    const none = await expectError(await predict(await save(memoryFlow("ZepMemoryCloud", {})), "hi", `s-${marker()}`), 400);
    expect(none.message).toMatch(/^mem_0 is not configured: connect a zepMemoryApi credential/);
    for (const e of [down, refused]) expect(e.message).not.toContain(key);
  });
});

describe("ZepMemory (open-source Zep v1)", () => {
  it("reads ?lastn=k at baseURL's /api/v1 with the Bearer key, the summary first; writes the exchange", async () => {
    const session = `oss-${marker()}`;
    // A session Flowise (or another app) started, with the summary Zep made of it.
    await fetch(`${zep()}/api/v1/sessions/${session}/memory`, {
      method: "POST",
      body: JSON.stringify({
        messages: [
          { role: "human", content: "I live in Lyon" },
          { role: "ai", content: "Noted" },
        ],
        summary: { content: "The user lives in Lyon." },
      }),
    });
    const key = `zos-${marker()}`;
    const cred = await credential("zepMemoryApi", { apiKey: key });
    const id = await save(memoryFlow("ZepMemory", { baseURL: `${zep()}/ignored/path`, k: "10", credential: cred }));
    const m = marker();
    const first = await ask(id, `Where do I live? ${m}`, session);
    expect((await lastPrompt(m)).map((x) => [x.role, x.content])).toEqual([
      ["system", expect.any(String)],
      ["system", "The user lives in Lyon."],
      ["user", "I live in Lyon"],
      ["assistant", "Noted"],
      ["user", `Where do I live? ${m}`],
    ]);
    const calls = (await received(session)).filter((r) => r.headers.authorization);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v1/sessions/${session}/memory?lastn=10`,
      `POST /api/v1/sessions/${session}/memory`,
    ]);
    for (const r of calls) expect(r.headers.authorization).toBe(`Bearer ${key}`);
    expect(calls[1].body.messages).toEqual([
      { role: "human", content: `Where do I live? ${m}` },
      { role: "ai", content: first.text },
    ]);
    const m2 = marker();
    await ask(id, `And again? ${m2}`, session);
    expect((await lastPrompt(m2)).filter((x) => x.role === "user").map((x) => x.content)).toEqual([
      "I live in Lyon",
      `Where do I live? ${m}`,
      `And again? ${m2}`,
    ]);
  });

  it("a baseURL on a private address is a 400 naming it; nothing is sent", async () => {
    const id = await save(memoryFlow("ZepMemory", { baseURL: "http://10.1.2.3:8000" }));
    const err = await expectError(await predict(id, "hi", `s-${marker()}`), 400);
    expect(err.message).toMatch(/^mem_0 baseURL refused by the outbound policy: 10\.1\.2\.3 is a private address/);
  });
});

describe("mem0", () => {
  it("searches the user's memories with the question, adds the exchange after the run; the next prompt carries the memory", async () => {
    const key = `m0-${marker()}`;
    const user = `user-${marker()}`;
    const cred = await credential("mem0MemoryApi", { apiKey: key });
    const id = await save(memoryFlow("mem0", { credential: cred, user_id: user, agent_id: "helper" }));
    const session = `mem-${marker()}`;
    const m = marker();
    await ask(id, `I am allergic to peanuts ${m}`, session);
    const calls = await received(user);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/memories/search/", "POST /v1/memories/"]);
    for (const r of calls) expect(r.headers.authorization).toBe(`Token ${key}`);
    const options = { user_id: user, agent_id: "helper", enable_graph: false, metadata: {}, filters: {} };
    expect(calls[0].body).toEqual({ query: `I am allergic to peanuts ${m}`, ...options });
    expect(calls[1].body).toEqual({
      messages: [
        { role: "user", content: `I am allergic to peanuts ${m}` },
        { role: "assistant", content: `echo: I am allergic to peanuts ${m}` },
      ],
      ...options,
    });
    const m2 = marker();
    await ask(id, `What should I avoid eating? ${m2}`, session);
    const prompt = await lastPrompt(m2);
    const memory = prompt.find((x) => x.role === "assistant" && x.content.startsWith("These are the memories I have stored."));
    expect(memory?.content).toContain(`I am allergic to peanuts ${m}`);
    // Then the session's stored messages, then the question.
    expect(prompt.at(-1)).toEqual({ role: "user", content: `What should I avoid eating? ${m2}` });
    expect(prompt.some((x) => x.role === "user" && x.content === `I am allergic to peanuts ${m}`)).toBe(true);
  });

  it("useFlowiseChatId keys memories by the session; searchOnly adds nothing", async () => {
    const cred = await credential("mem0MemoryApi", { apiKey: `m0-${marker()}` });
    const session = `chat-${marker()}`;
    await ask(await save(memoryFlow("mem0", { credential: cred, useFlowiseChatId: true, user_id: "" })), "I like tea", session);
    expect((await dump(`mem0/${session}`)) as unknown[]).toHaveLength(1);
    const user = `ro-${marker()}`;
    await ask(await save(memoryFlow("mem0", { credential: cred, user_id: user, searchOnly: true })), "I like coffee", session);
    expect((await received(user)).map((r) => r.path)).toEqual(["/v1/memories/search/"]);
  });

  it("mem0 failing → 502 without the key; no user id → 400; no credential → 400", async () => {
    const key = `m0-secret-${marker()}`;
    const cred = await credential("mem0MemoryApi", { apiKey: key });
    const down = await expectError(
      await predict(await save(memoryFlow("mem0", { credential: cred, user_id: "fail-user" })), "hi", "s"),
      502,
    );
    expect(down.message).toBe("mem0 memory search failed (500): mem0 is having a bad day");
    expect(down.message).not.toContain(key);
    const noUser = await expectError(await predict(await save(memoryFlow("mem0", { credential: cred, user_id: "" })), "hi", "s"), 400);
    expect(noUser.message).toBe('mem_0 needs a User ID (user_id) when "Use Flowise Chat ID" is off');
    const none = await expectError(await predict(await save(memoryFlow("mem0", { user_id: "u" })), "hi", "s"), 400);
    expect(none.message).toMatch(/^mem0 is not configured: connect a mem0MemoryApi credential/);
  });
});

/** plainText → splitter → (localHashEmbeddings) → the Zep store node → retrievalQAChain. */
function storeFlow(node: "zep" | "zepCloud", inputs: Record<string, unknown>, text = TOWN_TEXT) {
  return flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
    [
      "loader_0",
      "plainText",
      "Document Loaders",
      { text, textSplitter: ref("splitter_0"), metadata: '{"source":"town"}' },
      { output: "document" },
    ],
    ...(node === "zep" ? [["emb_0", "localHashEmbeddings", "Embeddings", {}]] : []),
    [
      "zep_0",
      node,
      "Vector Stores",
      { document: [ref("loader_0")], ...(node === "zep" ? { embeddings: ref("emb_0") } : {}), topK: "1", ...inputs },
      { output: "retriever" },
    ],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("zep_0"), returnSourceDocuments: true }],
  ] as never);
}
const upsert = async (id: string) => json("POST", `/vector/upsert/${id}`, { body: {} });
const update = async (id: string, flowData: string) => json("PUT", `/chatflows/${id}`, { body: { flowData } });
type Doc = { uuid: string; document_id: string; content: string; metadata: Record<string, unknown>; embedding: number[] };

describe("zep (open-source Zep v1 collections)", () => {
  it("creates the collection, upserts the vectors, answers by vector search; a later upsert deletes what it replaced", async () => {
    const collection = `town${marker()}`;
    const id = await save(storeFlow("zep", { baseURL: zep(), zepCollection: collection }));
    expect(await upsert(id)).toMatchObject({ numAdded: 3 });
    const calls = await received(`/collection/${collection}`);
    expect(calls.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v1/collection/${collection}`,
      `POST /api/v1/collection/${collection}`,
      `POST /api/v1/collection/${collection}/document`,
    ]);
    expect(calls[1].body).toEqual({ name: collection, embedding_dimensions: LOCAL_HASH_DIMS, is_auto_embedded: false });
    const { docs } = (await dump(`v1/collections/${collection}`)) as { docs: Doc[] };
    expect(docs).toHaveLength(3);
    expect(docs[0].metadata).toMatchObject({ source: "town" });
    for (const d of docs) expect(d.embedding).toHaveLength(LOCAL_HASH_DIMS);

    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `Which platform do night trains leave from? ${m}` } });
    expect(answer.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    const search = (await received(`/collection/${collection}/search`)).at(-1)!;
    expect(search.path).toBe(`/api/v1/collection/${collection}/search?limit=1`);
    expect(search.body.metadata).toEqual({ where: { and: [] } });
    expect(search.body.embedding).toHaveLength(LOCAL_HASH_DIMS);

    await update(id, storeFlow("zep", { baseURL: zep(), zepCollection: collection }, LIBRARY));
    expect(await upsert(id)).toMatchObject({ numDeleted: 2 });
    const left = (await dump(`v1/collections/${collection}`)) as { docs: Doc[] };
    expect(left.docs.map((d) => d.content)).toEqual([LIBRARY]);
    expect((await received(`/collection/${collection}/document/uuid/`)).map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
  });

  it("zepMetadataFilter becomes Zep's JSONPath filter; mmr; a baseURL on a private address or no collection is a 400", async () => {
    const collection = `filter${marker()}`;
    const id = await save(storeFlow("zep", { baseURL: zep(), zepCollection: collection }));
    await upsert(id);
    await update(id, storeFlow("zep", { baseURL: zep(), zepCollection: collection, zepMetadataFilter: '{"source":"elsewhere"}' }));
    const none = await json("POST", `/prediction/${id}`, { body: { question: "night trains" } });
    expect(none.sourceDocuments ?? []).toEqual([]);
    expect((await received(`/collection/${collection}/search`)).at(-1)!.body.metadata).toEqual({
      where: { and: [{ jsonpath: '$[*] ? (@.source == "elsewhere")' }] },
    });
    await update(id, storeFlow("zep", { baseURL: zep(), zepCollection: collection, searchType: "mmr", fetchK: "3", topK: "2" }));
    expect((await json("POST", `/prediction/${id}`, { body: { question: "night trains" } })).sourceDocuments).toHaveLength(2);
    const priv = await save(storeFlow("zep", { baseURL: "http://192.168.4.4:8000", zepCollection: "c" }));
    expect((await expectError(await call("POST", `/prediction/${priv}`, { body: { question: "x" } }), 400)).message).toMatch(
      /^zep baseURL refused by the outbound policy: 192\.168\.4\.4 is a private address/,
    );
    const noName = await save(storeFlow("zep", { baseURL: zep() }));
    expect((await expectError(await call("POST", `/prediction/${noName}`, { body: { question: "x" } }), 400)).message).toBe(
      "zep needs its zepCollection (the Zep collection's name)",
    );
  });
});

describe("zepCloud (Zep Cloud collections: Zep embeds the text)", () => {
  it("upserts text without embeddings, searches by text, deletes by batchDelete; Zep's failures are 502s without the key", async () => {
    const key = `z-${marker()}`;
    const cred = await credential("zepMemoryApi", { apiKey: key });
    const collection = `cloud${marker()}`;
    const id = await save(storeFlow("zepCloud", { credential: cred, zepCollection: collection }));
    expect(await upsert(id)).toMatchObject({ numAdded: 3 });
    const add = (await received(`/collections/${collection}/documents`)).find((r) => r.method === "POST")!;
    expect(add.headers.authorization).toBe(`Api-Key ${key}`);
    expect(add.body).toHaveLength(3);
    expect(add.body[0]).toEqual({
      content: expect.any(String),
      document_id: expect.any(String),
      metadata: expect.objectContaining({ source: "town" }),
    });

    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: "Which railway station platform do night trains depart from?" },
    });
    expect(answer.sourceDocuments?.[0].pageContent).toBe(STATION);
    const search = (await received(`/collections/${collection}/search`)).at(-1)!;
    expect(search.path).toBe(`/api/v2/collections/${collection}/search?limit=1`);
    expect(search.body).toEqual({ text: "Which railway station platform do night trains depart from?" });

    await update(id, storeFlow("zepCloud", { credential: cred, zepCollection: collection }, LIBRARY));
    expect(await upsert(id)).toMatchObject({ numDeleted: 2 });
    expect(((await dump(`v2/collections/${collection}`)) as { docs: Doc[] }).docs.map((d) => d.content)).toEqual([LIBRARY]);
    expect((await received(`/collections/${collection}/documents/batchDelete`))[0].body).toHaveLength(2);

    const down = await save(storeFlow("zepCloud", { credential: cred, zepCollection: "fail" }));
    const e = await expectError(await call("POST", `/prediction/${down}`, { body: { question: "x" } }), 502);
    expect(e.message).toBe("Zep Cloud search failed (500): zep is having a bad day");
    expect(e.message).not.toContain(key);
    const noKey = await save(storeFlow("zepCloud", { zepCollection: collection }));
    expect((await expectError(await call("POST", `/prediction/${noKey}`, { body: { question: "x" } }), 400)).message).toMatch(
      /^zepCloud is not configured: connect a zepMemoryApi credential/,
    );
  });
});

describe("zep: what open-source Zep refuses (its server's validation, 5 MiB bodies, Postgres) is not sent", () => {
  const zepStore = (collection: string) =>
    buildVectorStore("zep", { baseURL: zep(), zepCollection: collection }, {
      env,
      db: db(),
      embeddings: new LocalHashEmbeddings({}),
      namespace: `ns_${marker()}`,
    } as never);
  const docsOf = async (collection: string) => ((await dump(`v1/collections/${collection}`)) as { docs: Doc[] }).docs;

  it("metadata filter keys with spaces and values with quotes or apostrophes are quoted for jsonpath (Flowise's: a 500)", async () => {
    const collection = `quote${marker()}`;
    const store = zepStore(collection);
    const meta = { "the author": `O'Brien "Jr"`, pdf: { info: { Title: "Annual report" } } };
    await store.addVectors(
      [Array(8).fill(0.5), Array(8).fill(-0.5)],
      [
        new Document({ pageContent: "wanted", metadata: meta }),
        new Document({ pageContent: "other", metadata: { "the author": "Someone" } }),
      ],
    );
    const found = await store.similaritySearchVectorWithScore(Array(8).fill(-0.5), 5, { "the author": `O'Brien "Jr"` });
    expect(found.map(([d]) => d.pageContent)).toEqual(["wanted"]);
    const search = (await received(`/collection/${collection}/search`)).at(-1)!;
    expect(search.body.metadata.where.and).toEqual([{ jsonpath: '$[*] ? (@."the author" == "O\\u0027Brien \\"Jr\\"")' }]);
    // A dotted key stays a nested path, as Flowise reads it.
    const nested = await store.similaritySearchVectorWithScore(Array(8).fill(0.5), 5, { "pdf.info.Title": "Annual report" });
    expect(nested.map(([d]) => d.pageContent)).toEqual(["wanted"]);
    await expect(store.similaritySearchVectorWithScore(Array(8).fill(0.5), 5, { "the author": { $eq: "x" } })).rejects.toThrow(
      'zep zepMetadataFilter: "the author" must be a string, number, boolean or null',
    );
  });

  it("NUL characters of PDF text and metadata are taken out (Postgres refuses them: the upsert was a 500)", async () => {
    const collection = `nul${marker()}`;
    const store = zepStore(collection);
    const doc = new Document({ pageContent: "page\u0000one", metadata: { pdf: { info: { Title: "Re\u0000port" } }, "k\u0000ey": 1 } });
    await store.addVectors([Array(8).fill(0.25)], [doc]);
    const [stored] = await docsOf(collection);
    expect(stored.content).toBe("pageone");
    expect(stored.metadata).toEqual({ pdf: { info: { Title: "Report" } }, key: 1 });
  });

  it("a collection name or dimension Zep refuses is a 400 naming it, before the collection is created", async () => {
    const named = `my-docs-${marker()}`;
    await expect(zepStore(named).addVectors([Array(8).fill(1)], [new Document({ pageContent: "x" })])).rejects.toThrow(
      `zep cannot create collection "${named}": Zep takes 3 to 40 letters and digits only`,
    );
    const wide = `wide${marker()}`;
    await expect(zepStore(wide).addVectors([Array(3072).fill(1)], [new Document({ pageContent: "x" })])).rejects.toThrow(
      `zep cannot create collection ${wide} for 3072 dimensions: Zep takes 8 to 2000`,
    );
    expect((await received(`/collection/${named}`)).map((r) => r.method)).toEqual(["GET"]);
    expect((await received(`/collection/${wide}`)).map((r) => r.method)).toEqual(["GET"]);
  });

  // Last: its 8 MB of requests stay in the stand-in's log.
  it("an upsert of 1,536-dimension vectors goes in requests under 5 MiB (one 8 MB request was a 413), in order", async () => {
    const collection = `big${marker()}`;
    // 250 documents of 1,536 dimensions, values written with all their digits: ~8 MB of JSON.
    const vectors = Array.from({ length: 250 }, (_, i) => Array.from({ length: 1536 }, (_, j) => -Math.sin(i * 1536 + j) / 7));
    const docs = vectors.map((_, i) => new Document({ pageContent: `document ${i}`, metadata: { n: i } }));
    await zepStore(collection).addVectors(vectors, docs);
    const adds = (await received(`/collection/${collection}/document`)).filter((r) => r.method === "POST");
    expect(adds.length).toBeGreaterThanOrEqual(2);
    for (const a of adds) expect(new TextEncoder().encode(JSON.stringify(a.body)).length).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(adds.flatMap((a) => a.body.map((d: Doc) => d.content))).toEqual(docs.map((d) => d.pageContent));
    expect(await docsOf(collection)).toHaveLength(250);
  });
});
