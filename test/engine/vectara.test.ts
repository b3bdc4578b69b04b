// Flowise's Vectara nodes against the Vectara stand-in (test/standin/vectara.mjs, API v1), driven as a
// user does: POST /vector/upsert and POST /prediction on saved chatflows, and a document store. Vectara
// embeds text itself: no embeddings node, no model asked for a vector. Each test uses its own customer
// and corpus ids (a marker), so requests and documents are its own.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
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
const documents = async (customer: string, corpus: string) =>
  (
    (await (await fetch(`${vectara()}/dump/${customer}/${corpus}`)).json()) as {
      documents: Array<{ id: string; text: string; metadata: any }>;
    }
  ).documents;

/** A vectaraApi credential for a fresh customer (marker) and corpus. */
async function account(corpus = "7", apiKey = "vectara-key-secret-123") {
  const customer = `c${marker()}`;
  return { customer, corpus, cred: await credential("vectaraApi", { customerID: customer, corpusID: corpus, apiKey }) };
}

const save = async (flowData: string) => (await json("POST", "/chatflows", { body: { name: "vectara", flowData } })).id as string;
const ask = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

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

/** Documents put straight into the stand-in's corpus (as Flowise would have indexed them). */
async function fill(customer: string, corpus: string, texts: string[]) {
  for (const [i, text] of texts.entries()) {
    const document = { document_id: `doc-${i}`, title: "", metadata_json: JSON.stringify({ n: i }), section: [{ text }] };
    await fetch(`${vectara()}/v1/index`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "vectara-key-fill", "customer-id": customer },
      body: JSON.stringify({ customer_id: customer, corpus_id: corpus, document }),
    });
  }
}

