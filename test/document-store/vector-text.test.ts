// Issue 32 item 4: an upsert writes each chunk's text once. A document store's vectors point at
// their chunk (vector_document.chunkId) instead of holding a copy of its text; queries read the
// text there. What a user sees must not change: the query answers the indexed text and metadata,
// rows written before (text in the row) still answer, a vector whose chunk is edited or deleted
// keeps answering what it was indexed with (migration 0019's triggers), a deleted store answers
// nothing, and a vector store used outside a document store keeps its own text.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";
import { LOCAL, form, newStore, upsert } from "../routes/document-store-helpers";
import { multipart } from "../security/pinging";
import { LocalHashEmbeddings } from "../../src/providers/embeddings/local-hash";
import { LocalD1VectorStore } from "../../src/providers/vectorstores/local";
import { runBatch, valuesInsert } from "../../src/providers/vectorstores/d1-json";
import { createDb } from "../../src/db";
import { isUuid, orderedIds } from "../../src/lib/ids";

const SPLIT_PARAGRAPHS = { name: "characterTextSplitter", config: { chunkSize: 1, chunkOverlap: 0, separator: "\n\n" } };
const paragraph = (i: number, topic = "harbour") => `Paragraph ${i} about the ${topic} marker${i}x and its lanterns.`;
const textOf = (n: number, topic?: string) => Array.from({ length: n }, (_, i) => paragraph(i + 1, topic)).join("\n\n");

const query = async (storeId: string, q: string, topK = 1) =>
  (await json("POST", "/document-store/vectorstore/query", { body: { storeId, query: q, inputs: { topK } } })).docs as Array<{
    pageContent: string;
    metadata: Record<string, unknown>;
    id: string;
    chunkNo: number;
  }>;

/** A text file upserted through multipart: the streamed path (read, split and indexed a window at a time). */
async function upsertFile(storeId: string, text: string, fields: Record<string, unknown> = {}) {
  const body = await multipart(
    form([{ name: "notes.txt", type: "text/plain", data: text }], {
      ...LOCAL,
      splitter: SPLIT_PARAGRAPHS,
      metadata: { team: "docs" },
      ...fields,
    }),
  );
  const res = await call("POST", `/document-store/upsert/${storeId}`, { raw: body.raw, headers: body.headers });
  const answer = await res.json<any>();
  expect(res.status, JSON.stringify(answer)).toBe(200);
  return answer as { docId: string; numAdded: number };
}

type Row = { id: string; own: string; chunkId: string | null; chunkText: string | null };
async function vectorRows(namespace: string): Promise<Row[]> {
  return (
    await env.DB.prepare(
      "SELECT v.id, v.pageContent AS own, v.chunkId, c.pageContent AS chunkText FROM vector_document v " +
        "LEFT JOIN document_store_file_chunk c ON c.id = v.chunkId WHERE v.namespace = ?",
    )
      .bind(namespace)
      .all<Row>()
  ).results;
}

const chunk = async (storeId: string, no: number) =>
  env.DB.prepare("SELECT id, docId, pageContent FROM document_store_file_chunk WHERE storeId = ? AND chunkNo = ?")
    .bind(storeId, no)
    .first<{ id: string; docId: string; pageContent: string }>();

