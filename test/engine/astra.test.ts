// The Astra vector store against the Astra DB Data API stand-in (test/standin/astra.mjs), which stores
// documents and answers vector searches by the collection's metric: upsert and prediction in a
// chatflow (a missing collection created, LangChain's {_id, text, $vector, ...metadata} layout, the
// Token header), the record manager (unchanged chunks skipped, asked of Astra; removed ones
// deleted there), a collection Flowise filled, mmr, and an Astra that is down, slow or refuses.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { credential, db, marker } from "./helpers";
import {
  askNightTrains,
  bookkeepingTexts,
  err,
  otherSizeFlow,
  predict,
  storeFlow,
  storeRequests,
  upsertFlow,
  upsertTwins,
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION, flow, ref } from "./retrieval-flows";

const astra = () => inject("astraUrl");
const KEYSPACE = "/api/json/v1/default_keyspace";
/** What the stand-in received for a collection (its commands and its creation), oldest first. */
const astraRequests = async (collection: string) =>
  (await storeRequests(astra())).filter((r) => r.path === `${KEYSPACE}/${collection}` || r.body?.createCollection?.name === collection);
const commandOf = (r: { body: any }) => Object.keys(r.body)[0];
const dump = async (collection: string) =>
  (await (await fetch(`${astra()}/dump/${collection}`)).json()) as {
    options: { vector: { dimension: number; metric: string }; indexing?: unknown };
    docs: Array<Record<string, any>>;
  };
const astraCredential = (token = `AstraCS:${marker()}`, dbEndPoint = astra()) =>
  credential("AstraDBApi", { applicationToken: token, dbEndPoint });

function astraFlow({ collection, topK, extra, ...rest }: TownFlowOptions & { collection: string }) {
  return storeFlow({ id: "Astra_0", node: "Astra", inputs: { astraCollection: collection, topK: topK ?? "1", ...extra }, ...rest });
}
/** `text` as one chunk (no splitter), with the loader's metadata, upserted into the Astra node. */
const oneChunkFlow = (credential: string, collection: string, text: string, metadata = '{"source":"one"}') =>
  flow([
    ["loader_0", "plainText", "Document Loaders", { text, metadata }, { output: "document" }],
    ["emb_0", "localHashEmbeddings", "Embeddings", {}],
    [
      "Astra_0",
      "Astra",
      "Vector Stores",
      { credential, document: [ref("loader_0")], embeddings: ref("emb_0"), astraCollection: collection },
    ],
  ] as never);
