// The chroma vector store against the Chroma stand-in (test/standin/chroma.mjs), which stores records
// and answers by squared L2 distance with `where` filters: upsert and prediction in a chatflow (the
// collection created, LangChain's record layout, the x-chroma-token), the record manager (unchanged
// chunks skipped, asked of Chroma; removed ones deleted there), chromaMetadataFilter, the tenant and
// database, a collection Flowise filled, and a Chroma that is down, slow or refuses.
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
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const chroma = () => inject("chromaUrl");
const COLLECTIONS = "/api/v2/tenants/default_tenant/databases/default_database/collections";
/** What the stand-in received for a collection (by name, or its id once known), oldest first. */
const chromaRequests = async (name: string) => {
  const all = await storeRequests(chroma());
  const id = await fetch(`${chroma()}/dump/default_tenant/default_database/${name}`)
    .then((r) => r.json() as Promise<{ id?: string }>)
    .then((d) => d.id);
  return all.filter((r) => r.path.includes(`/collections/${name}`) || r.body?.name === name || (id && r.path.includes(id)));
};
const dump = async (name: string, tenant = "default_tenant", database = "default_database") =>
  (await (await fetch(`${chroma()}/dump/${tenant}/${database}/${name}`)).json()) as {
    id: string;
    records: Array<{ id: string; embedding: number[]; metadata: Record<string, any> | null; document: string | null }>;
  };
const chromaKey = (extra: Record<string, unknown> = {}) => credential("chromaApi", { chromaApiKey: `ck-key-${marker()}`, ...extra });

/** The town flow with a chroma node on the stand-in's collection. */
function chromaFlow({ collection, topK, extra, ...rest }: TownFlowOptions & { collection: string }) {
  return storeFlow({
    id: "chroma_0",
    node: "chroma",
    inputs: { chromaURL: chroma(), collectionName: collection, topK: topK ?? "1", ...extra },
    ...rest,
  });
}