describe("chunk text written once", () => {
  it("a streamed upsert keeps no copy of the text in its vector rows; a query answers the chunk's text, metadata, id, number", async () => {
    const store = await newStore();
    const up = await upsertFile(store.id, textOf(30));
    expect(up.numAdded).toBe(30);
    const rows = await vectorRows(store.id);
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.own === "" && r.chunkId && r.chunkText?.startsWith("Paragraph "))).toBe(true);

    const [hit] = await query(store.id, "marker17x");
    const c17 = await chunk(store.id, 17);
    expect(hit.pageContent).toBe(paragraph(17));
    expect(hit).toMatchObject({ id: c17!.id, chunkNo: 17 });
    expect(hit.metadata).toMatchObject({ docId: up.docId, team: "docs", source: "notes.txt" });
  });

  it("the whole-file path (a JSON body) points at its chunks too", async () => {
    const store = await newStore();
    const up = await upsert(store.id, {
      ...LOCAL,
      loader: { name: "plainText", config: { text: textOf(12) } },
      splitter: SPLIT_PARAGRAPHS,
    });
    expect(up.numAdded).toBe(12);
    expect((await vectorRows(store.id)).every((r) => r.own === "" && r.chunkText !== null)).toBe(true);
    const [hit] = await query(store.id, "marker5x");
    expect(hit).toMatchObject({ pageContent: paragraph(5), chunkNo: 5 });
  });

  it("POST /vectorstore/insert (how an imported store gets its vectors) points at the stored chunks too", async () => {
    const store = await newStore();
    await upsertFile(store.id, textOf(7));
    const before = new Set((await vectorRows(store.id)).map((r) => r.id));
    const inserted = await json("POST", "/document-store/vectorstore/insert", { body: { storeId: store.id } });
    expect(inserted.numAdded).toBe(7);
    const rows = await vectorRows(store.id);
    expect(rows).toHaveLength(7);
    expect(rows.every((r) => !before.has(r.id) && r.own === "" && r.chunkText?.startsWith("Paragraph "))).toBe(true);
    expect((await query(store.id, "marker6x"))[0]).toMatchObject({ pageContent: paragraph(6), chunkNo: 6 });
  });

  it("rows written before the change (their own text, no chunkId) still answer, linked to their chunk", async () => {
    const store = await newStore();
    await upsertFile(store.id, textOf(10));
    // The layout before migration 0019: every row holds its text.
    await env.DB.prepare(
      "UPDATE vector_document SET pageContent = (SELECT c.pageContent FROM document_store_file_chunk c WHERE c.id = " +
        "vector_document.chunkId), chunkId = NULL WHERE namespace = ?",
    )
      .bind(store.id)
      .run();
    expect((await vectorRows(store.id)).every((r) => r.own.startsWith("Paragraph ") && r.chunkId === null)).toBe(true);
    const [hit] = await query(store.id, "marker4x");
    expect(hit).toMatchObject({ pageContent: paragraph(4), chunkNo: 4, id: (await chunk(store.id, 4))!.id });
  });

  it("a vector whose chunk is edited keeps answering the text it was indexed with (as before: unlinked, chunkNo -1)", async () => {
    const store = await newStore();
    const up = await upsertFile(store.id, textOf(8));
    const c3 = (await chunk(store.id, 3))!;
    await json("PUT", `/document-store/chunks/${store.id}/${up.docId}/${c3.id}`, {
      body: { pageContent: "Edited: nothing about it now." },
    });
    const row = (await vectorRows(store.id)).find((r) => r.own === paragraph(3));
    expect(row?.chunkId).toBeNull();
    const [hit] = await query(store.id, "marker3x");
    expect(hit).toMatchObject({ pageContent: paragraph(3), chunkNo: -1 });
    // The other chunks' vectors still read theirs.
    expect((await vectorRows(store.id)).filter((r) => r.chunkId !== null)).toHaveLength(7);
  });

  it("deleting a chunk or its loader leaves the vectors (their contract) answering their indexed text", async () => {
    const store = await newStore();
    const up = await upsertFile(store.id, textOf(6));
    const c2 = (await chunk(store.id, 2))!;
    await json("DELETE", `/document-store/chunks/${store.id}/${up.docId}/${c2.id}`);
    expect((await query(store.id, "marker2x"))[0]).toMatchObject({ pageContent: paragraph(2), chunkNo: -1 });

    expect(await json("DELETE", `/document-store/loader/${store.id}/${up.docId}`)).toEqual({ deleted: 1 });
    const rows = await vectorRows(store.id);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.chunkId === null && r.own.startsWith("Paragraph "))).toBe(true);
    const hits = await query(store.id, "marker6x lanterns", 6);
    expect(hits.map((h) => h.pageContent).sort()).toEqual(Array.from({ length: 6 }, (_, i) => paragraph(i + 1)).sort());
  });

  it("re-upserting a loader replaces its vectors: the old text is answered by nothing", async () => {
    const store = await newStore();
    const up = await upsertFile(store.id, textOf(5, "harbour"));
    await upsertFile(store.id, textOf(5, "glacier"), { docId: up.docId, replaceExisting: true });
    const rows = await vectorRows(store.id);
    expect(rows).toHaveLength(5);
    expect(rows.every((r) => r.own === "" && r.chunkText?.includes("glacier"))).toBe(true);
    const hits = await query(store.id, "harbour", 5);
    expect(hits.every((h) => h.pageContent.includes("glacier"))).toBe(true);
  });

  it("deleting the store removes its vectors and every copy of its text", async () => {
    const store = await newStore();
    await upsertFile(store.id, textOf(10, "quarry"));
    await json("DELETE", `/document-store/store/${store.id}`);
    const left = async (sql: string) => (await env.DB.prepare(sql).bind(store.id).first<{ n: number }>())!.n;
    expect(await left("SELECT COUNT(*) AS n FROM vector_document WHERE namespace = ?")).toBe(0);
    expect(await left("SELECT COUNT(*) AS n FROM local_embedding WHERE namespace = ?")).toBe(0);
    expect(await left("SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ?")).toBe(0);
    const copies = await env.DB.prepare("SELECT COUNT(*) AS n FROM vector_document WHERE pageContent LIKE '%the quarry marker%'").first<{
      n: number;
    }>();
    expect(copies!.n).toBe(0);
    await json("POST", "/document-store/vectorstore/query", { body: { storeId: store.id, query: "quarry" } }, 404);
  });

  it("two upserts into one store at once both keep every vector and its text", async () => {
    const store = await newStore();
    const [a, b] = await Promise.all([upsertFile(store.id, textOf(20, "copper")), upsertFile(store.id, textOf(20, "willow"))]);
    expect(a.numAdded + b.numAdded).toBe(40);
    const rows = await vectorRows(store.id);
    expect(rows).toHaveLength(40);
    expect(rows.filter((r) => r.chunkText?.includes("copper"))).toHaveLength(20);
    expect(rows.filter((r) => r.chunkText?.includes("willow"))).toHaveLength(20);
    expect((await query(store.id, "willow marker9x"))[0].pageContent).toBe(paragraph(9, "willow"));
  });

  it("a chunk replaced by an import (INSERT OR REPLACE) gives its vectors their text first", async () => {
    const store = await newStore();
    await upsertFile(store.id, textOf(3));
    const c1 = (await chunk(store.id, 1))!;
    await env.DB.prepare(
      "INSERT OR REPLACE INTO document_store_file_chunk (id, docId, storeId, chunkNo, pageContent, metadata) VALUES (?, ?, ?, 1, ?, '{}')",
    )
      .bind(c1.id, c1.docId, store.id, "Imported text.")
      .run();
    const rows = await vectorRows(store.id);
    expect(rows.find((r) => r.own === paragraph(1))?.chunkId).toBeNull();
    expect((await query(store.id, "marker1x"))[0].pageContent).toBe(paragraph(1));
  });

  it("a local vector store used outside a document store keeps its own text", async () => {
    const db = createDb(env.DB);
    const store = new LocalD1VectorStore(new LocalHashEmbeddings({ dims: 256 }), db, `flow-${crypto.randomUUID()}`);
    await store.addDocuments([
      { pageContent: "Orchards bloom in spring.", metadata: { k: 1 } },
      { pageContent: "Glaciers move slowly.", metadata: {} },
    ]);
    const rows = await vectorRows(store.namespace);
    expect(rows.map((r) => [r.own, r.chunkId]).sort()).toEqual([
      ["Glaciers move slowly.", null],
      ["Orchards bloom in spring.", null],
    ]);
    const [[doc]] = await store.similaritySearchWithScore("orchards spring", 1);
    expect(doc).toMatchObject({ pageContent: "Orchards bloom in spring.", metadata: { k: 1 } });
  });
});

describe("orderedIds (an upsert's chunk ids)", () => {
  it("are UUIDs, distinct, and ascending within a call and across calls", async () => {
    const a = orderedIds(5000);
    await new Promise((r) => setTimeout(r, 2));
    const b = orderedIds(3);
    const all = [...a, ...b];
    expect(all.every(isUuid)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual(all);
  });
});

describe("valuesInsert (the local store's vector rows)", () => {
  it("binds at most 100 values a statement and writes every row as given", async () => {
    const namespace = `values-${crypto.randomUUID()}`;
    const rows = Array.from({ length: 1000 }, (_, i) => [`id-${i}`, 3, i / 7, `v'"\n${i}`]);
    const statements = valuesInsert("INSERT INTO local_embedding (namespace, id, dims, scale, vector)", [namespace], rows);
    expect(statements.every((s) => s.params.length <= 100)).toBe(true);
    await runBatch(createDb(env.DB), statements);
    const stored = (
      await env.DB.prepare("SELECT id, dims, scale, vector FROM local_embedding WHERE namespace = ? ORDER BY rowid").bind(namespace).all()
    ).results;
    expect(stored.map((r) => [r.id, r.dims, r.scale, r.vector])).toEqual(rows);
  });
});
