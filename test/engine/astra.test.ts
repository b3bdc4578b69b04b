// The Astra vector store against the Astra DB Data API stand-in (test/standin/astra.mjs), which stores
// documents and answers vector searches by the collection's metric: upsert and prediction in a
// chatflow (a missing collection created, LangChain's {_id, text, $vector, ...metadata} layout, the
// Token header), the record manager (unchanged chunks skipped, asked of Astra; removed ones
// deleted there), a collection Flowise filled, mmr, and an Astra that is down, slow or refuses.
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { credential, marker } from "./helpers";
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
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

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
    // Vectors of another size than the collection's: Astra refuses the collection options, 502 with its message.
    expect(refused.message).toMatch(
      /^Astra DB create collection failed \(EXISTING_COLLECTION_DIFFERENT_SETTINGS\): Collection 'size_\w+' already exists but with settings different/,
    );
    for (const e of [down, slow, wrong, priv, refused]) expect(e.message).not.toContain(token);
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
  });
});
