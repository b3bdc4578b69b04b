// The upstash vector store (Upstash Vector) against its stand-in (test/standin/upstash-vector.mjs),
// which stores vectors per index and answers by cosine with Upstash's filter language: upsert and
// prediction in a chatflow (LangChain's layout, the bearer token), the record manager (unchanged
// chunks skipped, asked of Upstash; removed ones deleted there), upstashMetadataFilter, an index
// Flowise filled, and an Upstash that is down, slow or refuses.
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
  type TownFlowOptions,
} from "./hosted-store-flows";
import { BAKERY, LIBRARY, STATION } from "./retrieval-flows";

const upstash = () => inject("upstashVectorUrl");

const upstashRequests = async (index: string) => (await storeRequests(upstash())).filter((r) => r.path.startsWith(`/${index}/`));
const dump = async (index: string) =>
  (await (await fetch(`${upstash()}/dump/${index}`)).json()) as {
    vectors: Array<{ id: string; vector: number[]; metadata: Record<string, any> }>;
  };
const indexCredential = (index: string, token = `up-token-${marker()}`, url = `${upstash()}/${index}`) =>
  credential("upstashVectorApi", { UPSTASH_VECTOR_REST_URL: url, UPSTASH_VECTOR_REST_TOKEN: token });

/** The town flow with a upstash node on its stand-in. */
function upstashFlow({ topK, extra, ...rest }: TownFlowOptions & { credential: string }) {
  return storeFlow({ id: "upstash_0", node: "upstash", inputs: { topK: topK ?? "1", ...extra }, ...rest });
}

