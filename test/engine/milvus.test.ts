// The milvus vector store against the Milvus stand-in (test/standin/milvus.mjs), which speaks the
// RESTful API v2, stores rows and answers by the index's metric with filter expressions: upsert and
// prediction in a chatflow (a missing collection created with LangChain's field names, metadata
// keys as fields, the bearer token user:password), the record manager (unchanged chunks skipped,
// asked of Milvus; removed ones deleted there), milvusFilter and milvusPartition, a collection
// Flowise filled (Int64 auto ids, declared metadata fields, not loaded), mmr, and a Milvus that is
// down, slow or refuses.
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
import { BAKERY, LIBRARY, STATION, flow, ref } from "./retrieval-flows";

const milvus = () => inject("milvusUrl");
/** What the stand-in received for a collection, oldest first. */
const milvusRequests = async (collection: string) => (await storeRequests(milvus())).filter((r) => r.body?.collectionName === collection);
const opOf = (r: { path: string }) => r.path.replace("/v2/vectordb/", "");
/** The stand-in's collection: its schema, partitions and rows. */
const dump = async (collection: string) =>
  (await (await fetch(`${milvus()}/dump/${collection}`)).json()) as {
    fields: Array<{ name: string; type: string; primaryKey: boolean; autoId: boolean; dim?: number }>;
    dynamic: boolean;
    indexes: Array<{ fieldName: string; metricType: string }>;
    load: string;
    partitions: string[];
    rows: Array<{ row: Record<string, any>; partition: string }>;
  };
const milvusAuth = (password = `mv-${marker()}`) => credential("milvusAuth", { milvusUser: "root", milvusPassword: password });

/** The town flow with a milvus node on the stand-in's collection. */
function milvusFlow({ collection, topK, extra, ...rest }: TownFlowOptions & { collection: string }) {
  return storeFlow({
    id: "milvus_0",
    node: "milvus",
    inputs: { milvusServerUrl: milvus(), milvusCollection: collection, topK: topK ?? "1", ...extra },
    ...rest,
  });
}

