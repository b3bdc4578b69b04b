// The meilisearch vector store against the Meilisearch stand-in (test/standin/meilisearch.mjs), which
// stores documents, runs tasks and answers hybrid searches: upsert and prediction in a chatflow (the
// index created with Flowise's settings, its document layout, the admin key writing and the search
// key searching), the record manager, searchFilter, semanticRatio and K, an index Flowise filled, and
// a Meilisearch that is down, slow, refuses or fails a task.
import { env } from "cloudflare:workers";
import { Document } from "@langchain/core/documents";
import { describe, expect, inject, it } from "vitest";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { semanticRatioOf } from "../../src/providers/vectorstores/meilisearch";
import { buildVectorStore } from "../../src/providers/vectorstores/registry";
import { credential, db, marker } from "./helpers";
import { askNightTrains, bookkeepingTexts, err, otherSizeFlow, predict, storeFlow, storeRequests, upsertFlow } from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const meili = () => inject("meilisearchUrl");
const requests = async (index: string) =>
  (await storeRequests(meili())).filter((r) => r.path.startsWith(`/indexes/${index}`) || r.body?.uid === index);
const dump = async (index: string) =>
  (await (await fetch(`${meili()}/dump/${index}`)).json()) as { settings: any; documents: Array<Record<string, any>> };
const keys = (m = marker()) =>
  credential("meilisearchApi", { meilisearchSearchApiKey: `ms-search-${m}`, meilisearchAdminApiKey: `ms-admin-${m}` });

/** The town flow with a meilisearch node on its stand-in. */
function meiliFlow(opts: {
  credential?: string;
  index: string;
  text?: string;
  metadata?: string;
  extra?: Record<string, unknown>;
  rm?: boolean;
}) {
  const { index, extra, rm, ...rest } = opts;
  return storeFlow({
    id: "meili_0",
    node: "meilisearch",
    inputs: { host: meili(), indexUid: index, K: "1", semanticRatio: "1", ...extra },
    ...(rm ? { recordManager: { cleanup: "full", sourceIdKey: "source" } } : {}),
    ...rest,
  });
}

