// The couchbase vector store against the Couchbase stand-in (test/standin/couchbase.mjs: a Query
// service and a Search service on two ports, Basic auth, N1QL UPSERT/DELETE/SELECT by key, knn by
// cosine): a chatflow filled through POST /vector/upsert and answering from the Search service, the
// documents laid out as LangChain writes them, the statements and search requests received, the
// filter's fields and searchOptions, a cluster-level index, has and delete by key, and the failures:
// a wrong password (502, never the password), a private host (400), bad inputs (400). Each test uses
// its own collection (a marker); the index idx_<collection> covers it.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { couchbaseOrigins } from "../../src/providers/vectorstores/couchbase/client";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { newStore } from "../routes/document-store-helpers";
import {
  ENERGY,
  SOLAR,
  TIDAL,
  WIND,
  askLibrarians,
  deleteVectors,
  queryWindTurbines,
  saveChatflow,
  storeUpsertConfig,
  townChatflow,
  upsertChatflow,
  upsertText,
} from "../routes/hosted-store-routes";
import { setVars } from "../security/helpers";
import { credential, db, marker } from "./helpers";
import { err, predict, storeFlow, upsertFlow } from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION, flow, ref } from "./retrieval-flows";

const USER = "edgeflow";
const PASSWORD = "couchbase-standin-Secret1";
const BASIC = `Basic ${btoa(`${USER}:${PASSWORD}`)}`;
// The first host is asked; its port (the SDK's KV port) is not read: the Query and Search ports are the vars'.
const CONNECTION = "couchbase://127.0.0.1:11210,127.0.0.2?network=default";
const couchbaseCredential = (password = PASSWORD, connectionString = CONNECTION) =>
  credential("couchbaseApi", { connectionString, username: USER, password });

let restore: () => void;
beforeAll(() => {
  restore = setVars({ COUCHBASE_QUERY_PORT: inject("couchbaseQueryPort"), COUCHBASE_SEARCH_PORT: inject("couchbaseSearchPort") });
});
afterAll(() => restore());

interface Logged {
  service: "query" | "search";
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}
const logged = async (m: string) => (await (await fetch(`${inject("couchbaseUrl")}/log?contains=${m}`)).json()) as Logged[];
const dump = async (collection: string, bucket = "travel", scope = "inventory") =>
  (await (await fetch(`${inject("couchbaseUrl")}/dump/${bucket}/${scope}/${collection}`)).json()) as Array<{ id: string; value: any }>;
const places = (collection: string) => ({
  bucketName: "travel",
  scopeName: "inventory",
  collectionName: collection,
  indexName: `idx_${collection}`,
});
const vector = expect.arrayContaining([expect.any(Number)]);

function couchbaseFlow(o: { credential: string; collection: string; topK?: string; text?: string; extra?: Record<string, unknown> }) {
  return storeFlow({
    id: "couchbase_0",
    node: "couchbase",
    credential: o.credential,
    text: o.text,
    inputs: { ...places(o.collection), topK: o.topK ?? "1", ...o.extra },
  });
}

