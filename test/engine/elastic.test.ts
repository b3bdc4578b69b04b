// The elasticsearch and openSearch vector stores against their stand-ins (test/standin/elastic.mjs),
// which store documents and answer k-NN searches with the mapping's similarity: upsert and prediction
// in a chatflow (the index created with LangChain's mapping, its document layout, the credential's
// auth), the record manager (unchanged chunks skipped, asked of the service; removed ones deleted
// there), an index Flowise filled, and a service that is down, slow or refuses.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { cloudIdUrl } from "../../src/providers/vectorstores/elastic";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { credential, db, marker } from "./helpers";
import {
  askNightTrains,
  bookkeepingTexts,
  err,
  otherSizeFlow,
  predict,
  storeRequests,
  storeFlow as townFlow,
  upsertFlow,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION, flow, ref } from "./retrieval-flows";

const basic = (user: string, password: string) => `Basic ${btoa(`${user}:${password}`)}`;

interface Flavor {
  node: "elasticsearch" | "openSearch";
  service: string;
  base: () => string;
  /** A credential reaching the stand-in with `secret` (its key or password), and the Authorization it sends. */
  credential(secret?: string, url?: string): Promise<string>;
  auth(secret: string): string;
  refusedCredential: string;
  downMessage: string;
  /** The created index's vector field mapping. */
  vectorMapping: Record<string, unknown>;
  /** The search body's k-NN part. */
  knnOf(body: any): { vector: number[]; k: number };
}

const FLAVORS: Flavor[] = [
  {
    node: "elasticsearch",
    service: "Elasticsearch",
    base: () => inject("elasticsearchUrl"),
    credential: (secret, url) =>
      credential("elasticsearchApi", { endpoint: url ?? inject("elasticsearchUrl"), ...(secret ? { apiKey: secret } : {}) }),
    auth: (secret) => `ApiKey ${secret}`,
    refusedCredential: "elasticsearchApi",
    downMessage: "Elasticsearch get index failed (500): no body",
    vectorMapping: { type: "dense_vector", dims: LOCAL_HASH_DIMS, index: true, similarity: "l2_norm" },
    knnOf: (body) => ({ vector: body.knn.query_vector, k: body.knn.k }),
  },
  {
    node: "openSearch",
    service: "OpenSearch",
    base: () => inject("openSearchUrl"),
    credential: (secret, url) =>
      credential("openSearchUrl", {
        openSearchUrl: url ?? inject("openSearchUrl"),
        ...(secret ? { user: "admin", password: secret } : {}),
      }),
    auth: (secret) => basic("admin", secret),
    refusedCredential: "openSearchUrl",
    downMessage: "OpenSearch get index failed (500): no body",
    vectorMapping: {
      type: "knn_vector",
      dimension: LOCAL_HASH_DIMS,
      method: expect.objectContaining({ engine: "lucene", space_type: "l2" }),
    },
    knnOf: (body) => body.query.bool.must[0].knn.embedding,
  },
];

