// Flowise's Retrievers nodes in saved chatflows: a town text (three chunks) upserted into a
// memory vector store over the stand-in's embeddings, then a retrieval chain asking through a
// retriever node; the run's sourceDocuments and what the stand-in received show each node's effect.
import { beforeAll, describe, expect, it } from "vitest";
import { supportedNodeNames } from "../../src/engine/chatflow/registry";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { Document } from "@langchain/core/documents";
import { EXTRACT_PROMPT, HYDE_PROMPTS } from "../../src/engine/chatflow/nodes/retrievers";
import { type RerankNode, buildReranker } from "../../src/engine/chatflow/nodes/retrievers/rerank";
import { str } from "../../src/lib/inputs";
import { credential, makeCtx, marker, requestsWith, runFlow, runtimeWith, standinUrl } from "./helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

type Spec = Parameters<typeof flow>[0][number];

let openai = "";
let cohere = "";
let jina = "";
let voyage = "";

beforeAll(async () => {
  openai = await credential("openAIApi", { openAIApiKey: "sk-retrievers" });
  cohere = await credential("cohereApi", { cohereApiKey: "co-rerank-key" });
  jina = await credential("jinaAIApi", { jinaAIAPIKey: "jina-rerank-key" });
  voyage = await credential("voyageAIApi", { apiKey: "voyage-rerank-key" });
});

const RERANK_VARS = {
  COHERE_RERANK_BASE_URL: standinUrl(),
  JINA_RERANK_BASE_URL: `${standinUrl()}/jina`,
  VOYAGE_RERANK_BASE_URL: `${standinUrl()}/voyage/v1`,
};

/**
 * The town text → splitter → memoryVectorStore (stand-in embeddings, `output`, topK) → the
 * retriever node(s) `ret_0` → a retrieval chain returning its sources.
 */
function townFlow(
  retriever: Spec[],
  opts: { output?: string; topK?: number; chain?: string; loaders?: Spec[]; documents?: string[]; ending?: Spec[] } = {},
): string {
  const loaders: Spec[] = opts.loaders ?? [
    ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0"), metadata: '{"source":"town"}' }],
  ];
  return flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
    ...loaders.map(([id, name, category, inputs]) => [id, name, category, inputs, { output: "document" }] as Spec),
    ["emb_0", "openAIEmbeddings", "Embeddings", { basepath: `${standinUrl()}/v1`, credential: openai }],
    [
      "vs_0",
      "memoryVectorStore",
      "Vector Stores",
      {
        document: (opts.documents ?? loaders.map(([id]) => id)).map(ref),
        embeddings: ref("emb_0"),
        topK: String(opts.topK ?? 3),
      },
      { output: opts.output ?? "vectorStore" },
    ],
    standinModel("model_0", openai),
    ...retriever,
    ...(opts.ending ?? [
      [
        "chain_0",
        opts.chain ?? "retrievalQAChain",
        "Chains",
        { model: ref("model_0"), vectorStoreRetriever: ref("ret_0"), returnSourceDocuments: true },
      ] as Spec,
    ]),
  ]);
}

/** Upserts the flow's store, then asks `question`; the run's result. */
async function ask(flowData: string, question: string, vars: Record<string, string> = {}) {
  const chatflowid = crypto.randomUUID();
  const { graph, plan } = planFlowUpsert(flowData);
  expect(await runUpsert(graph, plan, makeCtx("", { chatflowid }))).toMatchObject({ numAdded: expect.any(Number) });
  return runFlow(flowData, makeCtx(question, { chatflowid, runtime: runtimeWith(vars) }));
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: { status: number; message: string }) => e,
  );

const chatsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
const embeddingInputsWith = async (m: string) =>
  (await requestsWith(m))
    .filter((r) => r.path.endsWith("/embeddings"))
    .flatMap((r) => (r.body as unknown as { input: string | string[] }).input);