describe("vectara", () => {
  it("upsert indexes each chunk with its metadata (no embeddings); a prediction searches by text; unchanged chunks are skipped", async () => {
    const { customer, corpus, cred } = await account();
    const id = await save(townFlow(cred));
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    const stored = await documents(customer, corpus);
    expect(stored.map((d) => d.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    const indexed = (await received(customer)).filter((r) => r.path === "/v1/index");
    expect(indexed).toHaveLength(3);
    for (const r of indexed) {
      expect(r.headers).toMatchObject({ "x-api-key": "vectara-key-secret-123", "customer-id": customer, "x-source": "flowise" });
      expect(r.body).toMatchObject({ customer_id: customer, corpus_id: corpus, document: { section: [{ text: expect.any(String) }] } });
    }

    const m = marker();
    const answer = await ask(id, `Which platform do night trains leave from? ${m}`);
    expect(answer.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town", lang: "eng" }) }]);
    const [q] = (await received(customer)).filter((r) => r.path === "/v1/query");
    expect(q.body.query[0]).toMatchObject({
      query: `Which platform do night trains leave from? ${m}`,
      numResults: 1,
      corpusKey: [{ customerId: customer, corpusId: corpus, metadataFilter: "", lexicalInterpolationConfig: { lambda: 0 } }],
    });
    expect(q.body.query[0]).not.toHaveProperty("rerankingConfig");

    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 0, numSkipped: 3 });
    expect((await received(customer)).filter((r) => r.path === "/v1/index")).toHaveLength(3);
  });

  it("filter, lambda, context sentences and MMR as Flowise sends them; several corpora are searched together", async () => {
    const { customer, cred } = await account("7,8");
    await fill(customer, "7", [BAKERY]);
    await fill(customer, "8", [LIBRARY]);
    const inputs = { filter: "doc.n = '0'", lambda: 0.3, sentencesBefore: 1, sentencesAfter: 3, mmrDiversityBias: 0.4, mmrK: 10, topK: 2 };
    const id = await save(townFlow(cred, inputs));
    const answer = await ask(id, "bakery sourdough library novels");
    expect(answer.sourceDocuments.map((d: { pageContent: string }) => d.pageContent).sort()).toEqual([BAKERY, LIBRARY].sort());
    const [q] = (await received(customer)).filter((r) => r.path === "/v1/query");
    expect(q.body.query[0]).toMatchObject({
      numResults: 10,
      contextConfig: { sentencesBefore: 1, sentencesAfter: 3 },
      rerankingConfig: { rerankerId: 272725718, mmrConfig: { diversityBias: 0.4 } },
    });
    expect(q.body.query[0].corpusKey.map((k: { corpusId: string }) => k.corpusId)).toEqual(["7", "8"]);
    expect(q.body.query[0].corpusKey[0]).toMatchObject({ metadataFilter: "doc.n = '0'", lexicalInterpolationConfig: { lambda: 0.3 } });
    // Writes go to one corpus only.
    const err = await expectError(await call("POST", `/vector/upsert/${id}`, { body: {} }), 400);
    expect(err.message).toContain("Vectara writes go to one corpus");
  });

  it("a file input is uploaded on upsert (multipart to /v1/upload), beside the documents", async () => {
    const { customer, corpus, cred } = await account();
    const file = `data:text/plain;base64,${btoa("Harbour ferries leave at noon.")},filename:harbour.txt`;
    const id = await save(townFlow(cred, { file }, BAKERY));
    expect(await json("POST", `/vector/upsert/${id}`, { body: {} })).toMatchObject({ numAdded: 2 });
    const [up] = (await received(customer)).filter((r) => r.path.startsWith("/v1/upload"));
    expect(up.path).toBe(`/v1/upload?c=${customer}&o=${corpus}&d=true`);
    expect(up.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect((await documents(customer, corpus)).map((d) => d.text).sort()).toEqual([BAKERY, "Harbour ferries leave at noon."].sort());
  });

  it("a wrong key → 502 naming the credential, a failing corpus → 502 with Vectara's message; never the key; no credential → 400", async () => {
    const wrong = await account("7", "not-a-key-987654");
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
    expect(none.message).toContain("vectaraApi credential with customerID, corpusID and apiKey");
  });

  it("works as a document store's vector store: upsert, query, delete (its embeddings left unused)", async () => {
    const { customer, corpus, cred } = await account();
    const store = await newStore();
    const common = storeUpsertConfig({ name: "vectara", config: { credential: cred } });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    await upsertText(store.id, common, TIDAL, "b");
    expect((await documents(customer, corpus)).map((d) => d.text).sort()).toEqual([SOLAR, TIDAL, WIND].sort());
    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);
    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect((await documents(customer, corpus)).map((d) => d.text)).toEqual([TIDAL]);
    expect((await received(customer)).filter((r) => r.path === "/v1/delete-doc")).toHaveLength(2);
  });
});

describe("vectaraQAChain", () => {
  const qaFlow = (cred: string, chain: Record<string, unknown> = {}, store: Record<string, unknown> = {}) =>
    flow([
      ["vectara_0", "vectara", "Vector Stores", { credential: cred, topK: 3, ...store }, { output: "vectorStore" }],
      ["chain_0", "vectaraQAChain", "Chains", { vectaraStore: ref("vectara_0"), maxSummarizedResults: 2, ...chain }],
    ] as never);

  it("answers with Vectara's summary, citations renumbered in order of use, the cited passages as sources", async () => {
    const { customer, corpus, cred } = await account();
    await fill(customer, corpus, [BAKERY, LIBRARY, STATION]);
    const id = await save(qaFlow(cred));
    const answer = await ask(id, "bakery library station platform novels sourdough");
    // The stand-in answers "Most relevant [2]. Then [1]. Again [2]."
    expect(answer.text).toBe("Most relevant [1]. Then [2]. Again [1].");
    const [q] = (await received(customer)).filter((r) => r.path === "/v1/query");
    expect(q.body.query[0]).toMatchObject({
      numResults: 3,
      contextConfig: { sentencesBefore: 2, sentencesAfter: 2 },
      corpusKey: [{ customerId: customer, corpusId: corpus, lexicalInterpolationConfig: { lambda: 0.025 } }],
      summary: [{ summarizerPromptName: "vectara-summary-ext-v1.2.0", responseLang: "eng", maxSummarizedResults: 2 }],
    });
    expect(answer.sourceDocuments).toHaveLength(2);
    expect(answer.sourceDocuments[0].metadata).toMatchObject({ lang: "eng" });
    expect(answer.sourceDocuments[0].pageContent).not.toBe(answer.sourceDocuments[1].pageContent);
  });

  it("a summarizer the account lacks → 400 naming it; no Vectara store connected → 400", async () => {
    const { customer, corpus, cred } = await account();
    await fill(customer, corpus, [BAKERY]);
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
    const { customer, corpus, cred } = await account();
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
    expect((await received(customer)).filter((r) => r.path.startsWith("/v1/upload"))).toHaveLength(2);
    expect(await documents(customer, corpus)).toHaveLength(1);
    expect((await requestsWith("When is the lighthouse open?")).length).toBeGreaterThan(0);
  });
});