describe("meilisearch", () => {
  it("creates the index with Flowise's settings, writes with the admin key, searches (hybrid) with the search key", async () => {
    const m = marker();
    const cred = await keys(m);
    const index = `town-${marker()}`;
    const chatflowid = crypto.randomUUID();
    const flowData = meiliFlow({ credential: cred, index });
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });
    const received = await requests(index);
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /indexes/${index}`,
      "POST /indexes",
      `PATCH /indexes/${index}/settings`,
      `POST /indexes/${index}/documents`,
    ]);
    expect(received[1].body).toEqual({ uid: index, primaryKey: "objectID" });
    expect(received[2].body).toEqual({
      filterableAttributes: ["metadata"],
      embedders: { ollama: { source: "userProvided", dimensions: LOCAL_HASH_DIMS } },
    });
    for (const r of received) expect(r.headers.authorization).toBe(`Bearer ms-admin-${m}`);
    const stored = await dump(index);
    expect(stored.documents.map((d) => d.pageContent).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(stored.documents[0]).toMatchObject({
      objectID: expect.any(String),
      metadata: expect.objectContaining({ source: "town" }),
      _vectors: { ollama: { embeddings: expect.any(Array), regenerate: false } },
    });
    expect(await bookkeepingTexts("meilisearch", `${chatflowid}_meili_0`)).toEqual(["", "", ""]);

    const { question, result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([
      { pageContent: STATION, metadata: expect.objectContaining({ objectID: expect.any(String), source: "town" }) },
    ]);
    expect(prompt).toContain(STATION);
    const search = (await requests(index)).at(-1);
    expect(search?.headers.authorization).toBe(`Bearer ms-search-${m}`);
    expect(search?.body).toMatchObject({
      q: question,
      limit: 1,
      attributesToRetrieve: ["*"],
      hybrid: { semanticRatio: 1, embedder: "ollama" },
    });
    expect(search?.body.vector).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped, removed ones deleted in Meilisearch (delete-batch)", async () => {
    const cred = await keys();
    const index = `again-${marker()}`;
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(meiliFlow({ credential: cred, index, rm: true }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(meiliFlow({ credential: cred, index, rm: true }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect(await upsertFlow(meiliFlow({ credential: cred, index, rm: true, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(index)).documents.map((d) => d.pageContent)).toEqual([LIBRARY]);
    const deletes = (await requests(index)).filter((r) => r.path.endsWith("/delete-batch"));
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body).toHaveLength(2);
  });

  it("searchFilter narrows the search; K is the number of results; semanticRatio is clamped", async () => {
    const cred = await keys();
    const index = `filter-${marker()}`;
    await upsertFlow(meiliFlow({ credential: cred, index, text: BAKERY, metadata: '{"kind":"shop"}' }));
    await upsertFlow(meiliFlow({ credential: cred, index, text: LIBRARY, metadata: '{"kind":"public"}' }));
    const ask = async (extra: Record<string, unknown>) =>
      (await predict(meiliFlow({ credential: cred, index, extra: { K: "4", ...extra } }), "bakery croissants bread")).sourceDocuments?.map(
        (d) => d.pageContent,
      );
    expect(await ask({})).toEqual([BAKERY, LIBRARY]);
    expect(await ask({ searchFilter: "metadata.kind = 'public'" })).toEqual([LIBRARY]);
    expect(await ask({ K: "1" })).toEqual([BAKERY]);
    expect((await requests(index)).at(-1)?.body.limit).toBe(1);
    await ask({ semanticRatio: "7" });
    expect((await requests(index)).at(-1)?.body.hybrid.semanticRatio).toBe(1);
    expect([semanticRatioOf(""), semanticRatioOf("-2"), semanticRatioOf("0.3")]).toEqual([0.75, 0, 0.3]);
  });

  it("an index Flowise filled answers (no credential: a server without a master key)", async () => {
    const index = `open-flowise-${marker()}`;
    const [bakery, library] = await new LocalHashEmbeddings({}).embedDocuments([BAKERY, LIBRARY]);
    const send = (path: string, method: string, body: unknown) =>
      fetch(`${meili()}${path}`, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const settle = async (r: Response) => {
      const { taskUid } = (await r.json()) as { taskUid: number };
      for (let i = 0; i < 3; i++) await fetch(`${meili()}/tasks/${taskUid}`);
    };
    await settle(await send("/indexes", "POST", { uid: index, primaryKey: "objectID" }));
    await settle(
      await send(`/indexes/${index}/settings`, "PATCH", { embedders: { ollama: { source: "userProvided", dimensions: LOCAL_HASH_DIMS } } }),
    );
    const docs = [
      {
        objectID: "a",
        pageContent: BAKERY,
        metadata: { source: "bakery.txt" },
        _vectors: { ollama: { embeddings: bakery, regenerate: false } },
      },
      {
        objectID: "b",
        pageContent: LIBRARY,
        metadata: { source: "library.txt" },
        _vectors: { ollama: { embeddings: library, regenerate: false } },
      },
    ];
    await settle(await send(`/indexes/${index}/documents`, "POST", docs));
    const result = await predict(meiliFlow({ index, text: "" }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { objectID: "b", source: "library.txt" } }]);
    expect((await requests(index)).at(-1)?.headers.authorization).toBeUndefined();
  });

  it("an index not created yet answers nothing (no write on a read)", async () => {
    const index = `empty-${marker()}`;
    const result = await predict(meiliFlow({ credential: await keys(), index, text: "" }), "anything");
    expect(result.sourceDocuments).toEqual([]);
    expect((await requests(index)).map((r) => `${r.method} ${r.path}`)).toEqual([`POST /indexes/${index}/search`]);
  });

  it("down → 502, slow → 504, a refused key → 502 naming the credential, a failed task → 502; never the key", async () => {
    const secret = "ms-admin-secret-987654";
    const cred = await credential("meilisearchApi", { meilisearchSearchApiKey: "ms-search-secret-1", meilisearchAdminApiKey: secret });
    const down = await err(predict(meiliFlow({ credential: cred, index: "down" }), "bakery"));
    expect(down).toMatchObject({ status: 502, message: "Meilisearch search failed (500): the index is having a bad day" });
    const slow = await err(predict(meiliFlow({ credential: cred, index: "hang", extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Meilisearch search did not answer within 300 ms" });
    const wrong = await err(
      predict(meiliFlow({ credential: await credential("meilisearchApi", { meilisearchSearchApiKey: "nope-1" }), index: "x" }), "b"),
    );
    expect(wrong).toMatchObject({ status: 502, message: "Meilisearch search was refused (403): check the meilisearchApi credential" });
    // A search key alone cannot write.
    const readOnly = await credential("meilisearchApi", { meilisearchSearchApiKey: "ms-search-only-1" });
    const noAdmin = await err(upsertFlow(meiliFlow({ credential: readOnly, index: `ro-${marker()}` })));
    expect(noAdmin).toMatchObject({ status: 502, message: "Meilisearch get index was refused (403): check the meilisearchApi credential" });
    const index = `size-${marker()}`;
    await upsertFlow(meiliFlow({ credential: cred, index, text: BAKERY }));
    const other = otherSizeFlow("meili_0", "meilisearch", { credential: cred, host: meili(), indexUid: index });
    const failed = await err(upsertFlow(other));
    expect(failed.status).toBe(502);
    expect(failed.message).toBe(
      `Meilisearch update settings failed: Index \`${index}\`: Invalid vector dimensions: expected: \`8\`, found: \`256\`.`,
    );
    for (const e of [down, slow, wrong, noAdmin, failed]) expect(e.message).not.toContain(secret);
  });

  it("an upsert over Meilisearch's 100 MB payload goes in requests of at most 50 MB (500 chunks of 70,000 CJK characters)", async () => {
    const index = `big-${marker()}`;
    const m = marker();
    const ctx = {
      env: env as never,
      db: db(),
      embeddings: new LocalHashEmbeddings({ dims: 8 }),
      namespace: `ns_${marker()}`,
      getCredential: async () => ({ meilisearchSearchApiKey: `ms-search-${m}`, meilisearchAdminApiKey: `ms-admin-${m}` }),
    };
    const store = buildVectorStore("meilisearch", { credential: "c", host: meili(), indexUid: index }, ctx);
    // 210,000 UTF-8 bytes a chunk: 500 of them are ~105 MB of JSON, which Meilisearch refuses in one request (413).
    const text = "雨".repeat(70_000);
    const docs = Array.from({ length: 500 }, (_, i) => new Document({ pageContent: text, metadata: { n: i } }));
    const ids = await store.addVectors(
      docs.map((_, i) => [1, i, 0, 0, 0, 0, 0, 1]),
      docs,
    );
    const adds = (await requests(index)).filter((r) => r.method === "POST" && r.path === `/indexes/${index}/documents`);
    expect(adds.length).toBeGreaterThan(1);
    expect(adds.reduce((n, r) => n + r.body.documents, 0)).toBe(500);
    for (const r of adds) expect(r.body.bytes).toBeLessThanOrEqual(50_000_000);
    await store.delete({ ids });
    expect((await dump(index)).documents).toEqual([]);
  });

  it("a document addition whose task fails later (after its 202) fails the upsert with Meilisearch's message", async () => {
    // An index made elsewhere with another primary key: the documents lack it, which only the task tells.
    const index = `open-other-key-${marker()}`;
    await fetch(`${meili()}/indexes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uid: index, primaryKey: "id" }),
    }).then(async (r) => {
      const { taskUid } = (await r.json()) as { taskUid: number };
      for (let i = 0; i < 3; i++) await fetch(`${meili()}/tasks/${taskUid}`);
    });
    const e = await err(upsertFlow(meiliFlow({ index, text: BAKERY })));
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/^Meilisearch add documents failed: Document doesn't have a `id` attribute/);
    expect((await requests(index)).filter((r) => r.path === `/indexes/${index}/documents`)).toHaveLength(1);
    expect((await dump(index)).documents).toEqual([]);
  });

  it("bad inputs are 400s naming the input", async () => {
    const cred = await keys();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ host: "ftp://m.example" }, "meilisearch host must be an http(s) URL (e.g. http://localhost:7700)"],
      [{ indexUid: "" }, "meilisearch needs its indexUid input (the uid of a Meilisearch index)"],
      [{ indexUid: "my index" }, "meilisearch indexUid may hold only letters, digits, - and _"],
      [{ semanticRatio: "lots" }, "meilisearch semanticRatio must be a number between 0 and 1"],
    ];
    for (const [extra, message] of cases) {
      const e = await err(predict(meiliFlow({ credential: cred, index: "x", extra }), "bakery"));
      expect(e, message).toMatchObject({ status: 400, message });
    }
  });
});
