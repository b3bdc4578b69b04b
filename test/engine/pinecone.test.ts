// The pinecone vector store against the Pinecone stand-in (test/standin/pinecone.mjs), which stores
// vectors and answers by cosine with metadata filters: upsert and prediction in a chatflow, the
// record manager (unchanged chunks skipped, asked of Pinecone), namespaces, filters, an index Flowise
// filled, and a Pinecone that is down, slow or not configured.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { flowDataWarning } from "../../src/services/chatflows";
import multipleDocs from "./fixtures/multiple-documents-qna.json";
import { type Fixture, credential, db, flowDataOf, makeCtx, marker, pointAtStandin, runFlow, runtimeWith, standinUrl } from "./helpers";
import {
  askNightTrains,
  bookkeepingTexts,
  err,
  predict as predictHosted,
  storeFlow,
  storeRequests,
  upsertFlow as upsertHosted,
  upsertTwins,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION, flow, ref } from "./retrieval-flows";

const pinecone = () => inject("pineconeUrl");
const pineconeRuntime = () => runtimeWith({ PINECONE_BASE_URL: pinecone() });
const upsertFlow = (flowData: string, over: Parameters<typeof makeCtx>[1] = {}) =>
  upsertHosted(flowData, { runtime: pineconeRuntime(), ...over });
const predict = (flowData: string, question: string, over: Parameters<typeof makeCtx>[1] = {}) =>
  predictHosted(flowData, question, { runtime: pineconeRuntime(), ...over });
/** What the stand-in received for an index (its name is in every path), oldest first. */
const pineconeRequests = async (index: string) => (await storeRequests(pinecone())).filter((r) => r.path.includes(`/${index}`));

/** The town flow with a pinecone node on the stand-in's index. */
function pineconeFlow(opts: {
  credential: string;
  index: string;
  namespace?: string;
  text?: string;
  metadata?: string;
  filter?: unknown;
  topK?: string;
  extra?: Record<string, unknown>;
}) {
  const { index, namespace, filter, topK, extra, ...rest } = opts;
  return storeFlow({
    id: "pinecone_0",
    node: "pinecone",
    inputs: {
      pineconeIndex: index,
      topK: topK ?? "1",
      ...(namespace !== undefined ? { pineconeNamespace: namespace } : {}),
      ...(filter !== undefined ? { pineconeMetadataFilter: filter } : {}),
      ...extra,
    },
    ...rest,
  });
}

