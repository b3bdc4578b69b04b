// Flowise's Vectara nodes against the Vectara stand-in (test/standin/vectara.mjs, REST API v2: v1 was
// retired on 2025-08-16), driven as a user does: POST /vector/upsert and POST /prediction on saved
// chatflows, and a document store. Vectara embeds text itself: no embeddings node, no model asked for a
// vector. Each test uses its own corpus keys (with a marker), so requests and documents are its own.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkEndpoint } from "../../src/lib/outbound/policy";
import { VectaraClient } from "../../src/providers/vectorstores/vectara/client";
import { call, expectError, json } from "../helpers";
import { deleteVectors, ENERGY, queryWindTurbines, SOLAR, storeUpsertConfig, TIDAL, upsertText, WIND } from "../routes/hosted-store-routes";
import { newStore } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";
import { credential, marker, requestsWith } from "./helpers";
import { BAKERY, LIBRARY, STATION, TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

const vectara = () => inject("vectaraUrl");
let restore: () => void;
beforeAll(() => {
  restore = setVars({ VECTARA_BASE_URL: vectara() });
});
afterAll(() => restore());

type Req = { method: string; path: string; headers: Record<string, string>; body: any };
const received = async (m: string): Promise<Req[]> => (await fetch(`${vectara()}/requests?contains=${m}`)).json();
const documents = async (corpus: string) =>
  ((await (await fetch(`${vectara()}/dump/${corpus}`)).json()) as { documents: Array<{ id: string; text: string; metadata: any }> })
    .documents;

/**
 * A vectaraApi credential for a fresh corpus key (with a marker) — customerID as Flowise's flows carry it,
 * which v2 ignores. `corpus` (a list, a v1 id, "down") is used as given.
 */
async function account(corpus = `town_${marker()}`, apiKey = "vectara-key-secret-123") {
  return { corpus, cred: await credential("vectaraApi", { customerID: "1234567", corpusID: corpus, apiKey }) };
}

const save = async (flowData: string) => (await json("POST", "/chatflows", { body: { name: "vectara", flowData } })).id as string;
const ask = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });
const queries = async (m: string) => (await received(m)).filter((r) => r.path === "/v2/query");

/** plainText (the town, split in paragraphs) → vectara (no embeddings) → retrievalQAChain at the chat stand-in. */
const townFlow = (cred: string, inputs: Record<string, unknown> = {}, text = TOWN_TEXT) =>
  flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
    [
      "loader_0",
      "plainText",
      "Document Loaders",
      { text, textSplitter: ref("splitter_0"), metadata: '{"source":"town"}' },
      { output: "document" },
    ],
    [
      "vectara_0",
      "vectara",
      "Vector Stores",
      { credential: cred, document: [ref("loader_0")], topK: 1, ...inputs },
      { output: "retriever" },
    ],
    standinModel(),
    [
      "chain_0",
      "retrievalQAChain",
      "Chains",
      { model: ref("model_0"), vectorStoreRetriever: ref("vectara_0"), returnSourceDocuments: true },
    ],
  ] as never);

/** Documents put straight into the stand-in's corpus (as Vectara's console or another client would). */
async function fill(corpus: string, texts: string[], metadata: (i: number) => Record<string, unknown> = (n) => ({ n: String(n) })) {
  for (const [i, text] of texts.entries()) {
    const res = await fetch(`${vectara()}/v2/corpora/${corpus}/documents`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "vectara-key-fill" },
      body: JSON.stringify({ id: `doc-${i}`, type: "core", metadata: metadata(i), document_parts: [{ text }] }),
    });
    expect(res.status).toBe(201);
  }
}