describe("couchbase", () => {
  it("POST /vector/upsert writes LangChain's documents by N1QL UPSERT; a retrieval chain answers from a knn search", async () => {
    const collection = `c_${marker()}`;
    const saved = await saveChatflow(
      "couchbase",
      townChatflow("couchbase_0", "couchbase", { credential: await couchbaseCredential(), ...places(collection) }),
    );
    expect(saved.warning).toBeUndefined();
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const docs = await dump(collection);
    expect(docs.map((d) => d.value.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const d of docs) {
      expect(Object.keys(d.value)).toEqual(["text", "embedding", "metadata"]);
      expect(d.value.embedding).toHaveLength(LOCAL_HASH_DIMS);
      expect(d.value.metadata).toEqual({ loc: { lines: expect.any(Object) } });
    }
    const writes = (await logged(collection)).filter((r) => r.service === "query");
    expect(writes.every((r) => r.path === "/query/service" && r.headers.authorization === BASIC)).toBe(true);
    const upsert = writes.find((r) => r.body.statement.startsWith("UPSERT"));
    expect(upsert?.body).toEqual({
      statement: `UPSERT INTO \`travel\`.\`inventory\`.\`${collection}\` (KEY, VALUE) VALUES ($1, $2), ($3, $4), ($5, $6)`,
      args: docs.flatMap((d) => [d.id, d.value]),
    });
    // Upserted again: every chunk is there (asked by key), so nothing is written.
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 0, numSkipped: 3 });
    const again = (await logged(collection)).filter((r) => r.service === "query");
    expect(again.filter((r) => r.body.statement.startsWith("UPSERT"))).toHaveLength(1);
    expect(again.at(-1)?.body).toEqual({
      statement: `SELECT RAW META().id FROM \`travel\`.\`inventory\`.\`${collection}\` USE KEYS $1`,
      args: [expect.arrayContaining(docs.map((d) => d.id))],
    });

    const { answer, prompt } = await askLibrarians(saved.id);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(answer.sourceDocuments[0].metadata).toEqual({ "loc.lines.from": expect.any(Number), "loc.lines.to": expect.any(Number) });
    expect(prompt).toContain(LIBRARY);
    const search = (await logged(`idx_${collection}`)).filter((r) => r.service === "search").at(-1);
    expect(search).toMatchObject({ method: "POST", path: `/api/bucket/travel/scope/inventory/index/idx_${collection}/query` });
    expect(search?.headers.authorization).toBe(BASIC);
    expect(search?.body).toEqual({ query: { match_none: {} }, knn: [{ field: "embedding", vector, k: 1 }], size: 1, fields: ["*"] });
  });

  it("custom fields; the filter's fields and searchOptions reach the request; a cluster-level index (scopedIndex false)", async () => {
    const cred = await couchbaseCredential();
    const collection = `c_${marker()}`;
    const extra = { textKey: "content", embeddingKey: "vec" };
    await upsertFlow(couchbaseFlow({ credential: cred, collection, extra }));
    expect(Object.keys((await dump(collection))[0].value)).toEqual(["content", "vec", "metadata"]);

    const ask = async (more: Record<string, unknown>) =>
      (
        await predict(
          couchbaseFlow({ credential: cred, collection, text: "", topK: "2", extra: { ...extra, ...more } }),
          "bakery sourdough",
        )
      ).sourceDocuments;
    const filter = { fields: ["metadata.source"], searchOptions: { ctl: { timeout: 5000 }, explain: false } };
    const found = await ask({ couchbaseMetadataFilter: JSON.stringify(filter), scopedIndex: false });
    expect(found?.map((d) => d.pageContent)).toEqual([BAKERY, expect.any(String)]);
    expect(found?.[0].metadata).toEqual({ source: "town" });
    const search = (await logged(`idx_${collection}`)).filter((r) => r.service === "search").at(-1);
    expect(search?.path).toBe(`/api/index/idx_${collection}/query`);
    expect(search?.body).toEqual({
      query: { match_none: {} },
      knn: [{ field: "vec", vector, k: 2 }],
      size: 2,
      fields: ["metadata.source", "content"],
      ctl: { timeout: 5000 },
      explain: false,
    });

    const bad = await err(ask({ couchbaseMetadataFilter: '{"source":"town"}' }));
    expect(bad).toMatchObject({ status: 400, message: expect.stringMatching(/couchbaseMetadataFilter takes \{"fields".* not "source"/) });
  });

  it("a vector written again under its key is replaced; has and delete by key; the score is Couchbase's", async () => {
    const collection = `c_${marker()}`;
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ connectionString: CONNECTION, username: USER, password: PASSWORD }),
    };
    const store = buildVectorStore("couchbase", { credential: "c", ...places(collection) }, ctx);
    const v = [0.5, 0, 0, 0, 0, 0, 0, 1];
    await store.addVectors([v], [new Document({ pageContent: "first", metadata: { n: 1 } })], { ids: ["id-1"] });
    await store.addVectors([v, v], [new Document({ pageContent: "second" }), new Document({ pageContent: "third" })], {
      ids: ["id-1", "id-2"],
    });
    expect(await dump(collection)).toEqual([
      { id: "id-1", value: { text: "second", embedding: v, metadata: {} } },
      { id: "id-2", value: { text: "third", embedding: v, metadata: {} } },
    ]);
    expect([...(await store.has(["id-1", "id-2", "id-3"]))].sort()).toEqual(["id-1", "id-2"]);
    await store.delete({ ids: ["id-1"] });
    const del = (await logged(collection)).filter((r) => r.body?.statement?.startsWith("DELETE")).at(-1);
    expect(del?.body).toEqual({ statement: `DELETE FROM \`travel\`.\`inventory\`.\`${collection}\` USE KEYS $1`, args: [["id-1"]] });
    expect((await dump(collection)).map((d) => d.id)).toEqual(["id-2"]);
    const [hit] = await store.similaritySearchVectorWithScore(v, 1);
    expect(hit[0]).toMatchObject({ id: "id-2", pageContent: "third", metadata: {} });
    expect(hit[1]).toBeCloseTo(1, 6);
  });

  it("a wrong password → 502 without it; a private host → 400; failing services → 502/400; bad inputs → 400", async () => {
    const collection = `c_${marker()}`;
    const wrong = "wrong-couchbase-password-42";
    const refused = await err(upsertFlow(couchbaseFlow({ credential: await couchbaseCredential(wrong), collection })));
    expect(refused.status).toBe(502);
    expect(refused.message).toMatch(
      /^Couchbase Query upsert was refused \(401\): check the couchbaseApi credential's username and password/,
    );
    expect(refused.message).not.toContain(wrong);
    const searchRefused = await err(predict(couchbaseFlow({ credential: await couchbaseCredential(wrong), collection, text: "" }), "x"));
    expect(searchRefused).toMatchObject({ status: 502, message: expect.stringMatching(/^Couchbase Search search was refused \(401\)/) });

    const priv = await err(
      predict(couchbaseFlow({ credential: await couchbaseCredential(wrong, "couchbases://10.1.2.3"), collection }), "x"),
    );
    expect(priv.status).toBe(400);
    expect(priv.message).toMatch(
      /^couchbaseApi credential connectionString refused by the outbound policy: 10\.1\.2\.3 is a private address/,
    );
    expect(priv.message).not.toContain(wrong);
    const http = await err(
      predict(couchbaseFlow({ credential: await couchbaseCredential(PASSWORD, "http://127.0.0.1:8093"), collection }), "x"),
    );
    expect(http).toMatchObject({
      status: 400,
      message: expect.stringMatching(/must be couchbase:\/\/host or couchbases:\/\/host .* not http:\/\//),
    });

    const cred = await couchbaseCredential();
    const missingIndex = await err(
      predict(couchbaseFlow({ credential: cred, collection, text: "", extra: { indexName: "missing" } }), "x"),
    );
    expect(missingIndex).toMatchObject({
      status: 502,
      message: "Couchbase Search search failed (400): rest_index: Query, indexName: missing, err: index not found",
    });
    const missingBucket = await err(upsertFlow(couchbaseFlow({ credential: cred, collection, extra: { bucketName: "missing" } })));
    expect(missingBucket).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Couchbase Query upsert: not found \(Keyspace not found .* \(12003\)\); check the bucketName/),
    });
    const down = await err(upsertFlow(couchbaseFlow({ credential: cred, collection, extra: { bucketName: "down" } })));
    expect(down).toMatchObject({
      status: 502,
      message: expect.stringMatching(/^Couchbase Query upsert failed \(503\): Internal error: the cluster is having a bad day \(5000\)/),
    });

    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ bucketName: "" }, /couchbase needs its Bucket Name \(bucketName\)/],
      [{ collectionName: "a`b" }, /couchbase collectionName is not a valid Couchbase name/],
      [{ embeddingKey: "metadata" }, /embeddingKey must be a field name other than metadata/],
      [{ couchbaseMetadataFilter: "{nope" }, /couchbaseMetadataFilter is not valid JSON/],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(couchbaseFlow({ credential: cred, collection, extra }), "x"));
      expect(e).toMatchObject({ status: 400, message: expect.stringMatching(message) });
    }
    const none = await err(predict(couchbaseFlow({ credential: "", collection }), "x"));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/connect a couchbaseApi credential/) });
  });

  it("what real flows send stays in Couchbase's limits: a 30,000-character chunk, PDF-like metadata, topK 1000", async () => {
    const cred = await couchbaseCredential();
    const collection = `c_${marker()}`;
    const long = "雨".repeat(30_000);
    const metadata = JSON.stringify({
      pdf: { info: { Title: "Report\u0000", "dc:creator": ["A"] }, totalPages: "12" },
      "a.b": 1,
      $price: "3.50",
      "with space": true,
    });
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: long, metadata }, { output: "document" }],
      ["emb_0", "localHashEmbeddings", "Embeddings", {}],
      [
        "couchbase_0",
        "couchbase",
        "Vector Stores",
        { credential: cred, document: [ref("loader_0")], embeddings: ref("emb_0"), ...places(collection) },
      ],
    ] as never);
    expect(await upsertFlow(flowData)).toMatchObject({ numAdded: 1 });
    const [doc] = await dump(collection);
    expect(doc.value.text).toHaveLength(30_000);
    expect(doc.value.metadata).toMatchObject({ pdf: { info: { Title: "Report\u0000" }, totalPages: "12" }, "a.b": 1, $price: "3.50" });
    expect(new TextEncoder().encode(doc.id).length).toBeLessThanOrEqual(246);

    const found = await predict(couchbaseFlow({ credential: cred, collection, text: "", topK: "1000" }), "rain");
    expect(found.sourceDocuments?.map((d) => d.pageContent.length)).toEqual([30_000]);
    const search = (await logged(`idx_${collection}`)).filter((r) => r.service === "search").at(-1);
    expect(search?.body).toMatchObject({ knn: [{ k: 1000 }], size: 1000 });
    // A searchOptions size past the Search service's 10,000-result window is Couchbase's refusal, with its reason.
    const wide = await err(
      predict(
        couchbaseFlow({ credential: cred, collection, text: "", extra: { couchbaseMetadataFilter: '{"searchOptions":{"size":20000}}' } }),
        "rain",
      ),
    );
    expect(wide).toMatchObject({
      status: 502,
      message: expect.stringMatching(/bleveMaxResultWindow exceeded, from: 0, size: 20000, limit: 10000/),
    });
  });

  it("works as a document store's vector store: upsert, query, delete by key", async () => {
    const collection = `c_${marker()}`;
    const store = await newStore();
    const common = storeUpsertConfig({ name: "couchbase", config: { credential: await couchbaseCredential(), ...places(collection) } });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    await upsertText(store.id, common, TIDAL, "b");
    expect((await dump(collection)).map((d) => d.value.text).sort()).toEqual([SOLAR, TIDAL, WIND].sort());
    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);
    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect((await dump(collection)).map((d) => d.value.text)).toEqual([TIDAL]);
  });

  it("maps the SDK's connection string to the Query and Search services of its first host", () => {
    expect(couchbaseOrigins("couchbases://cb.example.com", {})).toEqual({
      query: "https://cb.example.com:18093",
      search: "https://cb.example.com:18094",
    });
    expect(couchbaseOrigins("couchbase://h1.example.com:11210=mcd;h2,h3?timeout=5", {})).toEqual({
      query: "http://h1.example.com:8093",
      search: "http://h1.example.com:8094",
    });
    expect(couchbaseOrigins("[2001:db8::1]:11210", { COUCHBASE_SEARCH_PORT: "9094" })).toEqual({
      query: "http://[2001:db8::1]:8093",
      search: "http://[2001:db8::1]:9094",
    });
    for (const bad of ["couchbase://", "couchbase://user:pw@host", "https://x.example.com"])
      expect(() => couchbaseOrigins(bad, {})).toThrow(/couchbaseApi credential connectionString/);
    expect(() => couchbaseOrigins("couchbase://h", { COUCHBASE_QUERY_PORT: "x" })).toThrow(/COUCHBASE_QUERY_PORT must be a port/);
  });
});
