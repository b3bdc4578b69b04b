// Issue 9.1: concurrent writes to one document store keep every loader and chunk. Loaders are
// rows of their own; every mutation is one conditional D1 statement or batch, so 20 parallel
// upserts leave 20 loaders owning their 40 chunks, and chunk edits and deletes racing each other
// or an upsert leave each loader's totals equal to what its chunks hold.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { LOCAL, loadersOf, newStore, upsert } from "../routes/document-store-helpers";

const SPLIT_PARAGRAPHS = { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } };
const paragraphs = (n: number, topic: string) =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i + 1} is about ${topic} number ${i + 1}.`).join("\n\n");
const plain = (text: string) => ({ ...LOCAL, loader: { name: "plainText", config: { text } }, splitter: SPLIT_PARAGRAPHS });

/**
 * What a user checks after the dust settles: every chunk belongs to a loader the store lists, each
 * loader's totals are what its chunks hold, the store's totals their sums, the chunk pages agree.
 */
async function expectConsistent(storeId: string) {
  const store = await json("GET", `/document-store/store/${storeId}`);
  const loaders = loadersOf(store);
  const rows = (
    await env.DB.prepare("SELECT docId, pageContent FROM document_store_file_chunk WHERE storeId = ?")
      .bind(storeId)
      .all<{ docId: string; pageContent: string }>()
  ).results;
  const ids = new Set(loaders.map((l: any) => l.id));
  expect(
    rows.filter((r) => !ids.has(r.docId)),
    "chunks no loader owns",
  ).toEqual([]);
  for (const l of loaders) {
    const own = rows.filter((r) => r.docId === l.id);
    expect({ id: l.id, totalChunks: l.totalChunks, totalChars: l.totalChars }).toEqual({
      id: l.id,
      totalChunks: own.length,
      totalChars: own.reduce((n, r) => n + r.pageContent.length, 0),
    });
  }
  expect(store.totalChunks).toBe(rows.length);
  expect(store.totalChars).toBe(rows.reduce((n, r) => n + r.pageContent.length, 0));
  expect((await json("GET", `/document-store/chunks/${storeId}/all/1`)).count).toBe(rows.length);
  return { store, loaders, rows };
}

describe("concurrent upserts into one store", () => {
  it("20 parallel upserts: 20 loaders, 40 chunks, totals right, every chunk reachable by its loader", async () => {
    const store = await newStore();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => upsert(store.id, plain(paragraphs(2, `topic${i}`)))));
    expect(results.every((r) => r.numAdded === 2)).toBe(true);

    const { store: after, loaders, rows } = await expectConsistent(store.id);
    expect(loaders).toHaveLength(20);
    expect(rows).toHaveLength(40);
    expect(new Set(loaders.map((l: any) => l.id))).toEqual(new Set(results.map((r) => r.docId)));
    expect(loaders.every((l: any) => l.status === "SYNC" && l.totalChunks === 2)).toBe(true);
    expect(after).toMatchObject({ status: "UPSERTED", totalChunks: 40 });
    for (const r of results) expect((await json("GET", `/document-store/chunks/${store.id}/${r.docId}/1`)).count).toBe(2);
    // The loaders are listed in a stable order: the order they were added in.
    expect(loadersOf(await json("GET", `/document-store/store/${store.id}`)).map((l: any) => l.id)).toEqual(loaders.map((l: any) => l.id));
  }, 60_000);

  it("parallel upserts into two stores: each keeps its own loaders", async () => {
    const a = await newStore("a");
    const b = await newStore("b");
    await Promise.all(Array.from({ length: 10 }, (_, i) => upsert(i % 2 ? a.id : b.id, plain(paragraphs(2, `mix${i}`)))));
    expect((await expectConsistent(a.id)).loaders).toHaveLength(5);
    expect((await expectConsistent(b.id)).loaders).toHaveLength(5);
  }, 30_000);
});

describe("chunk edits and deletes under concurrency", () => {
  it("parallel deletes and edits in one loader: totals follow every one of them", async () => {
    const store = await newStore();
    const up = await upsert(store.id, plain(paragraphs(12, "pears")));
    const { chunks } = await json("GET", `/document-store/chunks/${store.id}/${up.docId}/1`);
    const answers = await Promise.all([
      ...chunks.slice(0, 5).map((c: any) => call("DELETE", `/document-store/chunks/${store.id}/${up.docId}/${c.id}`)),
      ...chunks
        .slice(5, 10)
        .map((c: any, i: number) =>
          call("PUT", `/document-store/chunks/${store.id}/${up.docId}/${c.id}`, { body: { pageContent: "x".repeat(i * 7 + 1) } }),
        ),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const { loaders, rows } = await expectConsistent(store.id);
    expect(loaders[0].totalChunks).toBe(7);
    expect(rows.filter((r) => r.pageContent.startsWith("x"))).toHaveLength(5);
  }, 30_000);

  it("chunk edits and deletes racing new upserts into the same store lose no loader", async () => {
    const store = await newStore();
    const first = await upsert(store.id, plain(paragraphs(10, "plums")));
    const { chunks } = await json("GET", `/document-store/chunks/${store.id}/${first.docId}/1`);
    const [answers, upserts] = await Promise.all([
      Promise.all([
        ...chunks.slice(0, 4).map((c: any) => call("DELETE", `/document-store/chunks/${store.id}/${first.docId}/${c.id}`)),
        ...chunks
          .slice(4, 8)
          .map((c: any) =>
            call("PUT", `/document-store/chunks/${store.id}/${first.docId}/${c.id}`, { body: { pageContent: `Edited ${c.chunkNo}` } }),
          ),
      ]),
      Promise.all(Array.from({ length: 6 }, (_, i) => upsert(store.id, plain(paragraphs(2, `fig${i}`))))),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    const { loaders } = await expectConsistent(store.id);
    expect(loaders.map((l: any) => l.id).sort()).toEqual([first.docId, ...upserts.map((u) => u.docId)].sort());
    expect(loaders.find((l: any) => l.id === first.docId).totalChunks).toBe(6);
  }, 60_000);

  it("chunk edits and deletes racing a replacement of their loader: each lands or is a 404, totals match the chunks", async () => {
    const store = await newStore();
    const first = await upsert(store.id, plain(paragraphs(10, "dates")));
    const { chunks } = await json("GET", `/document-store/chunks/${store.id}/${first.docId}/1`);
    const [answers, replaced] = await Promise.all([
      Promise.all([
        ...chunks.slice(0, 5).map((c: any) => call("DELETE", `/document-store/chunks/${store.id}/${first.docId}/${c.id}`)),
        ...chunks
          .slice(5, 10)
          .map((c: any) =>
            call("PUT", `/document-store/chunks/${store.id}/${first.docId}/${c.id}`, { body: { pageContent: "Edited while replaced" } }),
          ),
      ]),
      upsert(store.id, {
        docId: first.docId,
        replaceExisting: true,
        loader: { name: "plainText", config: { text: paragraphs(3, "kiwis") } },
      }),
    ]);
    expect(replaced.docId).toBe(first.docId);
    expect(answers.every((r) => r.status === 200 || r.status === 404)).toBe(true);
    const { loaders, rows } = await expectConsistent(store.id);
    expect(loaders).toHaveLength(1);
    // The replacement's chunks are all there: the edits and deletes hit only the old ones.
    expect(rows.filter((r) => r.pageContent.includes("kiwis"))).toHaveLength(3);
  }, 30_000);

  it("deleting a loader while it is being replaced leaves no chunk behind without a loader", async () => {
    const store = await newStore();
    const keep = await upsert(store.id, plain(paragraphs(2, "keep")));
    const first = await upsert(store.id, plain(paragraphs(4, "gone")));
    const [deleted, replaced] = await Promise.all([
      call("DELETE", `/document-store/loader/${store.id}/${first.docId}`),
      call("POST", `/document-store/upsert/${store.id}`, {
        body: { docId: first.docId, replaceExisting: true, loader: { name: "plainText", config: { text: paragraphs(3, "back") } } },
      }),
    ]);
    expect(deleted.status).toBe(200);
    expect([200, 404]).toContain(replaced.status);
    const { loaders } = await expectConsistent(store.id);
    expect(loaders.map((l: any) => l.id)).toContain(keep.docId);
  }, 30_000);
});