describe("vectara", () => {
  it("upsert indexes each chunk as a core document with its metadata; a prediction searches by text; unchanged ones skipped", async () => {
    const { corpus, cred } = await account();
    const id = await save(townFlow(cred));
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    const stored = await documents(corpus);
    expect(stored.map((d) => d.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    const indexed = (await received(corpus)).filter((r) => r.path === `/v2/corpora/${corpus}/documents`);
    expect(indexed).toHaveLength(3);
    for (const r of indexed) {
      expect(r.headers).toMatchObject({ "x-api-key": "vectara-key-secret-123", "x-source": "flowise" });
      // v2 takes no customer id (the credential's customerID is ignored).
      expect(r.headers).not.toHaveProperty("customer-id");
      expect(r.body).toMatchObject({ id: expect.any(String), type: "core", metadata: { source: "town" } });
      expect(r.body.document_parts).toEqual([{ text: expect.any(String) }]);
    }

    const m = marker();
    const answer = await ask(id, `Which platform do night trains leave from? ${m}`);
    expect(answer.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town", lang: "eng" }) }]);
    const [q] = await queries(corpus);
    expect(q.headers).not.toHaveProperty("customer-id");
    expect(q.body).toEqual({
      query: `Which platform do night trains leave from? ${m}`,
      search: {
        corpora: [{ corpus_key: corpus, lexical_interpolation: 0 }],
        limit: 1,
        context_configuration: {},
        // v1 did not rerank: v2's default reranker is turned off so scores stay as they were.
        reranker: { type: "none" },
      },
    });

    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 0, numSkipped: 3 });
    expect((await received(corpus)).filter((r) => r.path === `/v2/corpora/${corpus}/documents`)).toHaveLength(3);
  });

  it("filter, lambda, context sentences and MMR in v2's shape; several corpora are searched together", async () => {
    const m = marker();
    const [a, b] = [`bakery_${m}`, `library_${m}`];
    const { cred } = await account(`${a}, ${b}`);
    await fill(a, [BAKERY]);
    await fill(b, [LIBRARY]);
    const inputs = { filter: "doc.n = '0'", lambda: 0.3, sentencesBefore: 1, sentencesAfter: 3, mmrDiversityBias: 0.4, mmrK: 10, topK: 2 };
    const id = await save(townFlow(cred, inputs));
    const answer = await ask(id, "bakery sourdough library novels");
    expect(answer.sourceDocuments.map((d: { pageContent: string }) => d.pageContent).sort()).toEqual([BAKERY, LIBRARY].sort());
    const [q] = await queries(m);
    expect(q.body.search).toEqual({
      corpora: [a, b].map((corpus_key) => ({ corpus_key, metadata_filter: "doc.n = '0'", lexical_interpolation: 0.3 })),
      limit: 10,
      context_configuration: { sentences_before: 1, sentences_after: 3 },
      reranker: { type: "mmr", diversity_bias: 0.4, limit: 2 },
    });
    // Writes go to one corpus only.
    const err = await expectError(await call("POST", `/vector/upsert/${id}`, { body: {} }), 400);
    expect(err.message).toContain("Vectara writes go to one corpus");
  });

  it("metadata comes back as indexed (v2 keeps numbers and lists); a numeric filter and the part's metadata", async () => {
    const { corpus, cred } = await account();
    await fill(corpus, [BAKERY, LIBRARY], (i) => ({ n: i, tags: ["town", "ü"] }));
    const id = await save(townFlow(cred, { filter: "doc.n = 1", topK: 5 }));
    const answer = await ask(id, "bakery sourdough library novels");
    expect(answer.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { lang: "eng", n: 1, tags: ["town", "ü"] } }]);
  });

  it("a file input is uploaded on upsert (multipart to /v2/corpora/{key}/upload_file), beside the documents", async () => {
    const { corpus, cred } = await account();
    const file = `data:text/plain;base64,${btoa("Harbour ferries leave at noon.")},filename:harbour.txt`;
    const id = await save(townFlow(cred, { file }, BAKERY));
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 2 });
    const [up] = (await received(corpus)).filter((r) => r.path.endsWith("/upload_file"));
    expect(up.path).toBe(`/v2/corpora/${corpus}/upload_file`);
    expect(up.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect((await documents(corpus)).map((d) => d.text).sort()).toEqual([BAKERY, "Harbour ferries leave at noon."].sort());
  });

  it("a file name with non-ASCII characters and spaces is sent URL-encoded: the document id is the name as it is", async () => {
    const { corpus, cred } = await account();
    const text = "Le café ouvre à 7 h.";
    const bytes = new TextEncoder().encode(text);
    const file = `data:text/plain;base64,${btoa(String.fromCharCode(...bytes))},filename:café menu.txt`;
    const id = await save(townFlow(cred, { file }, BAKERY));
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 2 });
    expect((await documents(corpus)).find((d) => d.id === "café menu.txt")?.text).toBe(text);
  });

  it("a wrong key → 502 naming the credential, a failing corpus → 502 with its message, never the key; none → 400", async () => {
    const wrong = await account(undefined, "not-a-key-987654");
    const refused = await expectError(
      await call("POST", `/prediction/${await save(townFlow(wrong.cred))}`, { body: { question: "bakery" } }),
      502,
    );
    expect(refused.message).toBe("Vectara query was refused (401): check the vectaraApi credential");
    const down = await account("down");
    const failed = await expectError(
      await call("POST", `/prediction/${await save(townFlow(down.cred))}`, { body: { question: "bakery" } }),
      502,
    );
    expect(failed.message).toBe("Vectara query failed (500): Internal error: the corpus is having a bad day");
    expect(JSON.stringify([refused, failed])).not.toMatch(/not-a-key-987654|vectara-key-secret/);
    const none = await expectError(await call("POST", `/prediction/${await save(townFlow(""))}`, { body: { question: "bakery" } }), 400);
    expect(none.message).toContain("vectaraApi credential with corpusID (corpus keys) and apiKey");
  });

  it("a v1 corpus id left in the credential (a 404) → 400 saying v1 is retired and corpusID needs the corpus key", async () => {
    const { cred } = await account("4217");
    const id = await save(townFlow(cred));
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "bakery" } }), 400);
    expect(err.message).toContain("Vectara query: not found (Corpus not found: 4217)");
    expect(err.message).toContain(
      "Vectara's API v1 is retired: the vectaraApi credential's corpusID must now hold the corpus key " +
        "(shown in Vectara's console), not the v1 corpus id 4217",
    );
    const up = await expectError(await call("POST", `/vector/upsert/${id}`, { body: {} }), 400);
    expect(up.message).toContain("Vectara's API v1 is retired");
    // A corpus key that is missing is named as such, without the v1 hint.
    const missing = await account(`missing_${marker()}`);
    const e2 = await expectError(await call("POST", `/prediction/${await save(townFlow(missing.cred))}`, { body: { question: "x" } }), 400);
    expect(e2.message).toContain("check the vectaraApi credential's corpusID (Vectara corpus keys)");
    expect(e2.message).not.toContain("v1");
  });

  it("a question past v2's 5000-character query cap is cut to 5000 characters (not refused), unicode kept whole", async () => {
    const { corpus, cred } = await account();
    await fill(corpus, [STATION]);
    const id = await save(townFlow(cred, { topK: 1 }));
    const question = `night trains platform ${"🚆".repeat(6000)}`;
    const answer = await ask(id, question);
    expect(answer.sourceDocuments.map((d: { pageContent: string }) => d.pageContent)).toEqual([STATION]);
    const [q] = await queries(corpus);
    expect(Array.from(q.body.query as string)).toHaveLength(5000);
    expect(q.body.query.startsWith("night trains platform 🚆")).toBe(true);
    expect(q.body.query.endsWith("🚆")).toBe(true);
  });

  it("deletes by percent-encoded document id; one already gone is done; a missing corpus is an error", async () => {
    const policy = checkEndpoint(vectara(), "VECTARA_BASE_URL", { ...env, VECTARA_BASE_URL: vectara() } as never);
    const corpus = `notes_${marker()}`;
    const client = new VectaraClient({ base: vectara(), policy, apiKey: "vectara-key-direct", corpusKeys: [corpus] });
    const docId = "notes/2024 ü#1?";
    await client.index(docId, "The pier opens at dawn.", { n: 1 });
    expect((await documents(corpus)).map((d) => d.id)).toEqual([docId]);
    // Indexing it again (a retried write) is a 409, taken as done.
    await client.index(docId, "The pier opens at dawn.", { n: 1 });
    await client.deleteDoc(docId);
    expect(await documents(corpus)).toEqual([]);
    const del = (await received(corpus)).find((r) => r.method === "DELETE");
    expect(del?.path).toBe(`/v2/corpora/${corpus}/documents/notes%2F2024%20%C3%BC%231%3F`);
    await client.deleteDoc(docId);
    const gone = new VectaraClient({ base: vectara(), policy, apiKey: "vectara-key-direct", corpusKeys: ["missing_corpus"] });
    await expect(gone.deleteDoc("x")).rejects.toThrow(/not found \(Corpus not found: missing_corpus\)/);
  });

  it("works as a document store's vector store: upsert, query, delete (its embeddings left unused)", async () => {
    const { corpus, cred } = await account();
    const store = await newStore();
    const common = storeUpsertConfig({ name: "vectara", config: { credential: cred } });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    await upsertText(store.id, common, TIDAL, "b");
    expect((await documents(corpus)).map((d) => d.text).sort()).toEqual([SOLAR, TIDAL, WIND].sort());
    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);
    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect((await documents(corpus)).map((d) => d.text)).toEqual([TIDAL]);
    expect((await received(corpus)).filter((r) => r.method === "DELETE")).toHaveLength(2);
  });
});

