import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, expectError, json, uuid } from "../helpers";
import { LOCAL, form, loadersOf, newStore, snapshot, upsert, upsertForm } from "./document-store-helpers";

const paragraphs = (n: number, word = "topic") =>
  Array.from({ length: n }, (_, i) => `Paragraph ${i + 1} is about ${word} number ${i + 1}.`).join("\n\n");
const SPLIT_PARAGRAPHS = { name: "characterTextSplitter", config: { chunkSize: 60, chunkOverlap: 0, separator: "\n\n" } };

describe("document stores: records", () => {
  it("creates, reads, lists (with paging), updates and deletes a store", async () => {
    const created = await newStore("Handbook", { description: "company handbook" });
    expect(created).toMatchObject({
      name: "Handbook",
      description: "company handbook",
      status: "EMPTY",
      loaders: "[]",
      whereUsed: "[]",
      vectorStoreConfig: null,
      embeddingConfig: null,
      recordManagerConfig: null,
      totalChunks: 0,
      totalChars: 0,
    });
    expect(created.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await json("GET", `/document-store/store/${created.id}`)).toEqual(created);
    expect((await json("GET", "/document-store/store")).map((s: any) => s.id)).toContain(created.id);
    const page = await json("GET", "/document-store/store?page=1&limit=1");
    expect(page.data).toHaveLength(1);
    expect(page.total).toBeGreaterThanOrEqual(1);

    const cfg = JSON.stringify({ name: "localVectorStore", config: {} });
    const updated = await json("PUT", `/document-store/store/${created.id}`, { body: { name: "Handbook 2", vectorStoreConfig: cfg } });
    expect(updated).toMatchObject({ name: "Handbook 2", description: "company handbook", vectorStoreConfig: cfg, status: "EMPTY" });
    expect(await json("DELETE", `/document-store/store/${created.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/document-store/store/${created.id}`), 404);
    await expectError(await call("DELETE", `/document-store/store/${created.id}`), 404);
  });

  it("keeps a client id (409 when reused) and validates input", async () => {
    const id = uuid();
    expect((await newStore("mine", { id })).id).toBe(id);
    await expectError(await call("POST", "/document-store/store", { body: { id, name: "again" } }), 409);
    await expectError(await call("POST", "/document-store/store", { body: {} }), 400);
    await expectError(await call("POST", "/document-store/store", { body: { name: "x", embeddingConfig: "{nope" } }), 400);
    await expectError(await call("PUT", `/document-store/store/${uuid()}`, { body: { name: "x" } }), 404);
    await expectError(await call("GET", "/document-store/store/not-a-uuid"), 400);
    await expectError(await call("POST", "/document-store/store", { raw: "name=x", headers: { "content-type": "text/plain" } }), 415);
  });

  it("needs a bearer token on every endpoint", async () => {
    const id = uuid();
    const paths: Array<[string, string]> = [
      ["GET", "/document-store/store"],
      ["POST", "/document-store/store"],
      ["GET", `/document-store/store/${id}`],
      ["PUT", `/document-store/store/${id}`],
      ["DELETE", `/document-store/store/${id}`],
      ["GET", `/document-store/chunks/${id}/all/1`],
      ["PUT", `/document-store/chunks/${id}/${id}/${id}`],
      ["DELETE", `/document-store/chunks/${id}/${id}/${id}`],
      ["DELETE", `/document-store/loader/${id}/${id}`],
      ["POST", `/document-store/upsert/${id}`],
      ["POST", `/document-store/refresh/${id}`],
      ["POST", "/document-store/vectorstore/query"],
      ["DELETE", `/document-store/vectorstore/${id}`],
    ];
    for (const [method, path] of paths)
      await expectError(await call(method, path, { token: null, ...(method === "GET" ? {} : { body: {} }) }), 401);
  });
});