/** A call to the stand-in as a client of its own would make it. */
const milvusCall = async (op: string, body: Record<string, unknown>) =>
  (await fetch(`${milvus()}/v2/vectordb/${op}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then((r) => r.json())) as { code: number; message?: string; data?: any };

describe("milvus", () => {
  it("creates the missing collection (LangChain's fields, the vectors' dim), upserts with the bearer token, answers from it", async () => {
    const cred = await milvusAuth("mv-secret-123456");
    const collection = `town_${marker()}`;
    const flowData = milvusFlow({ credential: cred, collection });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await milvusRequests(collection);
    expect(received.slice(0, 3).map(opOf)).toEqual(["collections/describe", "collections/create", "entities/upsert"]);
    for (const r of received) expect(r.headers.authorization).toBe("Bearer root:mv-secret-123456");
    expect(received[1].body.schema).toMatchObject({ autoID: false, enableDynamicField: true });
    expect(received[1].body.indexParams).toEqual([
      expect.objectContaining({ fieldName: "langchain_vector", metricType: "L2", params: expect.objectContaining({ index_type: "HNSW" }) }),
    ]);

    const stored = await dump(collection);
    expect(stored.fields.map((f) => [f.name, f.type, f.primaryKey, f.autoId])).toEqual([
      ["langchain_primaryid", "VarChar", true, false],
      ["langchain_text", "VarChar", false, false],
      ["langchain_vector", "FloatVector", false, false],
    ]);
    expect(stored.fields[2].dim).toBe(LOCAL_HASH_DIMS);
    expect(stored.rows.map((r) => r.row.langchain_text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    // Metadata keys as fields of their own (dynamic here), objects as JSON text: LangChain's layout.
    const row = stored.rows[0].row;
    expect(row.source).toBe("town");
    expect(JSON.parse(row.loc)).toMatchObject({ lines: { from: expect.any(Number) } });
    expect(row.langchain_vector).toHaveLength(LOCAL_HASH_DIMS);

    // D1 keeps bookkeeping rows only (which loader each vector came from), not the text.
    expect(await bookkeepingTexts("milvus", `${chatflowid}_milvus_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([
      { pageContent: STATION, metadata: expect.objectContaining({ source: "town", loc: { lines: expect.any(Object) } }) },
    ]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const search = (await milvusRequests(collection)).filter((r) => opOf(r) === "entities/search").at(-1);
    expect(search?.body).toMatchObject({ annsField: "langchain_vector", limit: 1, outputFields: ["*"] });
    expect(search?.body.data[0]).toHaveLength(LOCAL_HASH_DIMS);
    expect(search?.body.filter).toBeUndefined();
  });

  it("a record manager: unchanged chunks skipped (Milvus asked which ids it holds), removed ones deleted in Milvus", async () => {
    const cred = await milvusAuth();
    const collection = `again_${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(milvusFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(milvusFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    const query = (await milvusRequests(collection)).find((r) => opOf(r) === "entities/query");
    expect(query?.body.filter).toMatch(/^langchain_primaryid in \[".+"\]$/);
    const before = (await dump(collection)).rows.map((r) => r.row.langchain_primaryid);
    expect(await upsertFlow(milvusFlow({ credential: cred, collection, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    const after = await dump(collection);
    expect(after.rows.map((r) => r.row.langchain_text)).toEqual([LIBRARY]);
    const deletes = (await milvusRequests(collection)).filter((r) => opOf(r) === "entities/delete");
    expect(deletes).toHaveLength(1);
    const deleted = JSON.parse(deletes[0].body.filter.replace(/^langchain_primaryid in /, ""));
    expect(deleted).toHaveLength(2);
    expect(before).toEqual(expect.arrayContaining(deleted));
  });

  it("milvusFilter narrows the search (Milvus's expression, as given); milvusPartition holds the writes; milvusTextField names the text", async () => {
    const cred = await milvusAuth();
    const collection = `filter_${marker()}`;
    const extra = { milvusPartition: "shops", milvusTextField: "body" };
    await upsertFlow(milvusFlow({ credential: cred, collection, text: BAKERY, metadata: '{"kind":"shop"}', extra }));
    await upsertFlow(milvusFlow({ credential: cred, collection, text: LIBRARY, metadata: '{"kind":"public"}', extra }));
    const stored = await dump(collection);
    expect(stored.partitions).toEqual(["_default", "shops"]);
    expect(stored.rows.map((r) => [r.partition, r.row.body])).toEqual([
      ["shops", BAKERY],
      ["shops", LIBRARY],
    ]);
    expect((await milvusRequests(collection)).filter((r) => opOf(r) === "partitions/create")).toHaveLength(1);

    const ask = async (more: Record<string, unknown>) =>
      (
        await predict(milvusFlow({ credential: cred, collection, topK: "4", extra: { ...extra, ...more } }), "bakery croissants bread")
      ).sourceDocuments?.map((d) => d.pageContent);
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ milvusFilter: 'kind == "public"' })).toEqual([LIBRARY]);
    const searches = (await milvusRequests(collection)).filter((r) => opOf(r) === "entities/search");
    expect(searches.at(-1)?.body.filter).toBe('kind == "public"');
  });

  it("a collection Flowise filled (Int64 auto ids, declared metadata fields, not loaded) is loaded and answers; writing to it is a 400", async () => {
    const collection = `open_flowise_${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const schema = {
      autoID: true,
      fields: [
        { fieldName: "source", dataType: "VarChar", elementTypeParams: { max_length: 64 } },
        { fieldName: "loc", dataType: "VarChar", elementTypeParams: { max_length: 64 } },
        { fieldName: "langchain_primaryid", dataType: "Int64", isPrimary: true },
        { fieldName: "langchain_text", dataType: "VarChar", elementTypeParams: { max_length: 2000 } },
        { fieldName: "langchain_vector", dataType: "FloatVector", elementTypeParams: { dim: LOCAL_HASH_DIMS } },
      ],
    };
    expect((await milvusCall("collections/create", { collectionName: collection, schema })).code).toBe(0);
    const data = [
      { source: "bakery.txt", loc: '{"lines":{"from":1,"to":1}}', langchain_text: BAKERY, langchain_vector: bakery },
      { source: "library.txt", loc: '{"lines":{"from":2,"to":2}}', langchain_text: LIBRARY, langchain_vector: library },
    ];
    expect((await milvusCall("entities/insert", { collectionName: collection, data })).code).toBe(0);
    expect((await dump(collection)).load).toBe("LoadStateNotLoad");

    // A server without auth: no credential needed, and no Authorization header sent.
    const result = await predict(milvusFlow({ collection, text: "" }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([
      { pageContent: LIBRARY, metadata: { source: "library.txt", loc: { lines: { from: 2, to: 2 } } } },
    ]);
    const received = await milvusRequests(collection);
    expect(received.map(opOf).slice(-3)).toEqual(["collections/describe", "collections/load", "entities/search"]);
    expect(received.at(-1)?.headers.authorization).toBeUndefined();

    const write = await err(upsertFlow(milvusFlow({ collection, text: STATION })));
    expect(write.status).toBe(400);
    expect(write.message).toMatch(/^milvus collection's primary key langchain_primaryid is auto-generated: .*name a new milvusCollection/);
    expect((await dump(collection)).rows).toHaveLength(2);
  });

  it("searchType mmr (fetchK, lambda) asks for the vectors and trades a near-duplicate for a different passage", async () => {
    const cred = await milvusAuth();
    const collection = `mmr_${marker()}`;
    const { twin, ask } = await upsertTwins((o) => milvusFlow({ credential: cred, collection, ...o }));
    expect((await ask({}))?.sort()).toEqual([BAKERY, twin].sort());
    const diverse = await ask({ searchType: "mmr", fetchK: "3", lambda: "0.2" });
    expect(diverse).toHaveLength(2);
    expect(diverse).toContain(LIBRARY);
    const search = (await milvusRequests(collection)).filter((r) => opOf(r) === "entities/search").at(-1);
    expect(search?.body).toMatchObject({ limit: 3, outputFields: ["*", "langchain_vector"] });
  });

  it("a topK over Milvus's 16384 (its topk limit) asks for 16384", async () => {
    const cred = await milvusAuth();
    const collection = `wide_${marker()}`;
    await upsertFlow(milvusFlow({ credential: cred, collection, text: BAKERY }));
    const result = await predict(milvusFlow({ credential: cred, collection, text: "", topK: "20000" }), "bakery");
    expect(result.sourceDocuments?.map((d) => d.pageContent)).toEqual([BAKERY]);
    const search = (await milvusRequests(collection)).filter((r) => opOf(r) === "entities/search").at(-1);
    expect(search?.body.limit).toBe(16384);
  });

  it("a collection not created yet answers nothing (no write on a read)", async () => {
    const cred = await milvusAuth();
    const collection = `empty_${marker()}`;
    const result = await predict(milvusFlow({ credential: cred, collection, text: "" }), `anything ${marker()}`);
    expect(result.sourceDocuments).toEqual([]);
    expect((await milvusRequests(collection)).map(opOf)).toEqual(["collections/describe"]);
  });

  it("Milvus down → 502 with its message, not answering → 504, a refused password → 502 naming the credential; never the secret", async () => {
    const password = "mv-secret-key-987654";
    const cred = await milvusAuth(password);
    const down = await err(predict(milvusFlow({ credential: cred, collection: "down" }), "bakery"));
    expect(down).toMatchObject({
      status: 502,
      message: "Milvus describe collection failed (65535): service unavailable: the query node is having a bad day",
    });
    const slow = await err(predict(milvusFlow({ credential: cred, collection: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Milvus describe collection did not answer within 300 ms" });
    const wrong = await err(predict(milvusFlow({ credential: await milvusAuth("not-the-password-1234"), collection: "x" }), "bakery"));
    expect(wrong).toMatchObject({ status: 502, message: "Milvus describe collection was refused (1800): check the milvusAuth credential" });
    const none = await err(predict(milvusFlow({ collection: "x" }), "bakery"));
    expect(none).toMatchObject({ status: 502, message: "Milvus describe collection was refused (1800): check the milvusAuth credential" });
    const unreachable = await err(
      predict(milvusFlow({ credential: cred, collection: "x", extra: { milvusServerUrl: inject("closedUrl") } }), "bakery"),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Milvus describe collection failed: /);
    // A write Milvus refuses (vectors of another size than the collection's): 502 with Milvus's message.
    const collection = `size_${marker()}`;
    await upsertFlow(milvusFlow({ credential: cred, collection, text: BAKERY }));
    const other = otherSizeFlow("milvus_0", "milvus", { credential: cred, milvusServerUrl: milvus(), milvusCollection: collection });
    const refused = await err(upsertFlow(other));
    expect(refused).toMatchObject({
      status: 502,
      message: "Milvus upsert failed (1100): the dim (8) of field data(langchain_vector) is not equal to schema dim (256)",
    });
    for (const e of [down, slow, wrong, none, unreachable, refused]) expect(e.message).not.toContain(password);
  });

  it("a chunk over Milvus's 65,535 bytes of VarChar text is a 400 naming chunkSize; nothing is written", async () => {
    const cred = await milvusAuth();
    const collection = `long_${marker()}`;
    // 30,000 characters but 90,000 UTF-8 bytes: Milvus counts bytes, and refuses the whole batch.
    const long = "雨".repeat(30_000);
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: long }, { output: "document" }],
      ["emb_0", "localHashEmbeddings", "Embeddings", {}],
      [
        "milvus_0",
        "milvus",
        "Vector Stores",
        {
          credential: cred,
          document: [ref("loader_0")],
          embeddings: ref("emb_0"),
          milvusServerUrl: milvus(),
          milvusCollection: collection,
        },
      ],
    ] as never);
    const e = await err(upsertFlow(flowData));
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^milvus: a chunk \("雨+…"\) has 90000 bytes of text; Milvus keeps at most 65535 bytes .*chunkSize/);
    expect((await milvusRequests(collection)).map(opOf)).toEqual([]);
  });

  it("bad inputs are 400s naming the input; a private address is refused", async () => {
    const cred = await milvusAuth();
    const cases: Array<[Record<string, unknown>, string | RegExp]> = [
      [{ milvusServerUrl: "" }, "milvus needs its milvusServerUrl input (e.g. http://localhost:19530)"],
      [{ milvusServerUrl: "ftp://m.example" }, "milvus milvusServerUrl must be an http(s) URL (e.g. http://localhost:19530)"],
      [{ milvusCollection: "" }, "milvus needs its milvusCollection input (the name of a Milvus collection)"],
      [{ milvusTextField: "text field" }, "milvus milvusTextField must be a field name: letters, digits and underscores"],
      // Milvus refuses such names in every call (its naming rules).
      [
        { milvusCollection: "my-docs" },
        "milvus milvusCollection must be a Milvus name: a letter or _, then letters, digits or _ (255 at most)",
      ],
      [
        { milvusCollection: "2024_docs" },
        "milvus milvusCollection must be a Milvus name: a letter or _, then letters, digits or _ (255 at most)",
      ],
      [
        { milvusPartition: "shop docs" },
        "milvus milvusPartition must be a Milvus name: a letter or _, then letters, digits or _ (255 at most)",
      ],
      [
        { milvusServerUrl: "http://10.1.2.3:19530" },
        /^milvus milvusServerUrl refused by the outbound policy: 10\.1\.2\.3 is a private address/,
      ],
      [
        { milvusServerUrl: "192.168.0.7:19530" },
        /^milvus milvusServerUrl refused by the outbound policy: 192\.168\.0\.7 is a private address/,
      ],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(milvusFlow({ credential: cred, collection: "x", extra }), "bakery"));
      expect(e.status, String(message)).toBe(400);
      expect(e.message).toMatch(message);
    }
  });
});
