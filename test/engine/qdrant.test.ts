// The qdrant vector store against the Qdrant stand-in (test/standin/qdrant.mjs), which stores points
// and answers by the collection's distance with payload filters: upsert and prediction in a
// chatflow (a missing collection created, Flowise's payload layout, the api-key), the record
// manager (unchanged chunks skipped, asked of Qdrant; removed ones deleted there), qdrantFilter,
// custom payload keys, a collection Flowise filled, and a Qdrant that is down, slow or refuses.
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

const qdrant = () => inject("qdrantUrl");
/** What the stand-in received for a collection, oldest first. */
const qdrantRequests = async (collection: string) =>
  (await storeRequests(qdrant())).filter((r) => r.path.startsWith(`/collections/${collection}`));
/** The stand-in's collection: its configuration and points. */
const dump = async (collection: string) =>
  (await (await fetch(`${qdrant()}/dump/${collection}`)).json()) as {
    config: { vectors: { size: number; distance: string } };
    points: Array<{ id: string | number; vector: number[]; payload: Record<string, any> }>;
  };
const qdrantKey = () => credential("qdrantApi", { qdrantApiKey: `qd-key-${marker()}` });

/** The town flow with a qdrant node on the stand-in's collection. */
function qdrantFlow({ collection, topK, extra, ...rest }: TownFlowOptions & { collection: string }) {
  return storeFlow({
    id: "qdrant_0",
    node: "qdrant",
    inputs: { qdrantServerUrl: qdrant(), qdrantCollection: collection, topK: topK ?? "1", ...extra },
    ...rest,
  });
}