describe("document stores: chunks and loaders", () => {
  it("pages chunks 50 at a time per loader or for all, in chunk order", async () => {
    const store = await newStore();
    const a = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text: paragraphs(60, "apples") } },
      splitter: SPLIT_PARAGRAPHS,
    });
    const b = await upsert(store.id, {
      loader: { name: "plainText", config: { text: paragraphs(3, "pears") } },
      splitter: SPLIT_PARAGRAPHS,
    });
    expect(a.numAdded).toBe(60);

    const first = await json("GET", `/document-store/chunks/${store.id}/${a.docId}/1`);
    expect(first).toMatchObject({ count: 60, currentPage: 1, storeName: "docs", description: null, docId: a.docId });
    expect(first.chunks).toHaveLength(50);
    expect(first.chunks.map((c: any) => c.chunkNo)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(first.chunks[0]).toMatchObject({ docId: a.docId, storeId: store.id, pageContent: "Paragraph 1 is about apples number 1." });
    expect(JSON.parse(first.chunks[0].metadata)).toMatchObject({ loc: { lines: { from: 1, to: 1 } } });
    expect(first.file).toMatchObject({
      id: a.docId,
      loaderId: "plainText",
      loaderName: "Plain Text",
      splitterId: "characterTextSplitter",
      totalChunks: 60,
      status: "SYNC",
    });
    expect(first.characters).toBe(first.file.totalChars);

    const second = await json("GET", `/document-store/chunks/${store.id}/${a.docId}/2`);
    expect(second.chunks.map((c: any) => c.chunkNo)).toEqual(Array.from({ length: 10 }, (_, i) => i + 51));
    const all = await json("GET", `/document-store/chunks/${store.id}/all/2`);
    expect(all.count).toBe(63);
    expect(all.file).toBeUndefined();
    expect(all.chunks).toHaveLength(13);
    expect((await json("GET", `/document-store/chunks/${store.id}/${b.docId}/9`)).chunks).toEqual([]);

    await expectError(await call("GET", `/document-store/chunks/${store.id}/${uuid()}/1`), 404);
    await expectError(await call("GET", `/document-store/chunks/${uuid()}/all/1`), 404);
    await expectError(await call("GET", `/document-store/chunks/${store.id}/all/0`), 400);
    await expectError(await call("GET", `/document-store/chunks/${store.id}/nope/1`), 400);
  });

  it("edits a chunk (answers its page, loader totals follow) and deletes one ({deleted: 1})", async () => {
    const store = await newStore();
    const up = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text: paragraphs(55) } },
      splitter: SPLIT_PARAGRAPHS,
    });
    const page2 = await json("GET", `/document-store/chunks/${store.id}/${up.docId}/2`);
    const target = page2.chunks[2];
    const before = loadersOf(await json("GET", `/document-store/store/${store.id}`))[0];

    const edited = await json("PUT", `/document-store/chunks/${store.id}/${up.docId}/${target.id}`, {
      body: { pageContent: "Rewritten.", metadata: { reviewed: true } },
    });
    expect(edited.currentPage).toBe(2);
    const chunk = edited.chunks.find((c: any) => c.id === target.id);
    expect(chunk).toMatchObject({ pageContent: "Rewritten.", chunkNo: target.chunkNo });
    expect(JSON.parse(chunk.metadata)).toEqual({ reviewed: true });
    let loader = loadersOf(await json("GET", `/document-store/store/${store.id}`))[0];
    expect(loader.totalChars).toBe(before.totalChars - target.pageContent.length + "Rewritten.".length);
    expect(edited.file.totalChars).toBe(loader.totalChars);

    expect(await json("DELETE", `/document-store/chunks/${store.id}/${up.docId}/${target.id}`)).toEqual({ deleted: 1 });
    loader = loadersOf(await json("GET", `/document-store/store/${store.id}`))[0];
    expect(loader.totalChunks).toBe(54);
    expect(loader.totalChars).toBe(before.totalChars - target.pageContent.length);
    expect((await json("GET", `/document-store/chunks/${store.id}/${up.docId}/1`)).count).toBe(54);

    await expectError(await call("DELETE", `/document-store/chunks/${store.id}/${up.docId}/${target.id}`), 404);
    await expectError(await call("PUT", `/document-store/chunks/${store.id}/${up.docId}/${uuid()}`, { body: { pageContent: "x" } }), 404);
    await expectError(
      await call("PUT", `/document-store/chunks/${store.id}/${uuid()}/${page2.chunks[0].id}`, { body: { pageContent: "x" } }),
      404,
    );
    await expectError(
      await call("PUT", `/document-store/chunks/${store.id}/${up.docId}/${page2.chunks[0].id}`, { body: { pageContent: "" } }),
      400,
    );
  });

  it("deletes a loader with its chunks and files, keeping its vectors", async () => {
    const store = await newStore();
    const res = await upsertForm(
      store.id,
      form([{ name: "notes.txt", type: "text/plain", data: paragraphs(4, "notes") }], { ...LOCAL, splitter: SPLIT_PARAGRAPHS }),
    );
    const up = await res.json<any>();
    expect(res.status).toBe(200);
    const other = await upsert(store.id, { loader: { name: "plainText", config: { text: "Keep me." } } });
    const before = await snapshot(store.id);
    expect(before.files).toEqual([`docustore/${store.id}/${up.docId}/notes.txt`]);

    expect(await json("DELETE", `/document-store/loader/${store.id}/${up.docId}`)).toEqual({ deleted: 1 });
    const after = await snapshot(store.id);
    expect(after.chunks).toBe(1);
    expect(after.files).toEqual([]);
    expect(after.vectors).toBe(before.vectors); // vectors go with DELETE /vectorstore
    const loaders = loadersOf(await json("GET", `/document-store/store/${store.id}`));
    expect(loaders.map((l: any) => l.id)).toEqual([other.docId]);
    await expectError(await call("DELETE", `/document-store/loader/${store.id}/${up.docId}`), 404);
    await expectError(await call("DELETE", `/document-store/loader/${uuid()}/${up.docId}`), 404);
  });

  it("deleting a store removes its chunks, vectors, record-manager rows, upsert history and R2 files", async () => {
    const store = await newStore();
    const other = await newStore("other");
    const rm = { name: "SQLiteRecordManager", config: { cleanup: "incremental" } };
    await upsertForm(
      store.id,
      form([{ name: "a.txt", type: "text/plain", data: paragraphs(5) }], { ...LOCAL, recordManager: rm, splitter: SPLIT_PARAGRAPHS }),
    );
    await upsert(other.id, {
      ...LOCAL,
      recordManager: rm,
      metadata: { source: "other" },
      loader: { name: "plainText", config: { text: "Other store text." } },
    });
    const before = await snapshot(store.id);
    expect(before).toMatchObject({ chunks: 5, vectors: 5, embeddings: 5, records: 5, history: 1 });
    expect(before.files).toHaveLength(1);
    const otherBefore = await snapshot(other.id);

    expect(await json("DELETE", `/document-store/store/${store.id}`)).toEqual({ deleted: 1 });
    expect(await snapshot(store.id)).toEqual({
      store: null,
      loaders: [],
      chunks: 0,
      vectors: 0,
      embeddings: 0,
      records: 0,
      history: 0,
      files: [],
    });
    expect(await snapshot(other.id)).toEqual(otherBefore);
  });
});