const sources = (r: { sourceDocuments?: Array<{ pageContent: string }> }) => r.sourceDocuments?.map((d) => d.pageContent) ?? [];

describe("the registry", () => {
  it("has Flowise's retriever nodes", () => {
    for (const n of [
      "vectorStoreRetriever",
      "promptRetriever",
      "similarityThresholdRetriever",
      "multiQueryRetriever",
      "HydeRetriever",
      "embeddingsFilterRetriever",
      "llmFilterRetriever",
      "RRFRetriever",
      "extractMetadataRetriever",
      "customRetriever",
      "cohereRerankRetriever",
      "JinaRerankRetriever",
      "voyageAIRerankRetriever",
    ])
      expect(supportedNodeNames(), n).toContain(n);
  });
});

describe("retrievers over a vector store", () => {
  it("similarityThresholdRetriever keeps the hits at least minSimilarityScore % similar", async () => {
    const threshold = (min: number): Spec[] => [
      ["ret_0", "similarityThresholdRetriever", "Retrievers", { vectorStore: ref("vs_0"), minSimilarityScore: min, maxK: 10 }],
    ];
    const q = `Which platform do the night trains leave from at the station? ${marker()}`;
    expect(sources(await ask(townFlow(threshold(0)), q)).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(sources(await ask(townFlow(threshold(15)), q))).toEqual([STATION]);
    expect(sources(await ask(townFlow(threshold(99)), q))).toEqual([]);
  });

  it("multiQueryRetriever asks for other versions of the question, searches each, answers their union", async () => {
    const m = marker();
    const question = `[queries library cards ${m} | sourdough bakery ${m} | night trains ${m}] Tell me about the town ${m}`;
    const result = await ask(
      townFlow([["ret_0", "multiQueryRetriever", "Retrievers", { vectorStore: ref("vs_0"), model: ref("model_0") }]]),
      question,
    );
    const [prompt] = await chatsWith("Original question:");
    const mine = (await chatsWith(m)).filter((r) => r.body.messages.at(-1)?.content.includes("Original question:"));
    expect(mine).toHaveLength(1);
    expect(mine[0].body.messages).toEqual([{ role: "user", content: `${MQ_HEAD}\n\nOriginal question: ${question}` }]);
    expect(prompt).toBeDefined();
    // Each generated query searched (the question itself is not); every chunk found once.
    expect(await embeddingInputsWith(m)).toEqual(
      expect.arrayContaining([`library cards ${m}`, `sourdough bakery ${m}`, `night trains ${m}`]),
    );
    expect(await embeddingInputsWith(m)).not.toContain(question);
    expect(sources(result).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
  });

  it("HydeRetriever searches with the passage the model writes, not the question", async () => {
    const m = marker();
    const question = `[passage Night trains depart from platform nine at the railway station ${m}] Where do I board? ${m}`;
    const result = await ask(
      townFlow([
        ["ret_0", "HydeRetriever", "Retrievers", { model: ref("model_0"), vectorStore: ref("vs_0"), promptKey: "websearch", topK: 1 }],
      ]),
      question,
    );
    const hyde = (await chatsWith(m)).find((r) => r.body.messages.at(-1)?.content.endsWith("Passage:"));
    expect(hyde?.body.messages).toEqual([{ role: "user", content: HYDE_PROMPTS.websearch.replace("{question}", question) }]);
    expect(await embeddingInputsWith(m)).toEqual([`Night trains depart from platform nine at the railway station ${m}`]);
    expect(sources(result)).toEqual([STATION]);
  });

  it("customRetriever writes each hit through resultFormat", async () => {
    const result = await ask(
      townFlow([
        [
          "ret_0",
          "customRetriever",
          "Retrievers",
          { vectorStore: ref("vs_0"), topK: 1, resultFormat: "{{context}}\nSource: {{metadata.source}} {{metadata.none}}" },
        ],
      ]),
      "sourdough croissants bakery",
    );
    expect(sources(result)).toEqual([`${BAKERY}\nSource: town {{metadata.none}}`]);
  });

  it("extractMetadataRetriever keeps the hits whose metadata match what the model extracted", async () => {
    const m = marker();
    const loaders: Spec[] = [
      ["loader_a", "plainText", "Document Loaders", { text: BAKERY, textSplitter: ref("splitter_0"), metadata: '{"place":"bakery"}' }],
      ["loader_b", "plainText", "Document Loaders", { text: STATION, textSplitter: ref("splitter_0"), metadata: '{"place":"station"}' }],
    ];
    const rows = JSON.stringify([{ key: "place", type: "String", description: "which place" }]);
    const retriever: Spec[] = [
      [
        "ret_0",
        "extractMetadataRetriever",
        "Retrievers",
        { vectorStore: ref("vs_0"), model: ref("model_0"), dynamicMetadataFilterRetrieverStructuredOutput: rows },
      ],
    ];
    // The question is nearer the station's chunk; the extracted filter keeps the bakery's.
    const question = `[so {"place":"bakery"}] night trains platform station tickets ${m}`;
    const result = await ask(townFlow(retriever, { loaders }), question);
    expect(sources(result)).toEqual([BAKERY]);
    const [extract] = (await chatsWith(m)).filter((r) => (r.body as { tools?: unknown[] }).tools);
    expect(extract.body.messages).toEqual([{ role: "user", content: `Extract keywords from the query: ${question}` }]);
  });
});

describe("retrievers over a base retriever", () => {
  it("embeddingsFilterRetriever drops the documents not near the query", async () => {
    const m = marker();
    const retriever: Spec[] = [
      [
        "ret_0",
        "embeddingsFilterRetriever",
        "Retrievers",
        { baseRetriever: ref("vs_0"), embeddings: ref("emb_0"), similarityThreshold: 0.15 },
      ],
    ];
    const question = `night trains platform station tickets ${m}`;
    const result = await ask(townFlow(retriever, { output: "retriever" }), question);
    expect(sources(result)).toEqual([STATION]);
    // The query embedded for the search and again for the filter, which embedded the three hits too.
    expect((await embeddingInputsWith(m)).filter((t) => t === question)).toHaveLength(2);
  });

  it("llmFilterRetriever keeps what the model extracts from each document; nothing relevant drops it", async () => {
    const m = marker();
    const question = `[extract platform] Where do trains leave? ${m}`;
    const result = await ask(
      townFlow([["ret_0", "llmFilterRetriever", "Retrievers", { baseRetriever: ref("vs_0"), model: ref("model_0") }]], {
        output: "retriever",
      }),
      question,
    );
    const extracts = (await chatsWith(m)).filter((r) => r.body.messages.at(-1)?.content.endsWith("Extracted relevant parts:"));
    expect(extracts).toHaveLength(3);
    expect(extracts.map((r) => r.body.messages[0].content).sort()).toEqual(
      [BAKERY, LIBRARY, STATION].map((c) => EXTRACT_PROMPT.replace("{question}", question).replace("{context}", c)).sort(),
    );
    expect(sources(result)).toEqual([
      "The central railway station has twelve platforms and trains leave for the coast every half hour. Tickets are sold " +
        "at the machines in the hall and at the counter beside platform one. Night trains depart from platform nine, and the " +
        "departure boards list delays. Porters help travellers with heavy suitcases, and the waiting room beside platform four " +
        "stays heated through the winter.",
    ]);
  });

  it("RRFRetriever asks for queryCount queries and fuses every query's hits by reciprocal rank", async () => {
    const m = marker();
    const question = `[queries library reader cards ${m} | library poetry novels ${m}] town ${m}`;
    const retriever: Spec[] = [
      ["ret_0", "RRFRetriever", "Retrievers", { baseRetriever: ref("vs_0"), model: ref("model_0"), queryCount: 2 }],
    ];
    const result = await ask(townFlow(retriever, { output: "retriever", topK: 2 }), question);
    const [rrf] = (await chatsWith(m)).filter((r) => r.body.messages.at(-1)?.content.startsWith("OUTPUT ("));
    expect(rrf.body.messages).toEqual([
      { role: "system", content: "You are a helpful assistant that generates multiple search queries based on a single input query." },
      {
        role: "user",
        content:
          `Generate multiple search queries related to: ${question}. ` +
          "Provide these alternative questions separated by newlines, do not add any numbers.",
      },
      { role: "user", content: "OUTPUT (2 queries):" },
    ]);
    const embedded = await embeddingInputsWith(m);
    expect(embedded).toEqual(expect.arrayContaining([`library reader cards ${m}`, `library poetry novels ${m}`]));
    // The base retriever's top K (2): the library first, scored by the fused ranks.
    expect(result.sourceDocuments).toHaveLength(2);
    expect(result.sourceDocuments?.[0].pageContent).toBe(LIBRARY);
    const scores = result.sourceDocuments?.map((d) => d.metadata.relevancy_score as number) ?? [];
    expect(scores[0]).toBeCloseTo(3 / 61, 6);
    expect(scores[0]).toBeGreaterThan(scores[1]);
  });
});

describe("rerankers", () => {
  const rerankFlow = (node: string, inputs: Record<string, unknown>, credentialId: string, chain?: string) =>
    townFlow([["ret_0", node, "Retrievers", { baseRetriever: ref("vs_0"), credential: credentialId, ...inputs }]], {
      output: "retriever",
      chain,
    });

  it("cohereRerankRetriever: Cohere's /v1/rerank orders the base retriever's documents; top K kept, scores in metadata", async () => {
    const m = marker();
    const question = `bakery sourdough croissants opens ${m}`;
    const result = await ask(
      rerankFlow("cohereRerankRetriever", { topK: 2 }, cohere, "conversationalRetrievalQAChain"),
      question,
      RERANK_VARS,
    );
    expect(sources(result)[0]).toBe(BAKERY);
    expect(result.sourceDocuments).toHaveLength(2);
    expect(result.sourceDocuments?.[0].metadata).toMatchObject({ source: "town", relevance_score: expect.any(Number) });
    const [call] = (await requestsWith(m)).filter((r) => r.path.endsWith("/rerank"));
    expect(call.path).toBe("/v1/rerank");
    expect(call.headers.authorization).toBe("Bearer co-rerank-key");
    expect(call.body).toMatchObject({ model: "rerank-v3.5", query: question, top_n: 2, max_chunks_per_doc: 10, return_documents: false });
    expect((call.body as unknown as { documents: string[] }).documents).toHaveLength(3);
  });

  it("JinaRerankRetriever and voyageAIRerankRetriever: their APIs, top N / top K", async () => {
    const m = marker();
    const question = `library cards novels ${m}`;
    const jinaResult = await ask(rerankFlow("JinaRerankRetriever", { topN: 1 }, jina), question, RERANK_VARS);
    expect(sources(jinaResult)).toEqual([LIBRARY]);
    const voyageResult = await ask(rerankFlow("voyageAIRerankRetriever", { model: "rerank-2" }, voyage), question, RERANK_VARS);
    expect(sources(voyageResult)[0]).toBe(LIBRARY);
    expect(voyageResult.sourceDocuments).toHaveLength(3); // the base retriever's top K
    const calls = (await requestsWith(m)).filter((r) => r.path.endsWith("/rerank"));
    expect(calls.map((c) => [c.path, c.headers.authorization])).toEqual([
      ["/jina/v1/rerank", "Bearer jina-rerank-key"],
      ["/voyage/v1/rerank", "Bearer voyage-rerank-key"],
    ]);
    expect(calls[0].body).toMatchObject({ model: "jina-reranker-v2-base-multilingual", top_n: 1 });
    expect(calls[1].body).toMatchObject({ model: "rerank-2", top_k: 3 });
  });

  it("a reranker's failure is a 502 with the service's message, without the key", async () => {
    const err = await failureOf(ask(rerankFlow("cohereRerankRetriever", {}, cohere), `bakery [fail-rerank] ${marker()}`, RERANK_VARS));
    expect(err.status).toBe(502);
    expect(err.message).toContain("Cohere rerank answered 500: stand-in cohere rerank failure");
    expect(err.message).not.toContain("co-rerank-key");
    const jinaErr = await failureOf(ask(rerankFlow("JinaRerankRetriever", {}, jina), `bakery [fail-rerank] ${marker()}`, RERANK_VARS));
    expect(jinaErr).toMatchObject({
      status: 502,
      message: expect.stringContaining("Jina rerank answered 500: stand-in jina rerank failure"),
    });
  });
});

describe("rerankers at their services' limits", () => {
  const rerankFlow = (node: string, inputs: Record<string, unknown>, credentialId: string) =>
    townFlow([["ret_0", node, "Retrievers", { baseRetriever: ref("vs_0"), credential: credentialId, ...inputs }]], { output: "retriever" });
  /** A node's reranker on the stand-in, called directly (edge cases a chain seldom sends). */
  const reranker = (node: RerankNode, credential: Record<string, unknown>, topN: number, inputs: Record<string, unknown> = {}) =>
    buildReranker(node, { env: runtimeWith(RERANK_VARS).providers, credential, topN, inputs, model: str(inputs.model) });
  const docs = (...texts: string[]) => texts.map((pageContent, i) => new Document({ pageContent, metadata: { i } }));
  type RerankBody = { model?: string; documents: string[]; top_n?: number; top_k?: number; max_chunks_per_doc?: number };
  const rerankCalls = async (m: string) =>
    (await requestsWith(m)).filter((r) => r.path.endsWith("/rerank")).map((r) => ({ body: r.body as unknown as RerankBody }));

  it("Cohere v1: documents × max_chunks_per_doc over 10,000 go in several calls, merged by score; 0 chunks is Cohere's 10", async () => {
    const m = marker();
    const question = `bakery sourdough croissants ${m}`;
    // 5000 chunks a document: two documents a call (Cohere refuses 3 × 5000 > 10,000).
    const result = await ask(rerankFlow("cohereRerankRetriever", { topK: 3, maxChunksPerDoc: "5000" }, cohere), question, RERANK_VARS);
    expect(sources(result)[0]).toBe(BAKERY);
    expect(result.sourceDocuments).toHaveLength(3);
    const scores = result.sourceDocuments?.map((d) => d.metadata.relevance_score as number) ?? [];
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const calls = await rerankCalls(m);
    expect(calls.map((c) => [c.body.documents.length, c.body.top_n, c.body.max_chunks_per_doc])).toEqual([
      [2, 2, 5000],
      [1, 1, 5000],
    ]);
    const m2 = marker();
    await ask(rerankFlow("cohereRerankRetriever", { maxChunksPerDoc: "0" }, cohere), `library ${m2}`, RERANK_VARS);
    expect((await rerankCalls(m2))[0].body).toMatchObject({ max_chunks_per_doc: 10 });
  });

  it("Voyage: over 1,000 documents in two calls, the best of either first; an empty document left out", async () => {
    const m = marker();
    const many = docs(...Array.from({ length: 1001 }, (_, i) => (i === 1000 ? `harbour ferry ${m}` : `d${i}`)));
    const ranked = await reranker("voyageAIRerankRetriever", { apiKey: "voyage-rerank-key" }, 2, { model: "rerank-2" }).rerank(
      `ferry ${m}`,
      many,
    );
    expect(ranked[0].metadata).toMatchObject({ i: 1000, relevance_score: 1 });
    expect(ranked).toHaveLength(2);
    expect((await rerankCalls(m)).map((c) => [c.body.documents.length, c.body.top_k])).toEqual([
      [1000, 2],
      [1, 1],
    ]);
    // Voyage refuses "" among the documents ("Input cannot contain empty strings or empty lists").
    const m2 = marker();
    const some = await reranker("voyageAIRerankRetriever", { apiKey: "voyage-rerank-key" }, 3).rerank(
      `ferry ${m2}`,
      docs("", `ferry ${m2}`, " "),
    );
    expect(some.map((d) => d.metadata.i)).toEqual([1, 2]);
    expect((await rerankCalls(m2))[0].body).toMatchObject({ model: "rerank-lite-1", documents: [`ferry ${m2}`, " "] });
  });

  it("Voyage: Flowise's model option rerank-lite-2 is sent as Voyage's rerank-2-lite", async () => {
    const m = marker();
    const result = await ask(rerankFlow("voyageAIRerankRetriever", { model: "rerank-lite-2" }, voyage), `library novels ${m}`, RERANK_VARS);
    expect(sources(result)[0]).toBe(LIBRARY);
    expect((await rerankCalls(m))[0].body).toMatchObject({ model: "rerank-2-lite", top_k: 3 });
  });

  it("a blank query keeps the base retriever's order without a call (Cohere refuses it)", async () => {
    const m = marker();
    const kept = await reranker("cohereRerankRetriever", { cohereApiKey: "co-rerank-key" }, 2).rerank(
      "  ",
      docs(`a ${m}`, "", `b ${m}`, `c ${m}`),
    );
    expect(kept.map((d) => d.metadata.i)).toEqual([0, 2]);
    expect(await rerankCalls(m)).toEqual([]);
  });
});

describe("wiring", () => {
  it("a retriever node's text output, for its query input, feeds a prompt at build", async () => {
    const m = marker();
    const retriever: Spec[] = [
      ["ret_0", "customRetriever", "Retrievers", { vectorStore: ref("vs_0"), query: "night trains platform", topK: 1 }, { output: "text" }],
      [
        "prompt_0",
        "promptTemplate",
        "Prompts",
        {
          template: "Context: {context}\nQuestion: {question}",
          promptValues: JSON.stringify({ context: ref("ret_0"), question: "{{question}}" }),
        },
      ],
    ];
    const ending: Spec[] = [["chain_0", "llmChain", "Chains", { model: ref("model_0"), prompt: ref("prompt_0") }]];
    const result = await ask(townFlow(retriever, { ending }), `what about trains? ${m}`);
    expect(result.text).toBe(`echo: Context: ${STATION}\nSource: town\n\nQuestion: what about trains? ${m}`);
  });

  it("vectorStoreRetriever keeps its name and description and retrieves as a plain retriever", async () => {
    const retriever: Spec[] = [
      ["ret_0", "vectorStoreRetriever", "Retrievers", { vectorStore: ref("vs_0"), name: "town", description: "Good for the town" }],
    ];
    const result = await ask(townFlow(retriever, { topK: 1, output: "retriever" }), "library cards novels");
    expect(sources(result)).toEqual([LIBRARY]);
  });

  it("a retriever node without its vector store is a 400 naming the node and input", async () => {
    const flowData = flow([
      ["model_0", "chatOpenAI", "Chat Models", { modelName: "m", basepath: `${standinUrl()}/v1` }],
      ["ret_0", "multiQueryRetriever", "Retrievers", { model: ref("model_0") }],
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("ret_0") }],
    ]);
    const err = await failureOf(runFlow(flowData, makeCtx("hi")));
    expect(err.status).toBe(400);
    expect(err.message).toBe("ret_0 (ret_0) needs a vector store node connected to its vectorStore input");
  });
});

const MQ_HEAD = `You are an AI language model assistant. Your task is
to generate 3 different versions of the given user
question to retrieve relevant documents from a vector database.
By generating multiple perspectives on the user question,
your goal is to help the user overcome some of the limitations
of distance-based similarity search.

Provide these alternative questions separated by newlines between XML tags. For example:

<questions>
Question 1
Question 2
Question 3
</questions>`;