describe("qdrant", () => {
  it("creates the missing collection (the embeddings' size, the chosen distance), upserts Flowise's payload with api-key, answers from it", async () => {
    const cred = await credential("qdrantApi", { qdrantApiKey: "qd-secret-123456" });
    const collection = `town-${marker()}`;
    const flowData = qdrantFlow({ credential: cred, collection, extra: { qdrantSimilarity: "Dot" } });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await qdrantRequests(collection);
    expect(received.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /collections/${collection}`,
      `PUT /collections/${collection}`,
      `PUT /collections/${collection}/points?wait=true`,
    ]);
    expect(received[1].body).toEqual({ vectors: { size: LOCAL_HASH_DIMS, distance: "Dot" } });
    for (const r of received) expect(r.headers["api-key"]).toBe("qd-secret-123456");

    const stored = await dump(collection);
    expect(stored.config.vectors).toEqual({ size: LOCAL_HASH_DIMS, distance: "Dot" });
    expect(stored.points.map((p) => p.payload.content).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    // Nested metadata kept as it is, under Flowise's `metadata` key; ids are UUIDs (all Qdrant takes).
    expect(Object.keys(stored.points[0].payload).sort()).toEqual(["content", "metadata"]);
    expect(stored.points[0].payload.metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    for (const p of stored.points) expect(String(p.id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);

    // D1 keeps bookkeeping rows only (which loader each vector came from), not the text.
    expect(await bookkeepingTexts("qdrant", `${chatflowid}_qdrant_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const search = (await qdrantRequests(collection)).filter((r) => r.path.endsWith("/points/search")).at(-1);
    expect(search?.body).toMatchObject({ limit: 1, with_payload: true });
    expect(search?.body.vector).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped (Qdrant asked which ids it holds), removed ones deleted in Qdrant", async () => {
    const cred = await qdrantKey();
    const collection = `again-${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(qdrantFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(qdrantFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await qdrantRequests(collection)).some((r) => r.method === "POST" && r.path === `/collections/${collection}/points`)).toBe(
      true,
    );
    const before = (await dump(collection)).points.map((p) => p.id);
    expect(await upsertFlow(qdrantFlow({ credential: cred, collection, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    const after = await dump(collection);
    expect(after.points.map((p) => p.payload.content)).toEqual([LIBRARY]);
    const deletes = (await qdrantRequests(collection)).filter((r) => r.path.endsWith("/points/delete?wait=true"));
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body.points).toHaveLength(2);
    expect(before).toEqual(expect.arrayContaining(deletes[0].body.points));
  });

  it("qdrantFilter narrows the search (Qdrant's filter language, as given); a Euclid collection ranks nearest first", async () => {
    const cred = await qdrantKey();
    const collection = `filter-${marker()}`;
    const distance = { qdrantSimilarity: "Euclid" };
    await upsertFlow(qdrantFlow({ credential: cred, collection, text: BAKERY, metadata: '{"kind":"shop"}', extra: distance }));
    await upsertFlow(qdrantFlow({ credential: cred, collection, text: LIBRARY, metadata: '{"kind":"public"}', extra: distance }));
    expect((await dump(collection)).config.vectors.distance).toBe("Euclid");

    const ask = async (extra: Record<string, unknown>) =>
      (await predict(qdrantFlow({ credential: cred, collection, topK: "4", extra }), "bakery croissants bread")).sourceDocuments?.map(
        (d) => d.pageContent,
      );
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    const filter = { must: [{ key: "metadata.kind", match: { value: "public" } }] };
    expect(await ask({ qdrantFilter: JSON.stringify(filter) })).toEqual([LIBRARY]);
    expect(await ask({ qdrantFilter: { must_not: [{ key: "metadata.kind", match: { value: "public" } }] } })).toEqual([BAKERY]);
    const searches = (await qdrantRequests(collection)).filter((r) => r.path.endsWith("/points/search"));
    expect(searches.map((s) => s.body.filter)).toContainEqual(filter);
  });

  it("custom payload keys, batchSize and qdrantCollectionConfiguration; a collection Flowise filled answers (integer ids)", async () => {
    const cred = await qdrantKey();
    const collection = `keys-${marker()}`;
    const extra = {
      contentPayloadKey: "text",
      metadataPayloadKey: "meta",
      batchSize: "2",
      qdrantCollectionConfiguration: '{"on_disk_payload":true,"vectors":{"on_disk":true}}',
    };
    await upsertFlow(qdrantFlow({ credential: cred, collection, extra }));
    const stored = await dump(collection);
    expect(stored.config).toEqual({ on_disk_payload: true, vectors: { on_disk: true, size: LOCAL_HASH_DIMS, distance: "Cosine" } });
    expect(stored.points.map((p) => Object.keys(p.payload).sort())).toEqual([
      ["meta", "text"],
      ["meta", "text"],
      ["meta", "text"],
    ]);
    const upserts = (await qdrantRequests(collection)).filter((r) => r.method === "PUT" && r.path.includes("/points"));
    expect(upserts.map((u) => u.body.points.length)).toEqual([2, 1]);

    // A collection written the way Flowise's node writes it, integer ids and all.
    const flowise = `open-flowise-${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const put = (path: string, body: unknown) =>
      fetch(`${qdrant()}/collections/${flowise}${path}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await put("", { vectors: { size: LOCAL_HASH_DIMS, distance: "Cosine" } })).status).toBe(200);
    const points = [
      { id: 1, vector: bakery, payload: { content: BAKERY, metadata: { source: "bakery.txt" } } },
      { id: 2, vector: library, payload: { content: LIBRARY, metadata: { source: "library.txt" } } },
    ];
    expect((await put("/points?wait=true", { points })).status).toBe(200);
    // A server without auth: no credential needed, and no api-key header sent.
    const result = await predict(qdrantFlow({ collection: flowise }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
    const search = (await qdrantRequests(flowise)).filter((r) => r.path.endsWith("/points/search")).at(-1);
    expect(search?.headers["api-key"]).toBeUndefined();
  });

  it("searchType mmr (fetchK, lambda) asks for the vectors and trades a near-duplicate for a different passage", async () => {
    const cred = await qdrantKey();
    const collection = `mmr-${marker()}`;
    const { twin, ask } = await upsertTwins((o) => qdrantFlow({ credential: cred, collection, ...o }));
    expect((await ask({}))?.sort()).toEqual([BAKERY, twin].sort());
    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse).toHaveLength(2);
    expect(diverse).toContain(LIBRARY);
    const search = (await qdrantRequests(collection)).filter((r) => r.path.endsWith("/points/search")).at(-1);
    expect(search?.body).toMatchObject({ limit: 3, with_vector: true });
  });

  it("a collection not created yet answers nothing (no write on a read)", async () => {
    const cred = await qdrantKey();
    const collection = `empty-${marker()}`;
    const m = marker();
    const result = await predict(qdrantFlow({ credential: cred, collection, text: "" }), `anything ${m}`);
    expect(result.sourceDocuments).toEqual([]);
    expect((await qdrantRequests(collection)).map((r) => r.method)).toEqual(["POST"]);
  });

  it("Qdrant down → 502 with its message, not answering → 504, a refused key → 502 naming the credential; never the key", async () => {
    const key = "qd-secret-key-987654";
    const cred = await credential("qdrantApi", { qdrantApiKey: key });
    const down = await err(predict(qdrantFlow({ credential: cred, collection: "down" }), "bakery"));
    expect(down.status).toBe(502);
    expect(down.message).toBe("Qdrant search failed (500): Service internal error: the shard is having a bad day");
    const slow = await err(predict(qdrantFlow({ credential: cred, collection: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Qdrant search did not answer within 300 ms" });
    const wrongKey = await err(
      predict(qdrantFlow({ credential: await credential("qdrantApi", { qdrantApiKey: "not-a-key-123456" }), collection: "x" }), "bakery"),
    );
    expect(wrongKey).toMatchObject({ status: 502, message: "Qdrant search was refused (403): check the qdrantApi credential" });
    const noKey = await err(predict(qdrantFlow({ collection: "x" }), "bakery"));
    expect(noKey).toMatchObject({ status: 502, message: "Qdrant search was refused (401): check the qdrantApi credential" });
    const unreachable = await err(
      predict(qdrantFlow({ credential: cred, collection: "x", extra: { qdrantServerUrl: inject("closedUrl") } }), "bakery"),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Qdrant search failed: /);
    // A write Qdrant refuses (vectors of another size than the collection's): 502 with Qdrant's message.
    const collection = `size-${marker()}`;
    await upsertFlow(qdrantFlow({ credential: cred, collection, text: BAKERY }));
    const other = otherSizeFlow("qdrant_0", "qdrant", { credential: cred, qdrantServerUrl: qdrant(), qdrantCollection: collection });
    const refused = await err(upsertFlow(other));
    expect(refused.status).toBe(502);
    expect(refused.message).toBe("Qdrant upsert failed (400): Wrong input: Vector dimension error: expected dim: 256, got 8");
    for (const e of [down, slow, wrongKey, noKey, unreachable, refused]) expect(e.message).not.toContain(key);
  });

  it("bad inputs are 400s naming the input", async () => {
    const cred = await qdrantKey();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ qdrantServerUrl: "" }, "qdrant needs its qdrantServerUrl input (e.g. http://localhost:6333)"],
      [{ qdrantServerUrl: "ftp://q.example" }, "qdrant qdrantServerUrl must be an http(s) URL (e.g. http://localhost:6333)"],
      [{ qdrantCollection: "" }, "qdrant needs its qdrantCollection input (the name of a Qdrant collection)"],
      [{ qdrantSimilarity: "Jaccard" }, "qdrant qdrantSimilarity must be one of Cosine, Euclid, Dot, Manhattan"],
      [{ qdrantFilter: "{not json" }, "qdrantFilter is not valid JSON"],
      [{ qdrantCollectionConfiguration: "[1]" }, "qdrantCollectionConfiguration must be a JSON object"],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(qdrantFlow({ credential: cred, collection: "x", extra }), "bakery"));
      expect(e, message).toMatchObject({ status: 400, message });
    }
  });
});