/** A Data API command sent straight to the stand-in (what Flowise's client would send). */
const command = (token: string, path: string, body: unknown) =>
  fetch(`${astra()}${KEYSPACE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", token },
    body: JSON.stringify(body),
  });
/** The commands the stand-in received with this token, oldest first. */
const commandsOf = async (token: string) => (await storeRequests(astra())).filter((r) => r.headers.token === token).map(commandOf);

describe("Astra", () => {
  it("creates the missing collection (the vectors' dimension, the metric), inserts LangChain's documents with Token, answers from them", async () => {
    const cred = await astraCredential("AstraCS:secret-123456");
    const collection = `town_${marker()}`;
    const flowData = astraFlow({ credential: cred, collection, extra: { similarityMetric: "dot_product" } });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await astraRequests(collection);
    expect(received.slice(0, 2).map(commandOf)).toEqual(["createCollection", "insertMany"]);
    expect(received[0].path).toBe(KEYSPACE);
    expect(received[0].body.createCollection.options).toEqual({
      vector: { dimension: LOCAL_HASH_DIMS, metric: "dot_product" },
      indexing: { allow: ["metadata"] },
    });
    for (const r of received) expect(r.headers.token).toBe("AstraCS:secret-123456");

    const stored = await dump(collection);
    expect(stored.docs.map((d) => d.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    // Metadata at the top level, as LangChain writes it.
    expect(Object.keys(stored.docs[0]).sort()).toEqual(["$vector", "_id", "loc", "source", "text"]);
    expect(stored.docs[0]).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    expect(await bookkeepingTexts("astra", `${chatflowid}_Astra_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: { source: "town", loc: { lines: expect.any(Object) } } }]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const find = (await astraRequests(collection)).filter((r) => commandOf(r) === "find").at(-1);
    expect(find?.body.find).toMatchObject({ filter: {}, projection: { $vector: 0 }, options: { limit: 1, includeSimilarity: true } });
    expect(find?.body.find.sort.$vector).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped (Astra asked which ids it holds), removed ones deleted; a rewrite replaces", async () => {
    const cred = await astraCredential();
    const collection = `again_${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(astraFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(astraFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    const finds = (await astraRequests(collection)).filter((r) => commandOf(r) === "find");
    expect(finds[0].body.find).toMatchObject({ filter: { _id: { $in: expect.any(Array) } }, projection: { _id: 1 } });
    expect(await upsertFlow(astraFlow({ credential: cred, collection, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(collection)).docs.map((d) => d.text)).toEqual([LIBRARY]);
    const deletes = (await astraRequests(collection)).filter((r) => commandOf(r) === "deleteMany");
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body.deleteMany.filter._id.$in).toHaveLength(2);
    // forceUpdate rewrites what is there: insertMany says it exists, then findOneAndReplace.
    const forced = { ...recordManager, forceUpdate: true };
    await upsertFlow(astraFlow({ credential: cred, collection, recordManager: forced, text: LIBRARY }), { chatflowid });
    expect((await astraRequests(collection)).map(commandOf).slice(-2)).toEqual(["insertMany", "findOneAndReplace"]);
    expect((await dump(collection)).docs).toHaveLength(1);
  });

  it("a collection Flowise filled (uuid ids, metadata at the top level) answers; the collection name falls back to flowise_test", async () => {
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const collection = `flowise_${marker()}`;
    const token = `AstraCS:${marker()}`;
    const post = (path: string, body: unknown) =>
      fetch(`${astra()}${KEYSPACE}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", token },
        body: JSON.stringify(body),
      });
    await post("", { createCollection: { name: collection, options: { vector: { dimension: LOCAL_HASH_DIMS, metric: "cosine" } } } });
    const documents = [
      { _id: crypto.randomUUID(), text: BAKERY, $vector: bakery, source: "bakery.txt" },
      { _id: crypto.randomUUID(), text: LIBRARY, $vector: library, source: "library.txt" },
    ];
    expect((await post(`/${collection}`, { insertMany: { documents } })).status).toBe(200);
    const result = await predict(
      astraFlow({ credential: await astraCredential(token), collection, text: "" }),
      "borrow novels with a reader card",
    );
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);

    const m = marker();
    await predict(astraFlow({ credential: await astraCredential(`AstraCS:${m}`), collection: "", text: "" }), "anything");
    const asked = (await storeRequests(astra())).filter((r) => r.headers.token === `AstraCS:${m}`);
    expect(asked.map((r) => r.path)).toEqual([`${KEYSPACE}/flowise_test`]);
  });

  it("searchType mmr (fetchK, lambda) asks for the vectors and trades a near-duplicate for a different passage", async () => {
    const cred = await astraCredential();
    const collection = `mmr_${marker()}`;
    const { twin, ask } = await upsertTwins((o) => astraFlow({ credential: cred, collection, ...o }));
    expect((await ask({}))?.sort()).toEqual([BAKERY, twin].sort());
    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse).toHaveLength(2);
    expect(diverse).toContain(LIBRARY);
    const find = (await astraRequests(collection)).filter((r) => commandOf(r) === "find").at(-1);
    expect(find?.body.find).toMatchObject({ projection: { $vector: 1 }, options: { limit: 3 } });
  });

  it("Astra down → 502 with its message, silent → 504, a refused token → 502 naming the credential, a private endpoint → 400; never the token", async () => {
    const token = "AstraCS:secret-token-987654";
    const cred = await astraCredential(token);
    const down = await err(predict(astraFlow({ credential: cred, collection: "down" }), "bakery"));
    expect(down).toMatchObject({ status: 502, message: "Astra DB find failed (500): Server failed: the coordinator is having a bad day" });
    const slow = await err(predict(astraFlow({ credential: cred, collection: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Astra DB find did not answer within 300 ms" });
    const wrong = await err(predict(astraFlow({ credential: await astraCredential("not-a-token-123456"), collection: "x" }), "bakery"));
    expect(wrong).toMatchObject({
      status: 502,
      message: "Astra DB find was refused (401): check the AstraDBApi credential's applicationToken",
    });
    const priv = await err(predict(astraFlow({ credential: await astraCredential(token, "https://10.1.2.3"), collection: "x" }), "bakery"));
    expect(priv.status).toBe(400);
    expect(priv.message).toMatch(/^AstraDBApi credential dbEndPoint refused by the outbound policy: 10\.1\.2\.3 is a private address/);
    const collection = `size_${marker()}`;
    await upsertFlow(astraFlow({ credential: cred, collection, text: BAKERY }));
    const refused = await err(upsertFlow(otherSizeFlow("Astra_0", "Astra", { credential: cred, astraCollection: collection })));
    expect(refused.status).toBe(502);
    // Vectors of another size than the collection's: Astra refuses the collection options; the collection's are named.
    expect(refused.message).toMatch(/^Astra DB create collection failed \(EXISTING_COLLECTION_DIFFERENT_SETTINGS\): collection 'size_\w+'/);
    expect(refused.message).toContain("already exists with vectors of 256 dimensions; these embeddings have 8");
    for (const e of [down, slow, wrong, priv, refused]) expect(e.message).not.toContain(token);
  });

  it("a collection not created yet answers nothing: the Data API's UNKNOWN_COLLECTION_OR_TABLE (since v1.0.41) is no failure", async () => {
    const token = `AstraCS:${marker()}`;
    const collection = `empty_${marker()}`;
    const result = await predict(astraFlow({ credential: await astraCredential(token), collection, text: "" }), "anything");
    expect(result.sourceDocuments).toEqual([]);
    expect(await commandsOf(token)).toEqual(["find"]);
    const answer = (await (await command(token, `/${collection}`, { find: { filter: {} } })).json()) as any;
    expect(answer.errors[0].errorCode).toBe("UNKNOWN_COLLECTION_OR_TABLE");
  });

  it("writes into a collection Flowise made (no indexing: every field indexed) as it is; its 8,000 indexed bytes are a 400", async () => {
    const token = `AstraCS:${marker()}`;
    const cred = await astraCredential(token);
    const collection = `flowise_made_${marker()}`;
    const options = { vector: { dimension: LOCAL_HASH_DIMS, metric: "cosine" } };
    expect((await command(token, "", { createCollection: { name: collection, options } })).status).toBe(200);
    // Astra refuses createCollection with other options (ours add indexing); the collection's own are asked, then written to.
    expect(await upsertFlow(oneChunkFlow(cred, collection, LIBRARY))).toMatchObject({ numAdded: 1 });
    expect(await commandsOf(token)).toEqual(["createCollection", "createCollection", "findCollections", "insertMany"]);
    expect((await dump(collection)).docs.map((d) => d.text)).toEqual([LIBRARY]);
    expect((await dump(collection)).options).toEqual(options);

    // 3,000 CJK characters are 9,000 UTF-8 bytes: over the 8,000 Astra keeps in an indexed string, so nothing is written.
    const long = "雨".repeat(3000);
    const e = await err(upsertFlow(oneChunkFlow(cred, collection, long)));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(
      /^Astra: a chunk \("雨+…"\) has 9000 bytes in its indexed field text; this collection indexes it, .* at most 8000 .*chunkSize/,
    );
    expect((await commandsOf(token)).filter((c) => c === "insertMany")).toHaveLength(1);
    // A collection made here indexes only `metadata`: a 30,000-character chunk (90,000 bytes) is taken.
    const ours = `ours_${marker()}`;
    expect(await upsertFlow(oneChunkFlow(cred, ours, "雨".repeat(30_000)))).toMatchObject({ numAdded: 1 });
    expect((await dump(ours)).docs[0].text).toHaveLength(30_000);
  });

  it("unsplit documents go in insertMany requests under the Data API's 20 MiB; one over its 4,000,000 characters is a 400", async () => {
    const token = `AstraCS:${marker()}`;
    const collection = `whole_${marker()}`;
    // 20 whole files of 370,000 CJK characters (1.11 MB each): ~22 MB in one insertMany, which Astra refuses (413).
    const ctx = { env: env as never, db: db(), embeddings: new LocalHashEmbeddings({ dims: 8 }), namespace: `ns_${marker()}` };
    const store = buildVectorStore(
      "Astra",
      { credential: "c", astraCollection: collection },
      {
        ...ctx,
        getCredential: async () => ({ applicationToken: token, dbEndPoint: astra() }),
      },
    );
    const text = "雨".repeat(370_000);
    const docs = Array.from({ length: 20 }, (_, i) => new Document({ pageContent: `${i}${text}`, metadata: { n: i } }));
    await store.addVectors(
      docs.map((_, i) => [1, i, 0, 0, 0, 0, 0, 1]),
      docs,
    );
    const inserts = (await storeRequests(astra())).filter((r) => r.headers.token === token && commandOf(r) === "insertMany");
    expect(inserts.length).toBeGreaterThan(1);
    expect(inserts.reduce((n, r) => n + r.body.insertMany.documents, 0)).toBe(20);
    for (const r of inserts) expect(r.body.insertMany.bytes).toBeLessThan(20 * 1024 * 1024);

    const huge = await err(upsertFlow(oneChunkFlow(await astraCredential(token), `huge_${marker()}`, "a".repeat(4_000_001))));
    expect(huge.status).toBe(400);
    expect(huge.message).toMatch(
      /^Astra: a chunk \("a+…"\) is \d+ characters as JSON; Astra keeps at most 4000000 a document: .*chunkSize/,
    );
    expect((await commandsOf(token)).filter((c) => c === "insertMany")).toHaveLength(inserts.length);
  });

  it("metadata keys Astra refuses (empty, starting with $, at any depth) get a _ before them; dots and spaces stay", async () => {
    const cred = await astraCredential();
    const collection = `keys_${marker()}`;
    const metadata = JSON.stringify({
      $price: 3,
      "": "blank",
      pdf: { info: { $ref: "x", Title: "T" }, pages: [{ $id: 1 }] },
      "a.b": 1,
      "with space": true,
    });
    expect(await upsertFlow(oneChunkFlow(cred, collection, BAKERY, metadata))).toMatchObject({ numAdded: 1 });
    const [doc] = (await dump(collection)).docs;
    expect(doc).toMatchObject({
      _$price: 3,
      _: "blank",
      pdf: { info: { _$ref: "x", Title: "T" }, pages: [{ _$id: 1 }] },
      "a.b": 1,
      "with space": true,
      text: BAKERY,
    });
    const result = await predict(astraFlow({ credential: cred, collection, text: "" }), "bakery");
    expect(result.sourceDocuments?.[0].metadata).toMatchObject({ _$price: 3, "a.b": 1 });
  });

  it("bad inputs are 400s: the metric, a missing credential, an endpoint that is not a URL", async () => {
    const metric = await err(
      predict(astraFlow({ credential: await astraCredential(), collection: "x", extra: { similarityMetric: "jaccard" } }), "q"),
    );
    expect(metric).toMatchObject({ status: 400, message: "Astra similarityMetric must be one of cosine, euclidean, dot_product" });
    const none = await err(predict(astraFlow({ collection: "x" }), "q"));
    expect(none.status).toBe(400);
    expect(none.message).toBe("Astra is not configured: connect an AstraDBApi credential with applicationToken and dbEndPoint");
    const notUrl = await err(
      predict(astraFlow({ credential: await astraCredential("AstraCS:x", "db.example.com"), collection: "x" }), "q"),
    );
    expect(notUrl.status).toBe(400);
    expect(notUrl.message).toMatch(/^AstraDBApi credential dbEndPoint must be an http\(s\) URL/);
    // The Data API's collection names: letters, digits and _, 48 at most (it refuses others at every write).
    for (const name of ["my-docs", "x".repeat(49)]) {
      const token = `AstraCS:${marker()}`;
      const e = await err(upsertFlow(astraFlow({ credential: await astraCredential(token), collection: name, text: BAKERY })));
      expect(e).toMatchObject({
        status: 400,
        message: "Astra astraCollection must be an Astra collection name: letters, digits and _ (48 at most)",
      });
      expect(await commandsOf(token)).toEqual([]);
    }
  });
});