describe("document stores: statuses", () => {
  it("EMPTY → SYNC (chunks) → UPSERTED; STALE while a loader is not SYNC; back to SYNC when vectors are deleted", async () => {
    const store = await newStore();
    expect(store.status).toBe("EMPTY");
    const rm = { name: "SQLiteRecordManager", config: {} };
    const up = await upsert(store.id, { ...LOCAL, recordManager: rm, loader: { name: "plainText", config: { text: "Status text." } } });
    let s = await json("GET", `/document-store/store/${store.id}`);
    expect(s.status).toBe("UPSERTED");
    expect(loadersOf(s)[0]).toMatchObject({ id: up.docId, status: "SYNC", totalChunks: 1, totalChars: 12, files: [] });

    // A loader not SYNC makes the store read STALE.
    const setLoaderStatus = (status: string) =>
      env.DB.prepare("UPDATE document_store_loader SET status = ? WHERE id = ?").bind(status, up.docId).run();
    await setLoaderStatus("STALE");
    expect((await json("GET", `/document-store/store/${store.id}`)).status).toBe("STALE");
    await setLoaderStatus("SYNC");

    expect(await json("DELETE", `/document-store/vectorstore/${store.id}`)).toEqual({ deleted: 1 });
    s = await json("GET", `/document-store/store/${store.id}`);
    expect(s.status).toBe("SYNC");
    expect((await snapshot(store.id)).vectors).toBe(0);
  });
});
