// Retrieval in the engine: upserting a chatflow's vector store branch (runUpsert) and predicting
// over it (runFlow) — the conversational retrieval fixture, retrievalQAChain, the documentStore
// node both ways, record managers, loaders on prediction, retrieverTool, and the upsert plan's 400s.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseFlowData } from "../../src/engine/core/flow-data";
import { planRun } from "../../src/engine/chatflow/graph";
import { registry, supportedNodeNames } from "../../src/engine/chatflow/registry";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { LOCAL, newStore, upsert as storeUpsert } from "../routes/document-store-helpers";
import { canStreamFlow, credential, makeCtx, marker, recordingSink, requestsWith, runFlow, standinUrl, storeTurns } from "./helpers";
import {
  BAKERY,
  LIBRARY,
  STATION,
  TOWN_TEXT,
  faissIndexSize,
  flow,
  ref,
  retrievalFixtureFlow,
  standinModel,
  textFile,
} from "./retrieval-flows";

const upsertFlow = async (flowData: string, over: Parameters<typeof makeCtx>[1] = {}, stopNodeId?: string) => {
  const { graph, plan } = planFlowUpsert(flowData, stopNodeId);
  return runUpsert(graph, plan, makeCtx("", over));
};

/** The chat requests (not the embedding ones) the stand-in received with `m` in them. */
const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };

/** A local flow: plainText (or textFile) → splitter → localHashEmbeddings → memoryVectorStore → retrievalQAChain. */
function localQaFlow(
  opts: {
    text?: string;
    chain?: string;
    storeName?: string;
    recordManager?: Record<string, unknown>;
    returnSourceDocuments?: boolean;
  } = {},
) {
  return flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
    [
      "loader_0",
      "plainText",
      "Document Loaders",
      { text: opts.text ?? TOWN_TEXT, textSplitter: ref("splitter_0"), metadata: '{"source":"town"}' },
      { output: "document" },
    ],
    ["emb_0", "localHashEmbeddings", "Embeddings", {}],
    ...(opts.recordManager ? ([["rm_0", "SQLiteRecordManager", "Record Manager", opts.recordManager]] as const) : []),
    [
      "vs_0",
      opts.storeName ?? "memoryVectorStore",
      "Vector Stores",
      { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: "2", ...(opts.recordManager ? { recordManager: ref("rm_0") } : {}) },
      { output: "retriever" },
    ],
    standinModel(),
    [
      "chain_0",
      opts.chain ?? "retrievalQAChain",
      "Chains",
      { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), ...(opts.returnSourceDocuments ? { returnSourceDocuments: true } : {}) },
    ],
  ] as never);
}

describe("the registry", () => {
  it("has the retrieval node families", () => {
    const names = supportedNodeNames();
    for (const n of [
      "documentStore",
      "documentStoreVS",
      "conversationalRetrievalQAChain",
      "retrievalQAChain",
      "retrieverTool",
      "textFile",
      "pdfFile",
      "csvFile",
      "jsonFile",
      "jsonlinesFile",
      "docxFile",
      "plainText",
      "cheerioWebScraper",
      "recursiveCharacterTextSplitter",
      "characterTextSplitter",
      "markdownTextSplitter",
      "tokenTextSplitter",
      "openAIEmbeddings",
      "cloudflareWorkersAIEmbeddings",
      "ollamaEmbeddings",
      "localHashEmbeddings",
      "faiss",
      "memoryVectorStore",
      "vectorize",
      "SQLiteRecordManager",
    ])
      expect(names, n).toContain(n);
    expect(names).not.toContain("txtFile"); // an input name, not a node
    expect(registry.get("faiss")?.upsert).toBeTypeOf("function");
    expect(registry.get("documentStore")?.upsert).toBeUndefined();
  });
});