describe("upstash (Upstash Vector)", () => {
  it("upserts LangChain's layout (text under _pageContentLC) with the bearer token, answers from it", async () => {
    const index = `town-${marker()}`;
    const cred = await indexCredential(index, "up-secret-123456");
    const flowData = upstashFlow({ credential: cred });
    const chatflowid = crypto.randomUUID();
    expect(await upsertFlow(flowData, { chatflowid })).toMatchObject({ numAdded: 3, numSkipped: 0 });

    const received = await upstashRequests(index);
    expect(received.map((r) => `${r.method} ${r.path}`)).toContain(`POST /${index}/upsert`);
    for (const r of received) expect(r.headers.authorization).toBe("Bearer up-secret-123456");
    const stored = await dump(index);
    expect(stored.vectors.map((v) => v.metadata._pageContentLC).sort()).toEqual([BAKERY, LIBRARY, STATION].sort());
    // The document's own metadata beside the text, nested values kept.
    expect(stored.vectors[0].metadata).toMatchObject({ source: "town", loc: { lines: { from: expect.any(Number) } } });
    for (const v of stored.vectors) expect(v.vector).toHaveLength(LOCAL_HASH_DIMS);

    expect(await bookkeepingTexts("upstash", `${chatflowid}_upstash_0`)).toEqual(["", "", ""]);

    const { result, prompt } = await askNightTrains(flowData, { chatflowid });
    expect(result.sourceDocuments).toEqual([{ pageContent: STATION, metadata: expect.objectContaining({ source: "town" }) }]);
    expect(result.sourceDocuments?.[0].metadata).not.toHaveProperty("_pageContentLC");
    expect(prompt).toContain(STATION);
    const query = (await upstashRequests(index)).filter((r) => r.path.endsWith("/query")).at(-1);
    expect(query?.body).toMatchObject({ topK: 1, includeMetadata: true });
    expect(query?.body.vector).toHaveLength(LOCAL_HASH_DIMS);
  });

  it("a record manager: unchanged chunks skipped (Upstash asked which ids it holds), removed ones deleted there", async () => {
    const index = `again-${marker()}`;
    const cred = await indexCredential(index);
    const chatflowid = crypto.randomUUID();
    const recordManager = { cleanup: "full", sourceIdKey: "source" };
    expect(await upsertFlow(upstashFlow({ credential: cred, recordManager }), { chatflowid })).toMatchObject({ numAdded: 3 });
    expect(await upsertFlow(upstashFlow({ credential: cred, recordManager }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 3,
    });
    expect((await upstashRequests(index)).some((r) => r.path.endsWith("/fetch"))).toBe(true);
    const before = (await dump(index)).vectors.map((v) => v.id);
    expect(await upsertFlow(upstashFlow({ credential: cred, recordManager, text: LIBRARY }), { chatflowid })).toMatchObject({
      numAdded: 0,
      numSkipped: 1,
      numDeleted: 2,
    });
    expect((await dump(index)).vectors.map((v) => v.metadata._pageContentLC)).toEqual([LIBRARY]);
    const deletes = (await upstashRequests(index)).filter((r) => r.path.endsWith("/delete"));
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body).toHaveLength(2);
    expect(before).toEqual(expect.arrayContaining(deletes[0].body));
  });

  it("upstashMetadataFilter narrows the search (Upstash's filter language, as given); mmr asks for the vectors", async () => {
    const index = `filter-${marker()}`;
    const cred = await indexCredential(index);
    await upsertFlow(upstashFlow({ credential: cred, text: BAKERY, metadata: '{"kind":"shop"}' }));
    await upsertFlow(upstashFlow({ credential: cred, text: LIBRARY, metadata: '{"kind":"public"}' }));
    const ask = async (extra: Record<string, unknown>) =>
      (await predict(upstashFlow({ credential: cred, text: "", topK: "4", extra }), "bakery croissants bread")).sourceDocuments?.map(
        (d) => d.pageContent,
      );
    // Two upserts under two chatflow ids: the first's vectors are not cleaned up by the second.
    expect((await ask({}))?.sort()).toEqual([BAKERY, LIBRARY].sort());
    expect(await ask({ upstashMetadataFilter: "kind = 'public'" })).toEqual([LIBRARY]);
    expect(await ask({ upstashMetadataFilter: "kind != 'public' AND HAS FIELD loc.lines" })).toEqual([BAKERY]);
    const queries = (await upstashRequests(index)).filter((r) => r.path.endsWith("/query"));
    expect(queries.map((q) => q.body.filter)).toContain("kind = 'public'");
    expect(await ask({ searchType: "mmr", fetchK: "2", lambda: "0.3", topK: "2" })).toHaveLength(2);
    expect((await upstashRequests(index)).filter((r) => r.path.endsWith("/query")).at(-1)?.body).toMatchObject({
      topK: 2,
      includeVectors: true,
    });
  });

  it("an index Flowise filled answers", async () => {
    const index = `flowise-${marker()}`;
    const emb = new LocalHashEmbeddings({});
    const [bakery, library] = await emb.embedDocuments([BAKERY, LIBRARY]);
    const vectors = [
      { id: "1", vector: bakery, metadata: { _pageContentLC: BAKERY, source: "bakery.txt" } },
      { id: "2", vector: library, metadata: { _pageContentLC: LIBRARY, source: "library.txt" } },
    ];
    const put = await fetch(`${upstash()}/${index}/upsert`, {
      method: "POST",
      headers: { authorization: "Bearer up-flowise", "content-type": "application/json" },
      body: JSON.stringify(vectors),
    });
    expect(put.status).toBe(200);
    const cred = await indexCredential(index);
    const result = await predict(upstashFlow({ credential: cred, text: "" }), "Where can I borrow novels and atlases with a reader card?");
    expect(result.sourceDocuments).toEqual([{ pageContent: LIBRARY, metadata: { source: "library.txt" } }]);
  });

  it("Upstash down → 502 with its message, not answering → 504, a refused token → 502 naming the credential; never the token", async () => {
    const token = "up-secret-token-987654";
    const down = await err(predict(upstashFlow({ credential: await indexCredential("down", token) }), "bakery"));
    expect(down).toMatchObject({
      status: 502,
      message: "Upstash Vector query failed (500): Internal Server Error: the index is having a bad day",
    });
    const slow = await err(predict(upstashFlow({ credential: await indexCredential("hang", token), extra: { timeout: 300 } }), "bakery"));
    expect(slow).toMatchObject({ status: 504, message: "Upstash Vector query did not answer within 300 ms" });
    const wrong = await err(predict(upstashFlow({ credential: await indexCredential("x", "not-a-token-123456") }), "bakery"));
    expect(wrong).toMatchObject({ status: 502, message: "Upstash Vector query was refused (401): check the upstashVectorApi credential" });
    const unreachable = await err(predict(upstashFlow({ credential: await indexCredential("x", token, inject("closedUrl")) }), "bakery"));
    expect(unreachable.status).toBe(502);
    expect(unreachable.message).toMatch(/^Upstash Vector query failed: /);
    const index = `size-${marker()}`;
    const cred = await indexCredential(index, token);
    await upsertFlow(upstashFlow({ credential: cred, text: BAKERY }));
    const other = otherSizeFlow("upstash_0", "upstash", { credential: cred });
    const refused = await err(upsertFlow(other));
    expect(refused).toMatchObject({
      status: 502,
      // Upstash's documented answer to another dimension: a 422.
      message: "Upstash Vector upsert failed (422): Invalid vector dimension: 8, expected: 256",
    });
    const filter = await err(predict(upstashFlow({ credential: cred, extra: { upstashMetadataFilter: "kind ~ 1" } }), "bakery"));
    expect(filter).toMatchObject({ status: 502, message: "Upstash Vector query failed (400): Invalid filter: kind ~ 1" });
    for (const e of [down, slow, wrong, unreachable, refused]) expect(e.message).not.toContain(token);
  });

  it("a missing or incomplete credential, and a URL that is not http(s), are said", async () => {
    const none = await err(predict(upstashFlow({ credential: "" }), "bakery"));
    expect(none).toMatchObject({ status: 400, message: expect.stringMatching(/^upstash is not configured: connect an upstashVectorApi/) });
    const ftp = await err(predict(upstashFlow({ credential: await indexCredential("x", "up-1", "ftp://u.example") }), "bakery"));
    expect(ftp).toMatchObject({ status: 400, message: "upstashVectorApi credential UPSTASH_VECTOR_REST_URL must be an http(s) URL" });
  });
});