describe("pinecone", () => {
  it("upserts through the REST API (text in metadata, the namespace, the Api-Key), then answers from the nearest chunk", async () => {
    const key = `pc-key-${marker()}`;
    const cred = await credential("pineconeApi", { pineconeApiKey: key });
    const index = `town-${marker()}`;
    const flowData = pineconeFlow({ credential: cred, index, namespace: "docs" });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await pineconeRequests(index);
    expect(received[0]).toMatchObject({ method: "GET", path: `/indexes/${index}` });
    const upserts = received.filter((r) => r.path.endsWith("/vectors/upsert"));
    expect(upserts).toHaveLength(1);
    expect(upserts[0].headers["api-key"]).toBe(key);
    expect(upserts[0].headers["x-pinecone-api-version"]).toBeTruthy();
    const body = upserts[0].body as {
      namespace: string;
      vectors: Array<{ id: string; values: number[]; metadata: Record<string, unknown> }>;
    };
    expect(body.namespace).toBe("docs");
    expect(body.vectors.map((v) => v.metadata.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    // Nested metadata flattened as LangChain's PineconeStore writes it.
    expect(body.vectors[0].metadata).toMatchObject({ source: "town", "loc.lines.from": expect.any(Number) });

    // D1 keeps bookkeeping rows only (which loader each vector came from), not the text.
    expect(await bookkeepingTexts("pinecone", `${chatflowid}_pinecone_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid }, predict);
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const queries = (await pineconeRequests(index)).filter((r) => r.path.endsWith("/query"));
    expect(queries.at(-1)?.body).toMatchObject({ namespace: "docs", topK: 1, includeMetadata: true });
  });

  it("a second upsert of the same text skips every chunk (Pinecone asked which ids it holds); a changed text replaces them", async () => {
    const cred = await credential("pineconeApi", { pineconeApiKey: "pc-key-123456" });
    const index = `again-${marker()}`;
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(pineconeFlow({ credential: cred, index }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(pineconeFlow({ credential: cred, index }), { chatflowid })).toMatchObject({ numAdded: 0, numSkipped: 3 });
    expect((await pineconeRequests(index)).some((r) => r.path.includes("/vectors/fetch?"))).toBe(true);
    expect(await upsertFlow(pineconeFlow({ credential: cred, index, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    const stats = (await (
      await fetch(`${pinecone()}/idx/${index}/describe_index_stats`, { method: "POST", headers: { "Api-Key": "x" } })
    ).json()) as { namespaces: Record<string, { vectorCount: number }> };
    expect(stats.namespaces[""].vectorCount).toBe(1);
  });

  it("pineconeMetadataFilter narrows the query; namespaces keep vectors apart", async () => {
    const cred = await credential("pineconeApi", { pineconeApiKey: "pc-key-123456" });
    const index = `filter-${marker()}`;
    const chatflowid = crypto.randomUUID();
    await upsertFlow(pineconeFlow({ credential: cred, index, namespace: "a", text: BAKERY, metadata: '{"kind":"shop"}' }), { chatflowid });
    await upsertFlow(pineconeFlow({ credential: cred, index, namespace: "a", text: LIBRARY, metadata: '{"kind":"public"}' }), {
      chatflowid: crypto.randomUUID(),
    });
    await upsertFlow(pineconeFlow({ credential: cred, index, namespace: "b", text: STATION, metadata: '{"kind":"public"}' }), {
      chatflowid: crypto.randomUUID(),
    });

    const ask = async (flowData: string) =>
      (await predict(flowData, "bakery croissants bread", { chatflowid })).sourceDocuments?.map((d) => d.pageContent);
    expect(await ask(pineconeFlow({ credential: cred, index, namespace: "a", topK: "4" }))).toEqual([BAKERY, LIBRARY]);
    expect(await ask(pineconeFlow({ credential: cred, index, namespace: "a", topK: "4", filter: '{"kind":{"$eq":"public"}}' }))).toEqual([
      LIBRARY,
    ]);
    expect(await ask(pineconeFlow({ credential: cred, index, namespace: "a", topK: "4", filter: { kind: "shop" } }))).toEqual([BAKERY]);
    expect(await ask(pineconeFlow({ credential: cred, index, namespace: "b", topK: "4" }))).toEqual([STATION]);
    const queries = (await pineconeRequests(index)).filter((r) => r.path.endsWith("/query"));
    expect(queries.map((q) => q.body.filter)).toContainEqual({ kind: { $eq: "public" } });
  });

  it("searchType mmr (fetchK, lambda) trades a near-duplicate for a different passage; similarity keeps both", async () => {
    const cred = await credential("pineconeApi", { pineconeApiKey: "pc-key-123456" });
    const index = `mmr-${marker()}`;
    const { twin, ask } = await upsertTwins((o) => pineconeFlow({ credential: cred, index, ...o }), { upsert: upsertFlow, predict });
    expect((await ask({}))?.sort()).toEqual([BAKERY, twin].sort());
    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse).toHaveLength(2);
    expect(diverse).toContain(LIBRARY);
    const queries = (await pineconeRequests(index)).filter((r) => r.path.endsWith("/query"));
    expect(queries.at(-1)?.body).toMatchObject({ topK: 3, includeValues: true });
  });

  it("answers from an index filled elsewhere (Flowise's layout: text in metadata.text)", async () => {
    const cred = await credential("pineconeApi", { pineconeApiKey: "pc-key-123456" });
    const index = `flowise-${marker()}`;
    const { LocalHashEmbeddings } = await import("../../src/providers/embeddings/local-hash");
    const emb = new LocalHashEmbeddings({});
    const vectors = await emb.embedDocuments([BAKERY, LIBRARY]);
    const res = await fetch(`${pinecone()}/idx/${index}/vectors/upsert`, {
      method: "POST",
      headers: { "Api-Key": "x", "Content-Type": "application/json" },
      body: JSON.stringify({
        namespace: "",
        vectors: [
          { id: "a", values: vectors[0], metadata: { text: BAKERY, source: "bakery.txt" } },
          { id: "b", values: vectors[1], metadata: { text: LIBRARY, source: "library.txt" } },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const result = await predict(pineconeFlow({ credential: cred, index }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
  });

  it("Pinecone down → 502, not answering → 504, naming Pinecone and never the key; no credential or index → 400", async () => {
    const key = "pc-secret-key-987654";
    const cred = await credential("pineconeApi", { pineconeApiKey: key });
    const down = await err(predict(pineconeFlow({ credential: cred, index: "down" }), "bakery"));
    expect(down.status).toBe(502);
    expect(down.message).toMatch(/^Pinecone query failed \(500\): the index is having a bad day/);
    const slow = await err(predict(pineconeFlow({ credential: cred, index: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Pinecone query did not answer within 300 ms" });
    const missing = await err(predict(pineconeFlow({ credential: cred, index: "missing" }), "bakery"));
    expect(missing.status).toBe(400);
    expect(missing.message).toContain("Pinecone describe_index: not found");
    const unreachable = await err(
      runFlow(
        pineconeFlow({ credential: cred, index: "x" }),
        makeCtx("bakery", { runtime: runtimeWith({ PINECONE_BASE_URL: inject("closedUrl") }) }),
      ),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Pinecone describe_index failed/);
    for (const e of [down, slow, missing, unreachable]) expect(e.message).not.toContain(key);

    const noCred = await err(predict(pineconeFlow({ credential: "", index: "x" }), "bakery"));
    expect(noCred).toMatchObject({
      status: 400,
      message: "pinecone is not configured: connect a pineconeApi credential with pineconeApiKey",
    });
    const noIndex = await err(predict(pineconeFlow({ credential: cred, index: "" }), "bakery"));
    expect(noIndex).toMatchObject({ status: 400, message: "pinecone needs its pineconeIndex input (the name of a Pinecone index)" });
  });
});

describe("pinecone: what Pinecone's data plane takes (the stand-in refuses the rest with Pinecone's 400)", () => {
  /** A pinecone store on a fresh index of the stand-in, 8-dimension vectors written as given. */
  const openStore = () => {
    const index = `wire-${marker()}`;
    const ctx = {
      env: { ...env, PINECONE_BASE_URL: pinecone() } as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ pineconeApiKey: "pc-key-123456" }),
    };
    return { index, store: buildVectorStore("pinecone", { pineconeIndex: index, credential: "c" }, ctx) };
  };
  const vector = (i: number) => [1, i % 7, 0, 0, 0, 0, 0, 1];
  type Upsert = { vectors: Array<{ id: string; values: number[]; metadata: Record<string, unknown> }> };
  const upserts = async (index: string) =>
    (await pineconeRequests(index)).filter((r) => r.path.endsWith("/vectors/upsert")).map((r) => r.body as Upsert);
  /** An upsert's size as Pinecone counts it against its 2 MB: 4 bytes a dimension plus the metadata. */
  const pineconeBytes = (body: Upsert) =>
    body.vectors.reduce((n, v) => n + 4 * v.values.length + new TextEncoder().encode(JSON.stringify(v.metadata)).length, 0);

  it("large chunks are upserted in batches within Pinecone's 2 MB (as it counts them), not 100 at a time", async () => {
    const { index, store } = openStore();
    // 70 chunks of 30,000 characters: 2.1 MB, over Pinecone's limit in one request of 100.
    const docs = Array.from({ length: 70 }, (_, i) => new Document({ pageContent: `${i} ${"x".repeat(30_000)}`, metadata: { i } }));
    await store.addVectors(
      docs.map((_, i) => vector(i)),
      docs,
    );
    const sent = await upserts(index);
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.flatMap((b) => b.vectors.map((v) => v.metadata.i)).sort((a, b) => Number(a) - Number(b))).toEqual(docs.map((_, i) => i));
    for (const body of sent) expect(pineconeBytes(body)).toBeLessThanOrEqual(2_000_000);
  });

  it("metadata as Pinecone takes it: nested objects flattened (as LangChain does), nulls, NaN and Infinity left out", async () => {
    const { index, store } = openStore();
    const metadata = {
      source: "report.pdf",
      loc: { pageNumber: 2, lines: { from: 4, to: 9 } },
      pdf: { info: { Title: "Report", Author: null }, totalPages: 3 },
      author: null,
      score: Number.NaN,
      ratio: Number.POSITIVE_INFINITY,
      tags: ["a", "b"],
      pages: [1, 2],
    };
    await store.addVectors([vector(1)], [new Document({ pageContent: "page two", metadata })]);
    const [body] = await upserts(index);
    expect(body.vectors[0].metadata).toEqual({
      source: "report.pdf",
      "loc.pageNumber": 2,
      "loc.lines.from": 4,
      "loc.lines.to": 9,
      "pdf.info.Title": "Report",
      "pdf.totalPages": 3,
      tags: ["a", "b"],
      "pages.0": 1,
      "pages.1": 2,
      text: "page two",
    });
  });

  it("a chunk over Pinecone's 40960 bytes of metadata (its text is kept there) is a 400 saying so; nothing is sent", async () => {
    const { index, store } = openStore();
    const docs = [new Document({ pageContent: "small" }), new Document({ pageContent: `huge ${"y".repeat(45_000)}` })];
    const failure = await err(store.addVectors([vector(1), vector(2)], docs));
    expect(failure.status).toBe(400);
    expect(failure.message).toMatch(
      /^pinecone: a chunk \("huge y+…"\) has \d+ bytes of text and metadata; Pinecone keeps at most 40960 bytes/,
    );
    expect(await upserts(index)).toEqual([]);
  });
});

describe("Multiple Documents QnA template (toolAgent with two retrieverTools over pinecone namespaces and filters)", () => {
  const APPLE = "Apple's net sales for 2022 were 394 billion dollars, with iPhone the largest product category.";
  const APPLE_OTHER = "An unrelated memo stored in the Apple namespace: the cafeteria menu for Tuesday.";
  const TESLA = "Tesla delivered 1.31 million vehicles in 2022 and its automotive revenue grew strongly.";

  it("saves without a warning; each tool queries its namespace with its metadata filter; the agent answers from what they found", async () => {
    expect(flowDataWarning(flowDataOf(multipleDocs as unknown as Fixture))).toBeUndefined();
    const pc = await credential("pineconeApi", { pineconeApiKey: "pc-key-123456" });
    const openai = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
    // Fill the two namespaces the template reads (as a Flowise upsert flow would have).
    const seed = (namespace: string, text: string, source: string) =>
      upsertFlow(
        flow([
          ["loader_0", "plainText", "Document Loaders", { text, metadata: JSON.stringify({ source }) }, { output: "document" }],
          [
            "emb_0",
            "openAIEmbeddings",
            "Embeddings",
            { modelName: "text-embedding-ada-002", basepath: `${standinUrl()}/v1`, credential: openai },
          ],
          [
            "pc_0",
            "pinecone",
            "Vector Stores",
            {
              credential: pc,
              document: [ref("loader_0")],
              embeddings: ref("emb_0"),
              pineconeIndex: "newindex",
              pineconeNamespace: namespace,
            },
          ],
        ] as never),
        { chatflowid: crypto.randomUUID() },
      );
    await seed("pinecone-form10k", APPLE, "apple");
    await seed("pinecone-form10k", APPLE_OTHER, "memo");
    await seed("pinecone-form10k-2", TESLA, "tesla");

    const data = flowDataOf(multipleDocs as unknown as Fixture, (n) => {
      pointAtStandin(n.get("chatOpenAI_0")!, openai);
      for (const id of ["openAIEmbeddings_0", "openAIEmbeddings_1"]) pointAtStandin(n.get(id)!, openai);
      for (const id of ["pinecone_0", "pinecone_1"]) n.get(id)!.data.credential = pc;
    });
    const m = marker();
    const result = await predict(data, `[call search_apple {"input":"net sales 2022"}] [call search_tsla {"input":"deliveries"}] ${m}`);
    expect(result.text).toBe(`tools said: ${APPLE} | ${TESLA}`);
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([APPLE, TESLA]);
    const queries = (await pineconeRequests("newindex")).filter((r) => r.path.endsWith("/query")).slice(-2);
    expect(queries.map((q) => [q.body.namespace, q.body.filter])).toEqual([
      ["pinecone-form10k", { source: "apple" }],
      ["pinecone-form10k-2", { source: "tesla" }],
    ]);
  });
});