describe("conversational-retrieval-qa-chain.json (upsert, then prediction)", () => {
  it("upserts an uploaded text file into faiss, then answers from the relevant chunk; sources on request", async () => {
    const mistral = await credential("mistralAIApi", { mistralAIAPIKey: "mistral-key" });
    // A key of its own: other files' tests embed the same town text at the same time.
    const key = `sk-embed-${marker()}`;
    const openai = await credential("openAIApi", { openAIApiKey: key });
    const flowData = retrievalFixtureFlow(mistral, openai);
    const chatflowid = crypto.randomUUID();

    const counts = await upsertFlow(flowData, { chatflowid, files: { txtFile: [textFile()] } });
    expect(counts).toMatchObject({ numAdded: 3, numUpdated: 0, numSkipped: 0, numDeleted: 0 });
    expect(counts.addedDocs.map((d) => d.pageContent)).toEqual([BAKERY, LIBRARY, STATION]);
    expect(counts.addedDocs[0].metadata).toMatchObject({ source: "town.txt" });
    const embedCalls = (await requestsWith("Sunrise Bakery")).filter((r) => r.headers.authorization === `Bearer ${key}`);
    expect(embedCalls.length).toBeGreaterThan(0);
    expect(embedCalls.at(-1)).toMatchObject({ path: "/v1/embeddings", body: { model: "text-embedding-ada-002" } });

    // Prediction: the loaders are not run; faiss retrieves from what the upsert stored.
    const m = marker();
    const ctx = makeCtx(`When does the bakery open in the morning? ${m}`, {
      chatflowid,
      nodeOverrides: { "Conversational Retrieval QA Chain": { returnSourceDocuments: true } },
    });
    const result = await runFlow(flowData, ctx);
    expect(result.text).toBe(`echo: When does the bakery open in the morning? ${m}`);
    expect(result.memoryType).toBeNull();
    expect(result.sourceDocuments?.[0]).toMatchObject({ pageContent: BAKERY, metadata: { source: "town.txt" } });
    expect(result.sourceDocuments).toHaveLength(3); // topK "" → 4, and the store holds 3
    const [sent, ...more] = await chatRequestsWith(m);
    expect(more).toHaveLength(0); // no history: no rephrase call
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer mistral-key");
    expect(sent.body.messages[0].role).toBe("system");
    expect(sent.body.messages[0].content).toContain(`<doc id='0'>${BAKERY}</doc>`);
    expect(sent.body.messages.at(-1)).toEqual({ role: "user", content: ctx.question });

    // Without the override: no sources (returnSourceDocuments is not set in the template).
    expect((await runFlow(flowData, makeCtx(`bakery ${marker()}`, { chatflowid }))).sourceDocuments).toBeUndefined();
  });

  it("second turn: the rephrase step sees the history; the answer gets it as messages; streams the answer only", async () => {
    const mistral = await credential("mistralAIApi", { mistralAIAPIKey: "k" });
    const openai = await credential("openAIApi", { openAIApiKey: "k" });
    const flowData = retrievalFixtureFlow(mistral, openai);
    const chatflowid = crypto.randomUUID();
    const sessionId = crypto.randomUUID();
    await upsertFlow(flowData, { chatflowid, files: { txtFile: [textFile()] } });
    await storeTurns(chatflowid, sessionId, [
      { role: "userMessage", content: "Where can I buy sourdough bread?" },
      { role: "apiMessage", content: "At the Sunrise Bakery." },
    ]);
    const m = marker();
    expect(canStreamFlow(flowData)).toBe(true);
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(`And when does it open? ${m}`, { chatflowid, sessionId }), rec.sink);
    const [rephrase, answer] = await chatRequestsWith(m);
    expect(rephrase.body.stream).toBe(false);
    expect(rephrase.body.messages).toEqual([
      {
        role: "user",
        content: expect.stringContaining(
          "human: Where can I buy sourdough bread?\nai: At the Sunrise Bakery.\nFollow Up Input: And when does it open?",
        ),
      },
    ]);
    expect(answer.body.stream).toBe(true);
    expect(answer.body.messages.slice(1)).toEqual([
      { role: "user", content: "Where can I buy sourdough bread?" },
      { role: "assistant", content: "At the Sunrise Bakery." },
      { role: "user", content: `And when does it open? ${m}` },
    ]);
    // The standalone question (the stand-in echoes the rephrase prompt) found the bakery first.
    expect(answer.body.messages[0].content.indexOf(BAKERY)).toBeLessThan(answer.body.messages[0].content.indexOf(LIBRARY));
    expect(rec.text()).toBe(result.text);
    expect(result.text).toBe(`echo: And when does it open? ${m}`);
  });

  it("re-upserting the same file skips every chunk; another file replaces what was there", async () => {
    const flowData = retrievalFixtureFlow(await credential("mistralAIApi", {}), await credential("openAIApi", { openAIApiKey: "k" }));
    const chatflowid = crypto.randomUUID();
    const files = { txtFile: [textFile()] };
    expect(await upsertFlow(flowData, { chatflowid, files })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect(await upsertFlow(flowData, { chatflowid, files })).toMatchObject({
      numAdded: 0,
      numUpdated: 0,
      numSkipped: 3,
      numDeleted: 0,
      addedDocs: [],
    });
    const other = await upsertFlow(flowData, { chatflowid, files: { txtFile: [textFile("bakery.txt", BAKERY)] } });
    expect(other).toMatchObject({ numAdded: 1, numSkipped: 0, numDeleted: 3 });
    expect(await faissIndexSize(`${chatflowid}_faiss_0`)).toBe(1);
  });

  it("a prediction before any upsert answers from an empty context", async () => {
    const flowData = retrievalFixtureFlow(await credential("mistralAIApi", {}), await credential("openAIApi", {}));
    const m = marker();
    const result = await runFlow(
      flowData,
      makeCtx(`anything ${m}`, { nodeOverrides: { "Conversational Retrieval QA Chain": { returnSourceDocuments: true } } }),
    );
    expect(result.sourceDocuments).toEqual([]);
    expect((await chatRequestsWith(m))[0].body.messages[0].content).toContain("------------\n\n------------");
  });
});