describe("vectaraQAChain", () => {
  const qaFlow = (cred: string, chain: Record<string, unknown> = {}, store: Record<string, unknown> = {}) =>
    flow([
      ["vectara_0", "vectara", "Vector Stores", { credential: cred, topK: 3, ...store }, { output: "vectorStore" }],
      ["chain_0", "vectaraQAChain", "Chains", { vectaraStore: ref("vectara_0"), maxSummarizedResults: 2, ...chain }],
    ] as never);

  it("answers with Vectara's summary, citations renumbered in order of use, the cited passages as sources", async () => {
    const { corpus, cred } = await account();
    await fill(corpus, [BAKERY, LIBRARY, STATION]);
    const id = await save(qaFlow(cred, { responseLang: "deu" }));
    const answer = await ask(id, "bakery library station platform novels sourdough");
    // The stand-in answers "Most relevant [2]. Then [1]. Again [2]."
    expect(answer.text).toBe("Most relevant [1]. Then [2]. Again [1].");
    const [q] = await queries(corpus);
    expect(q.body.search).toMatchObject({
      limit: 3,
      context_configuration: { sentences_before: 2, sentences_after: 2 },
      corpora: [{ corpus_key: corpus, lexical_interpolation: 0.025 }],
    });
    expect(q.body.generation).toEqual({
      generation_preset_name: "vectara-summary-ext-v1.2.0",
      response_language: "deu",
      max_used_search_results: 2,
      citations: { style: "numeric" },
      enable_factual_consistency_score: false,
    });
    expect(answer.sourceDocuments).toHaveLength(2);
    expect(answer.sourceDocuments[0].metadata).toMatchObject({ lang: "eng" });
    expect(answer.sourceDocuments[0].pageContent).not.toBe(answer.sourceDocuments[1].pageContent);
  });

  it("a summarizer the account lacks → 400 naming it; no Vectara store connected → 400", async () => {
    const { corpus, cred } = await account();
    await fill(corpus, [BAKERY]);
    const id = await save(qaFlow(cred, { summarizerPromptName: "no-such-summarizer" }));
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "bakery" } }), 400);
    expect(err.message).toContain("summarizer no-such-summarizer is not available");
    const bare = flow([["chain_0", "vectaraQAChain", "Chains", {}]] as never);
    const e2 = await expectError(await call("POST", `/prediction/${await save(bare)}`, { body: { question: "bakery" } }), 400);
    expect(e2.message).toContain("needs a Vectara node");
  });
});

describe("vectaraUpload", () => {
  it("uploads its file when the flow runs (again: already there, left as it is) and retrieves from it", async () => {
    const { corpus, cred } = await account();
    const file = `data:text/plain;base64,${btoa("The lighthouse is open to visitors on Sundays.")},filename:lighthouse.txt`;
    const flowData = flow([
      ["up_0", "vectaraUpload", "Vector Stores", { credential: cred, file }, { output: "retriever" }],
      standinModel(),
      ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("up_0"), returnSourceDocuments: true }],
    ] as never);
    const id = await save(flowData);
    const first = await ask(id, "When is the lighthouse open?");
    expect(first.sourceDocuments).toEqual([
      { pageContent: "The lighthouse is open to visitors on Sundays.", metadata: expect.objectContaining({ uploaded: "true" }) },
    ]);
    await ask(id, "Is the lighthouse open on Sundays?");
    // The same file again: v2's indexer takes it as it is (one document).
    expect((await received(corpus)).filter((r) => r.path === `/v2/corpora/${corpus}/upload_file`)).toHaveLength(2);
    expect(await documents(corpus)).toHaveLength(1);
    expect((await requestsWith("When is the lighthouse open?")).length).toBeGreaterThan(0);
  });
});