describe("chroma", () => {
  it("creates the collection (get_or_create), upserts LangChain's records with x-chroma-token, answers from them", async () => {
    const cred = await credential("chromaApi", { chromaApiKey: "ck-secret-123456" });
    const collection = `town-${marker()}`;
    const flowData = chromaFlow({ credential: cred, collection });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const stored = await dump(collection);
    const received = await chromaRequests(collection);
    expect(received.slice(0, 2).map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${COLLECTIONS}`,
      `POST ${COLLECTIONS}/${stored.id}/upsert`,
    ]);
    expect(received[0].body).toEqual({ name: collection, get_or_create: true });
    for (const r of received) expect(r.headers["x-chroma-token"]).toBe("ck-secret-123456");

    expect(stored.records.map((r) => r.document).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    for (const r of stored.records) expect(r.embedding).toHaveLength(LOCAL_HASH_DIMS);
    // LangChain's layout: loc.lines as locFrom/locTo, scalars only.
    expect(stored.records[0].metadata).toMatchObject({ source: "town", locFrom: expect.any(Number), locTo: expect.any(Number) });
    expect(stored.records[0].metadata).not.toHaveProperty("loc");

    // D1 keeps bookkeeping rows only (which loader each vector came from), not the text.
    expect(await bookkeepingTexts("chroma", `${chatflowid}_chroma_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([
      { pageContent: STATION, metadata: expect.objectContaining({ source: "town", loc: { lines: expect.any(Object) } }) },
    ]);
    expect(prompt).toContain(STATION);
    expect(prompt).not.toContain(BAKERY);
    const query = (await chromaRequests(collection)).filter((r) => r.path.endsWith("/query")).at(-1);
    expect(query?.body).toMatchObject({ n_results: 1, include: ["documents", "metadatas", "distances"] });
    expect(query?.body.query_embeddings[0]).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped (Chroma asked which ids it holds), removed ones deleted in Chroma", async () => {
    const cred = await chromaKey();
    const collection = `again-${marker()}`;
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(chromaFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(chromaFlow({ credential: cred, collection, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await chromaRequests(collection)).some((r) => r.path.endsWith("/get"))).toBe(true);
    const before = (await dump(collection)).records.map((r) => r.id);
    expect(await upsertFlow(chromaFlow({ credential: cred, collection, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(collection)).records.map((r) => r.document)).toEqual([LIBRARY]);
    const deletes = (await chromaRequests(collection)).filter((r) => r.path.endsWith("/delete"));
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body.ids).toHaveLength(2);
    expect(before).toEqual(expect.arrayContaining(deletes[0].body.ids));
  });

  it("chromaMetadataFilter narrows the search (Chroma's where, as given); the credential's tenant and database name the path", async () => {
    const cred = await chromaKey({ chromaTenant: "t-acme", chromaDatabase: "prod" });
    const collection = `filter-${marker()}`;
    await upsertFlow(chromaFlow({ credential: cred, collection, text: BAKERY, metadata: '{"kind":"shop"}' }));
    await upsertFlow(chromaFlow({ credential: cred, collection, text: LIBRARY, metadata: '{"kind":"public"}' }));
    expect((await dump(collection, "t-acme", "prod")).records).toHaveLength(2);

    const ask = async (extra: Record<string, unknown>) =>
      (await predict(chromaFlow({ credential: cred, collection, topK: "4", extra }), "bakery croissants bread")).sourceDocuments?.map(
        (d) => d.pageContent,
      );
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ chromaMetadataFilter: '{"kind":"public"}' })).toEqual([LIBRARY]);
    expect(await ask({ chromaMetadataFilter: { kind: { $ne: "public" } } })).toEqual([BAKERY]);
    const all = await storeRequests(chroma());
    const queries = all.filter((r) => r.path.startsWith("/api/v2/tenants/t-acme/databases/prod/") && r.path.endsWith("/query"));
    expect(queries.map((q) => q.body.where)).toContainEqual({ kind: "public" });
  });

  it("a chromaMetadataFilter of several fields (or operators) is sent as Chroma's $and: its server takes one key a level", async () => {
    const cred = await chromaKey();
    const collection = `and-${marker()}`;
    await upsertFlow(chromaFlow({ credential: cred, collection, text: BAKERY, metadata: '{"kind":"shop","floor":1}' }));
    await upsertFlow(chromaFlow({ credential: cred, collection, text: LIBRARY, metadata: '{"kind":"public","floor":2}' }));
    await upsertFlow(chromaFlow({ credential: cred, collection, text: STATION, metadata: '{"kind":"public","floor":5}' }));
    const ask = async (filter: unknown) =>
      (
        await predict(chromaFlow({ credential: cred, collection, topK: "4", extra: { chromaMetadataFilter: filter } }), "bakery")
      ).sourceDocuments?.map((d) => d.pageContent);
    expect(await ask('{"kind":"public","floor":2}')).toEqual([LIBRARY]);
    expect(await ask({ kind: "public", floor: { $gte: 2, $lt: 5 } })).toEqual([LIBRARY]);
    expect(await ask({ $or: [{ kind: "shop" }, { kind: "public", floor: 5 }] })).toEqual([BAKERY, STATION]);
    const wheres = (await chromaRequests(collection)).filter((r) => r.path.endsWith("/query")).map((r) => r.body.where);
    expect(wheres).toEqual([
      { $and: [{ kind: "public" }, { floor: 2 }] },
      { $and: [{ kind: "public" }, { floor: { $gte: 2 } }, { floor: { $lt: 5 } }] },
      { $or: [{ kind: "shop" }, { $and: [{ kind: "public" }, { floor: 5 }] }] },
    ]);
  });

  it("within Chroma Cloud's quotas: at most 300 records a write, 300 results a query (a larger topK is capped)", async () => {
    const collection = `quota-${marker()}`;
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ chromaApiKey: "ck-key-123456" }),
    };
    const store = buildVectorStore("chroma", { chromaURL: chroma(), collectionName: collection, credential: "c" }, ctx);
    const docs = Array.from({ length: 650 }, (_, i) => new Document({ pageContent: `passage ${i}`, metadata: { i } }));
    await store.addVectors(
      docs.map((_, i) => [1, i % 5, 0, 0, 0, 0, 0, 1]),
      docs,
    );
    const upserts = (await chromaRequests(collection)).filter((r) => r.path.endsWith("/upsert"));
    expect(upserts.map((r) => r.body.ids.length)).toEqual([300, 300, 50]);
    expect((await dump(collection)).records).toHaveLength(650);

    const hits = await store.similaritySearchVectorWithScore([1, 0, 0, 0, 0, 0, 0, 1], 400);
    expect(hits).toHaveLength(300);
    expect((await chromaRequests(collection)).filter((r) => r.path.endsWith("/query")).at(-1)?.body.n_results).toBe(300);
  });

  it("a collection Flowise filled answers (no credential: a server without auth); mmr asks for the embeddings", async () => {
    const name = `open-flowise-${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const post = (path: string, body: unknown) =>
      fetch(`${chroma()}${COLLECTIONS}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const made = (await (await post("", { name, get_or_create: true })).json()) as { id: string };
    const records = {
      ids: ["a", "b"],
      embeddings: [bakery, library],
      metadatas: [
        { source: "bakery.txt", locFrom: 1, locTo: 3 },
        { source: "library.txt", locFrom: 4, locTo: 6 },
      ],
      documents: [BAKERY, LIBRARY],
    };
    expect((await post(`/${made.id}/upsert`, records)).status).toBe(200);
    const result = await predict(chromaFlow({ collection: name, text: "" }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([
      { pageContent: LIBRARY, metadata: { source: "library.txt", loc: { lines: { from: 4, to: 6 } } } },
    ]);
    const reads = await chromaRequests(name);
    expect(reads.at(-1)?.headers["x-chroma-token"]).toBeUndefined();
    expect(reads.filter((r) => r.method === "GET").at(-1)?.path).toBe(`${COLLECTIONS}/${name}`);

    const diverse = await predict(
      chromaFlow({ collection: name, text: "", topK: "2", extra: { searchType: "mmr", fetchK: "2", lambda: "0.2" } }),
      "bakery sourdough",
    );
    expect(diverse.sourceDocuments).toHaveLength(2);
    expect((await chromaRequests(name)).filter((r) => r.path.endsWith("/query")).at(-1)?.body.include).toContain("embeddings");
  });

  it("a collection not created yet answers nothing (no write on a read)", async () => {
    const collection = `empty-${marker()}`;
    const result = await predict(chromaFlow({ credential: await chromaKey(), collection, text: "" }), "anything");
    expect(result.sourceDocuments).toEqual([]);
    expect((await chromaRequests(collection)).map((r) => r.method)).toEqual(["GET"]);
  });

  it("Chroma down → 502 with its message, not answering → 504, a refused key → 502 naming the credential; never the key", async () => {
    const key = "ck-secret-key-987654";
    const cred = await credential("chromaApi", { chromaApiKey: key });
    const down = await err(predict(chromaFlow({ credential: cred, collection: "down" }), "bakery"));
    expect(down).toMatchObject({
      status: 502,
      message: "Chroma get collection failed (500): InternalError: the segment is having a bad day",
    });
    const slow = await err(predict(chromaFlow({ credential: cred, collection: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Chroma get collection did not answer within 300 ms" });
    const wrongKey = await err(
      predict(chromaFlow({ credential: await credential("chromaApi", { chromaApiKey: "not-a-key-123456" }), collection: "x" }), "bakery"),
    );
    expect(wrongKey).toMatchObject({ status: 502, message: "Chroma get collection was refused (403): check the chromaApi credential" });
    const noKey = await err(predict(chromaFlow({ collection: "x" }), "bakery"));
    expect(noKey).toMatchObject({ status: 502, message: "Chroma get collection was refused (401): check the chromaApi credential" });
    // A tenant Chroma does not know: a read finds nothing there, a write is a 400 naming what to check.
    const nobody = await err(upsertFlow(chromaFlow({ credential: await chromaKey({ chromaTenant: "nobody" }), collection: "x" })));
    expect(nobody.status).toBe(400);
    expect(nobody.message).toMatch(
      /^Chroma get or create collection: not found \(NotFoundError: Tenant \[nobody\] not found\); check the chromaURL input and the chromaApi/,
    );
    const unreachable = await err(
      predict(chromaFlow({ credential: cred, collection: "x", extra: { chromaURL: inject("closedUrl") } }), "bakery"),
    );
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Chroma get collection failed: /);
    // A write Chroma refuses (vectors of another size than the collection's): 502 with Chroma's message.
    const collection = `size-${marker()}`;
    await upsertFlow(chromaFlow({ credential: cred, collection, text: BAKERY }));
    const other = otherSizeFlow("chroma_0", "chroma", { credential: cred, chromaURL: chroma(), collectionName: collection });
    const refused = await err(upsertFlow(other));
    expect(refused).toMatchObject({
      status: 502,
      message: "Chroma upsert failed (400): InvalidArgumentError: Collection expecting embedding with dimension of 256, got 8",
    });
    for (const e of [down, slow, wrongKey, noKey, unreachable, refused]) expect(e.message).not.toContain(key);
  });

  it("bad inputs are 400s naming the input", async () => {
    const cred = await chromaKey();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ chromaURL: "ftp://c.example" }, "chroma chromaURL must be an http(s) URL (e.g. http://localhost:8000)"],
      [{ collectionName: "" }, "chroma needs its collectionName input (the name of a Chroma collection)"],
      [{ chromaMetadataFilter: "{not json" }, "chromaMetadataFilter is not valid JSON"],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(chromaFlow({ credential: cred, collection: "x", extra }), "bakery"));
      expect(e, message).toMatchObject({ status: 400, message });
    }
  });
});