describe("upsert plan errors (400 saying what is wrong)", () => {
  const twoStores = flow([
    ["loader_0", "plainText", "Document Loaders", { text: "a" }],
    ["emb_0", "localHashEmbeddings", "Embeddings"],
    ["vs_a", "faiss", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }],
    ["vs_b", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }],
    ["vs_c", "memoryVectorStore", "Vector Stores", { embeddings: ref("emb_0") }],
    ["model_0", "chatOpenAI", "Chat Models"],
  ] as never);

  it("no vector store, several without stopNodeId, unknown or non-vector stopNodeId, a store without loaders", () => {
    const noStore = flow([standinModel(), ["chain_0", "conversationChain", "Chains", { model: ref("model_0") }]] as never);
    expect(() => planFlowUpsert(noStore)).toThrow(
      "This chatflow has no vector store to upsert into: upsert needs a document loader → vector store branch",
    );
    expect(() => planFlowUpsert(twoStores)).toThrow(
      "This chatflow has 2 vector stores fed by document loaders: vs_a (vs_a), vs_b (vs_b). Give stopNodeId to choose one",
    );
    expect(() => planFlowUpsert(twoStores, "ghost")).toThrow(
      "stopNodeId ghost is not a node of this chatflow; its vector stores are: vs_a (vs_a), vs_b (vs_b), vs_c (vs_c)",
    );
    expect(() => planFlowUpsert(twoStores, "model_0")).toThrow(
      "stopNodeId model_0 (chatOpenAI) is not a vector store this chatflow can upsert into",
    );
    expect(() => planFlowUpsert(twoStores, "vs_c")).toThrow(
      "vs_c (vs_c) has no document loader connected to its document input: nothing to upsert",
    );
    const { plan } = planFlowUpsert(twoStores, "vs_b");
    expect(plan.order.map((n) => n.id)).toEqual(["loader_0", "emb_0", "vs_b"]);
  });

  it("upserts into the store stopNodeId names, in its own namespace", async () => {
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(twoStores, { chatflowid }, "vs_b")).toMatchObject({ numAdded: 1 });
    const count = async (ns: string) =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM vector_document WHERE namespace = ?").bind(ns).first<{ n: number }>())?.n;
    expect(await count(`${chatflowid}_vs_b`)).toBe(1);
    expect(await count(`${chatflowid}_vs_a`)).toBe(0);
    expect(await faissIndexSize(`${chatflowid}_vs_a`)).toBe(0);
  });

  it("a loader without its file, and loaders that give nothing, are 400s", async () => {
    const flowData = retrievalFixtureFlow(await credential("mistralAIApi", {}), await credential("openAIApi", {}));
    expect(await err(upsertFlow(flowData))).toMatchObject({
      status: 400,
      message: expect.stringContaining("Text File (textFile_0) has no file: upload one with POST /vector/upsert"),
    });
    const empty = flow([
      ["ds_0", "documentStore", "Document Loaders", { selectedStore: "" }, { output: "document" }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_0", "faiss", "Vector Stores", { document: [ref("ds_0")], embeddings: ref("emb_0") }],
    ] as never);
    expect(await err(upsertFlow(empty))).toMatchObject({
      status: 400,
      message: "vs_0 (vs_0): nothing to upsert — the loaders connected to its document input gave no documents",
    });
  });
});