describe.each(FLAVORS)("$node", (f) => {
  const prefix = f.node === "elasticsearch" ? "es" : "os";
  const secretOf = () => `${prefix}-key-${marker()}`;
  const requests = async (index: string) => (await storeRequests(f.base())).filter((r) => r.path.startsWith(`/${index}`));
  const dump = async (index: string) =>
    (await (await fetch(`${f.base()}/dump/${index}`)).json()) as {
      mappings: any;
      docs: Array<{ _id: string; _source: { text: string; metadata: Record<string, any>; embedding: number[] } }>;
    };
  /** The town flow with this flavor's node on its stand-in. */
  const storeFlow = ({
    index,
    topK,
    extra,
    rm,
    ...rest
  }: {
    credential: string;
    index: string;
    text?: string;
    topK?: string;
    extra?: Record<string, unknown>;
    rm?: boolean;
  }) =>
    townFlow({
      id: "vs_0",
      node: f.node,
      inputs: { indexName: index, topK: topK ?? "1", ...extra },
      ...(rm ? { recordManager: { cleanup: "full", sourceIdKey: "source" } } : {}),
      ...rest,
    });

  it("creates the index with LangChain's mapping, bulk-writes its documents with the credential's auth, answers from them", async () => {
    const secret = secretOf();
    const cred = await f.credential(secret);
    const index = `town-${marker()}`;
    const chatflowid = crypto.randomUUID();
    const flowData = storeFlow({ credential: cred, index });
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    const received = await requests(index);
    expect(received.slice(0, 3).map((r) => `${r.method} ${r.path}`)).toEqual([
      `HEAD /${index}`,
      `PUT /${index}`,
      `POST /${index}/_bulk${f.node === "elasticsearch" ? "?refresh=true" : ""}`,
    ]);
    for (const r of received) expect(r.headers.authorization).toBe(f.auth(secret));
    const stored = await dump(index);
    expect(stored.mappings.properties.embedding).toMatchObject(f.vectorMapping);
    expect(stored.docs.map((d) => d._source.text).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const d of stored.docs) expect(d._source.embedding).toHaveLength(LOCAL_HASH_DIMS);
    // Flowise's Elasticsearch node drops metadata.loc; LangChain's OpenSearch store keeps it.
    if (f.node === "elasticsearch") expect(stored.docs[0]._source.metadata).toEqual({ source: "town" });
    else expect(stored.docs[0]._source.metadata).toMatchObject({ source: "town", loc: { lines: expect.any(Object) } });
    expect(await bookkeepingTexts(f.node, `${chatflowid}_vs_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const search = (await requests(index)).filter((r) => r.path.endsWith("/_search")).at(-1);
    expect(f.knnOf(search?.body).vector).toHaveLength(LOCAL_HASH_DIMS);
    expect(f.knnOf(search?.body).k).toBe(1);
  });

  it("a record manager: unchanged chunks skipped (the service asked which ids it holds), removed ones deleted there", async () => {
    const cred = await f.credential(secretOf());
    const index = `again-${marker()}`;
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(storeFlow({ credential: cred, index, rm: true }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(storeFlow({ credential: cred, index, rm: true }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await requests(index)).some((r) => r.path.includes("/_mget"))).toBe(true);
    expect(await upsertFlow(storeFlow({ credential: cred, index, rm: true, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(index)).docs.map((d) => d._source.text)).toEqual([LIBRARY]);
    const deletes = (await requests(index)).filter((r) => r.path.includes("/_bulk") && r.body.some((l: any) => l.delete));
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body).toHaveLength(2);
  });

  it("an index Flowise filled answers (a credential without a key: a server without auth); mmr reads the vectors", async () => {
    const index = `open-flowise-${marker()}`;
    const [bakery, library] = await new LocalHashEmbeddings({}).embedDocuments([BAKERY, LIBRARY]);
    const put = (path: string, method: string, body: string) =>
      fetch(`${f.base()}${path}`, { method, headers: { "content-type": "application/json" }, body });
    const mapping = { mappings: { properties: { embedding: { ...f.vectorMapping, method: { space_type: "l2" } } } } };
    expect((await put(`/${index}`, "PUT", JSON.stringify(mapping))).status).toBe(200);
    const lines = [
      { index: { _id: "a" } },
      { embedding: bakery, text: BAKERY, metadata: { source: "bakery.txt" } },
      { index: { _id: "b" } },
      { embedding: library, text: LIBRARY, metadata: { source: "library.txt" } },
    ];
    expect((await put(`/${index}/_bulk`, "POST", `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`)).status).toBe(200);
    const cred = await f.credential();
    const result = await predict(
      storeFlow({ credential: cred, index, text: "" }),
      "Where can I borrow novels and atlases with a reader card?",
    );
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
    expect((await requests(index)).at(-1)?.headers.authorization).toBeUndefined();
    expect((await requests(index)).at(-1)?.body._source).toEqual({ excludes: ["embedding"] });
    const diverse = await predict(
      storeFlow({ credential: cred, index, text: "", topK: "2", extra: { searchType: "mmr", fetchK: "2", lambda: "0.2" } }),
      "bakery sourdough",
    );
    expect(diverse.sourceDocuments).toHaveLength(2);
    expect((await requests(index)).at(-1)?.body._source).toBeUndefined();
  });

  it("an index not created yet answers nothing (no write on a read)", async () => {
    const index = `empty-${marker()}`;
    const result = await predict(storeFlow({ credential: await f.credential(secretOf()), index, text: "" }), "anything");
    expect(result.sourceDocuments).toEqual([]);
    expect((await requests(index)).map((r) => r.method)).toEqual(["POST"]);
  });

  it("down → 502, not answering → 504, a refused key → 502 naming the credential, a private URL → 400; never the key", async () => {
    const secret = `${prefix}-secret-987654`;
    const cred = await f.credential(secret);
    const down = await err(predict(storeFlow({ credential: cred, index: "down" }), "bakery"));
    expect(down.status).toBe(502);
    expect(down.message).toMatch(
      new RegExp(`^${f.service} search failed \\(500\\): internal_server_error: the cluster is having a bad day$`),
    );
    const slow = await err(predict(storeFlow({ credential: cred, index: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: `${f.service} search did not answer within 300 ms` });
    const wrongKey = await err(predict(storeFlow({ credential: await f.credential("not-a-key-123456"), index: "x" }), "bakery"));
    expect(wrongKey).toMatchObject({
      status: 502,
      message: `${f.service} search was refused (401): check the ${f.refusedCredential} credential`,
    });
    const priv = await err(predict(storeFlow({ credential: await f.credential(secret, "http://10.1.2.3:9200"), index: "x" }), "bakery"));
    expect(priv.status).toBe(400);
    expect(priv.message).toMatch(/refused by the outbound policy: 10\.1\.2\.3 is a private address/);
    // A write the service refuses (vectors of another size than the mapping's): 502 with its reason.
    const index = `size-${marker()}`;
    await upsertFlow(storeFlow({ credential: cred, index, text: BAKERY }));
    const other = otherSizeFlow("vs_0", f.node, { credential: cred, indexName: index });
    const refused = await err(upsertFlow(other));
    expect(refused.status).toBe(502);
    expect(refused.message).toMatch(
      new RegExp(
        `^${f.service} bulk failed: The \\[\\w+\\] field \\[embedding\\] in doc \\[.+\\] has a different number of dimensions \\[8\\]`,
      ),
    );
    for (const e of [down, slow, wrongKey, refused]) expect(e.message).not.toContain(secret);
  });

  it("bad inputs are 400s naming the input", async () => {
    const cred = await f.credential(secretOf());
    const option = f.node === "elasticsearch" ? { similarity: "hamming" } : { spaceType: "hamming" };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ indexName: "" }, new RegExp(`^${f.node} needs its indexName input`)],
      [{ indexName: "My Index" }, new RegExp(`^${f.node} indexName must be a valid index name`)],
      [option, new RegExp(`^${f.node} ${Object.keys(option)[0]} must be one of `)],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(storeFlow({ credential: cred, index: "x", extra }), "bakery"));
      expect(e.status).toBe(400);
      expect(e.message).toMatch(message);
    }
  });
});

describe("elasticsearch connections", () => {
  it("an Elastic Cloud ID is read as its Elasticsearch URL; a user and password go as Basic auth", async () => {
    const id = `my-deployment:${btoa("europe-west1.gcp.cloud.es.io:9243$abc123$kib456")}`;
    expect(cloudIdUrl(id)).toBe("https://abc123.europe-west1.gcp.cloud.es.io:9243");
    expect(cloudIdUrl(`x:${btoa("eu.cloud.es.io$abc$kib")}`)).toBe("https://abc.eu.cloud.es.io");
    const cred = await credential("elasticSearchUserPassword", {
      cloudId: inject("elasticsearchUrl"),
      username: "elastic",
      password: "es-pw-1",
    });
    const index = `basic-${marker()}`;
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: LIBRARY }, { output: "document" }],
      ["emb_0", "localHashEmbeddings", "Embeddings", {}],
      [
        "vs_0",
        "elasticsearch",
        "Vector Stores",
        { credential: cred, document: [ref("loader_0")], embeddings: ref("emb_0"), indexName: index },
      ],
    ] as never);
    expect(await upsertFlow(flowData)).toMatchObject({ numAdded: 1 });
    const all = await storeRequests(inject("elasticsearchUrl"));
    const mine = all.filter((r) => r.path.startsWith(`/${index}`));
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) expect(r.headers.authorization).toBe(basic("elastic", "es-pw-1"));
  });
});

describe("elasticsearch similarity dot_product", () => {
  /** Embeddings of 5 times unit length, as many models answer (Elasticsearch's dot_product refuses them as they are). */
  class LongEmbeddings extends LocalHashEmbeddings {
    async embedDocuments(texts: string[]) {
      return (await super.embedDocuments(texts)).map((v) => v.map((x) => x * 5));
    }
    async embedQuery(text: string) {
      return (await super.embedQuery(text)).map((x) => x * 5);
    }
  }
  const length = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  it("vectors are written and queried at unit length (Elasticsearch refuses others under dot_product); the ranking holds", async () => {
    const index = `dot-${marker()}`;
    const embeddings = new LongEmbeddings({});
    const ctx = {
      env,
      db: db(),
      embeddings,
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ endpoint: inject("elasticsearchUrl"), apiKey: `es-${marker()}` }),
    };
    const store = buildVectorStore("elasticsearch", { indexName: index, similarity: "dot_product", credential: "c" }, ctx);
    const docs = [BAKERY, LIBRARY, STATION].map((t) => new Document({ pageContent: t, metadata: { source: "town" } }));
    await store.addVectors(await embeddings.embedDocuments(docs.map((d) => d.pageContent)), docs);

    const stored = (await (await fetch(`${inject("elasticsearchUrl")}/dump/${index}`)).json()) as {
      mappings: any;
      docs: Array<{ _source: { embedding: number[] } }>;
    };
    expect(stored.mappings.properties.embedding.similarity).toBe("dot_product");
    expect(stored.docs).toHaveLength(3);
    for (const d of stored.docs) expect(length(d._source.embedding)).toBeCloseTo(1, 6);

    const found = await store.similaritySearch("Which platform do night trains leave from?", 1);
    expect(found.map((d) => d.pageContent)).toEqual([STATION]);
    const search = (await storeRequests(inject("elasticsearchUrl"))).filter((r) => r.path === `/${index}/_search`).at(-1);
    expect(length(search?.body.knn.query_vector)).toBeCloseTo(1, 6);
  });

  it("bulk writes stay near 5 MB (Amazon OpenSearch Service refuses over 10 MiB on small instances), documents in order", async () => {
    const index = `big-${marker()}`;
    const ctx = {
      env,
      db: db(),
      embeddings: new LocalHashEmbeddings({}),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ endpoint: inject("elasticsearchUrl"), apiKey: `es-${marker()}` }),
    };
    const store = buildVectorStore("elasticsearch", { indexName: index, credential: "c" }, ctx);
    // 250 documents of 3,072 dimensions, values written with all their digits: ~14 MB of NDJSON.
    const vectors = Array.from({ length: 250 }, (_, i) => Array.from({ length: 3072 }, (_, j) => -Math.sin(i * 3072 + j) / 7));
    const docs = vectors.map((_, i) => new Document({ pageContent: `document ${i}`, metadata: { n: i } }));
    await store.addVectors(vectors, docs);
    const bulks = (await storeRequests(inject("elasticsearchUrl"))).filter((r) => r.path.startsWith(`/${index}/_bulk`));
    expect(bulks.length).toBeGreaterThanOrEqual(3);
    for (const b of bulks) expect(b.body.map((l: unknown) => JSON.stringify(l)).join("\n").length).toBeLessThan(5_500_000);
    const written = bulks.flatMap((b) => b.body.filter((l: any) => l.text).map((l: any) => l.text));
    expect(written).toEqual(docs.map((d) => d.pageContent));
  });
});