describe("retrievalQAChain and local providers", () => {
  it("answers from the retrieved context, topK 2, sources when asked; streams", async () => {
    const chatflowid = crypto.randomUUID();
    const flowData = localQaFlow({ returnSourceDocuments: true });
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3 });
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flowData, makeCtx(`Which platform do night trains leave from? ${m}`, { chatflowid }), rec.sink);
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toHaveLength(2);
    expect(result.sourceDocuments?.[0]).toEqual({ pageContent: STATION, metadata: { source: "town", loc: { lines: { from: 5, to: 5 } } } });
    const [sent] = await chatRequestsWith(m);
    expect(sent.body.messages[0].content).toContain(STATION);
    expect(sent.body.messages[1]).toEqual({ role: "user", content: `Which platform do night trains leave from? ${m}` });
    expect(rec.text()).toBe(result.text);
  });

  it("a connected record manager (cleanup none) keeps earlier documents; its counts", async () => {
    const chatflowid = crypto.randomUUID();
    const first = localQaFlow({ text: BAKERY, recordManager: { cleanup: "none" } });
    const second = localQaFlow({ text: LIBRARY, recordManager: { cleanup: "none" } });
    expect(await upsertFlow(first, { chatflowid })).toMatchObject({ numAdded: 1 });
    expect(await upsertFlow(second, { chatflowid })).toMatchObject({ numAdded: 1, numDeleted: 0 });
    expect(await upsertFlow(second, { chatflowid })).toMatchObject({ numAdded: 0, numSkipped: 1 });
    const result = await runFlow(
      localQaFlow({ recordManager: { cleanup: "none" }, returnSourceDocuments: true }),
      makeCtx("library bakery", { chatflowid }),
    );
    expect(result.sourceDocuments?.map((d) => d.pageContent).sort()).toEqual([BAKERY, LIBRARY].sort());
  });

  it("a loader that does not feed a vector store runs on prediction (its text into a prompt)", async () => {
    const m = marker();
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: "The secret word is heron." }, { output: "text" }],
      [
        "prompt_0",
        "promptTemplate",
        "Prompts",
        {
          template: "Context: {context}\nQuestion: {question}",
          promptValues: JSON.stringify({ context: ref("loader_0"), question: "{{question}}" }),
        },
      ],
      standinModel(),
      ["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }],
    ] as never);
    expect(planRun(parseFlowData(flowData)).skipped.size).toBe(0);
    const result = await runFlow(flowData, makeCtx(`what is the word? ${m}`));
    expect(result.text).toBe(`echo: Context: The secret word is heron.\nQuestion: what is the word? ${m}`);
  });
});

describe("the documentStore node", () => {
  it("as a retriever over a document store (its saved embedding and vector store) in a conversational chain", async () => {
    const store = await newStore("town");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
      ...LOCAL,
    });
    const m = marker();
    const flowData = flow([
      ["ds_0", "documentStoreVS", "Vector Stores", { selectedStore: store.id, topK: 1 }, { output: "retriever" }],
      standinModel(),
      [
        "chain_0",
        "conversationalRetrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: ref("ds_0"), returnSourceDocuments: true },
      ],
    ] as never);
    const result = await runFlow(flowData, makeCtx(`Is there a poetry circle at the library? ${m}`));
    expect(result.sourceDocuments).toHaveLength(1);
    expect(result.sourceDocuments?.[0].pageContent).toBe(LIBRARY);
    expect(result.sourceDocuments?.[0].metadata.docId).toBeTypeOf("string");
  });

  it("as Flowise's loader (output document): a store's chunks feed a vector store on upsert", async () => {
    const store = await newStore("town chunks");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT, metadata: { source: "store" } } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
      ...LOCAL,
    });
    const chatflowid = crypto.randomUUID();
    const flowData = flow([
      ["ds_0", "documentStore", "Document Loaders", { selectedStore: store.id }, { output: "document" }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_0", "faiss", "Vector Stores", { document: [ref("ds_0")], embeddings: ref("emb_0") }, { output: "retriever" }],
      standinModel(),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), returnSourceDocuments: true }],
    ] as never);
    expect([...planRun(parseFlowData(flowData)).skipped]).toEqual(["ds_0"]);
    const counts = await upsertFlow(flowData, { chatflowid });
    expect(counts).toMatchObject({ numAdded: 3 });
    expect(counts.addedDocs[0]).toEqual({ pageContent: BAKERY, metadata: { source: "store", loc: { lines: { from: 1, to: 1 } } } });
    const result = await runFlow(flowData, makeCtx("croissants sourdough bakery", { chatflowid }));
    expect(result.sourceDocuments?.[0].pageContent).toBe(BAKERY);
  });

  it("no store selected, or a store that does not exist → 400 naming the node", async () => {
    const ghost = crypto.randomUUID();
    const chain = (selectedStore: string) =>
      flow([
        ["ds_0", "documentStore", "Vector Stores", { selectedStore }, { output: "retriever" }],
        standinModel(),
        ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("ds_0") }],
      ] as never);
    expect(await err(runFlow(chain(""), makeCtx("q")))).toMatchObject({
      status: 400,
      message: "ds_0 (ds_0) needs a document store: choose one in selectedStore",
    });
    expect(await err(runFlow(chain(ghost), makeCtx("q")))).toMatchObject({
      status: 400,
      message: `ds_0 (ds_0): document store ${ghost} (its selectedStore) does not exist`,
    });
    const unused = await newStore("never upserted");
    expect(await err(runFlow(chain(unused.id), makeCtx("q")))).toMatchObject({
      status: 400,
      message: expect.stringContaining("upsert it first"),
    });
  });
});

describe("retrieverTool", () => {
  it("an agent calls it; the passages go to the model and the sources to the run's sourceDocuments", async () => {
    const store = await newStore("tool store");
    await storeUpsert(store.id, {
      loader: { name: "plainText", config: { text: TOWN_TEXT } },
      splitter: { name: "recursiveCharacterTextSplitter", config: { chunkSize: 1000 } },
      ...LOCAL,
    });
    const m = marker();
    const flowData = flow([
      ["ds_0", "documentStore", "Vector Stores", { selectedStore: store.id, topK: 1 }, { output: "retriever" }],
      [
        "tool_0",
        "retrieverTool",
        "Tools",
        { name: "town guide", description: "Finds facts about the town", retriever: ref("ds_0"), returnSourceDocuments: true },
      ],
      standinModel(),
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ] as never);
    const rec = recordingSink();
    const result = await runFlow(
      flowData,
      makeCtx(`[call town_guide {"input":"left-luggage office at the railway station"}] ${m}`),
      rec.sink,
    );
    expect(result.usedTools).toEqual([
      { tool: "town_guide", toolInput: { input: "left-luggage office at the railway station" }, toolOutput: STATION },
    ]);
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ docId: expect.any(String) }) }]);
    expect(result.text).toBe(`tools said: ${STATION}`);
    const offered = (await chatRequestsWith(m))[0].body as { tools?: Array<{ function: { name: string; description: string } }> };
    expect(offered.tools?.[0].function).toMatchObject({ name: "town_guide", description: "Finds facts about the town" });
  });

  it("without returnSourceDocuments the run has no sources", async () => {
    const chatflowid = crypto.randomUUID();
    const specs = [
      ["loader_0", "plainText", "Document Loaders", { text: BAKERY }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_0", "faiss", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }, { output: "retriever" }],
      ["tool_0", "retrieverTool", "Tools", { name: "bakery", description: "About the bakery", retriever: ref("vs_0") }],
      standinModel(),
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ];
    const flowData = flow(specs as never);
    await upsertFlow(flowData, { chatflowid });
    const result = await runFlow(flowData, makeCtx(`[call bakery {"input":"opening"}] ${marker()}`, { chatflowid }));
    expect(result.usedTools?.[0].toolOutput).toBe(BAKERY);
    expect(result.sourceDocuments).toBeUndefined();
  });
});

describe("embeddings nodes", () => {
  it("openAIEmbeddings that fails → 502 naming the endpoint, on upsert", async () => {
    const chatflowid = crypto.randomUUID();
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: "[fail-embed] text" }],
      ["emb_0", "openAIEmbeddings", "Embeddings", { basepath: `${standinUrl()}/v1` }],
      ["vs_0", "faiss", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }],
    ] as never);
    expect(await err(upsertFlow(flowData, { chatflowid }))).toMatchObject({
      status: 502,
      message: expect.stringContaining("embeddings endpoint answered 500"),
    });
  });

  it("the Workers AI embeddings with the vectorize node (the Cloudflare path, on stand-ins)", async () => {
    const chatflowid = crypto.randomUUID();
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT }],
      ["emb_0", "cloudflareWorkersAIEmbeddings", "Embeddings"],
      ["vs_0", "vectorize", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: 1 }, { output: "retriever" }],
      standinModel(),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0"), returnSourceDocuments: true }],
    ] as never);
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 1 });
    const result = await runFlow(flowData, makeCtx("bakery", { chatflowid }));
    expect(result.sourceDocuments?.[0].pageContent).toBe(TOWN_TEXT);
  });
});
