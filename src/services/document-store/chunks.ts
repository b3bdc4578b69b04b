// Chunk pages (50 per page, by chunkNo), chunk edit and delete, and loader delete. Each change is
// one D1 batch whose statements are conditional on the chunk still holding the text that was read,
// so the loader's totalChunks/totalChars move by exactly what changed, even against concurrent
// edits or an upsert replacing the loader's chunks (then the edit finds nothing: 404).
// Chunk edits do not touch vectors, as in Flowise: a refresh re-indexes.
import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { documentStore, documentStoreFileChunk, documentStoreLoader } from "../../db/schema";
import { conflict, notFound } from "../../errors";
import { Document } from "@langchain/core/documents";
import { nowIso } from "../../lib/time";
import { runBatch, runBatchPaced } from "../../providers/vectorstores/d1-json";
import { deleteLoaderFiles } from "./files";
import { type StoreState, getStoreState } from "./stores";
import type { LoaderEntry } from "./types";
import type { Deps } from "../deps";

export const CHUNK_PAGE_SIZE = 50;
const chunks = documentStoreFileChunk;
/** Attempts of a chunk change that keeps finding the chunk changed by someone else in between. */
const ATTEMPTS = 5;

function loaderOf(store: StoreState, loaderId: string): LoaderEntry {
  const loader = store.loaders.find((l) => l.id === loaderId);
  if (!loader) throw notFound(`Document loader ${loaderId} not found in document store ${store.row.id}`);
  return loader;
}

export async function chunkPage({ db }: Deps<"db">, storeId: string, loaderId: string, pageNo: number) {
  const store = await getStoreState({ db }, storeId);
  const file = loaderId === "all" ? undefined : loaderOf(store, loaderId);
  const where = file ? and(eq(chunks.storeId, storeId), eq(chunks.docId, loaderId)) : eq(chunks.storeId, storeId);
  const [page, totals] = await db.batch([
    db
      .select()
      .from(chunks)
      .where(where)
      .orderBy(asc(chunks.docId), asc(chunks.chunkNo))
      .limit(CHUNK_PAGE_SIZE)
      .offset((pageNo - 1) * CHUNK_PAGE_SIZE),
    db.select({ n: count() }).from(chunks).where(where),
  ]);
  return {
    chunks: page,
    count: totals[0]?.n ?? 0,
    characters: file ? file.totalChars || 0 : store.loaders.reduce((n, l) => n + (l.totalChars || 0), 0),
    ...(file ? { file: { ...file } as Record<string, unknown> } : {}),
    currentPage: pageNo,
    storeName: store.row.name,
    description: store.row.description,
    docId: loaderId,
  };
}

async function findChunk(db: Db, storeId: string, loaderId: string, chunkId: string) {
  const chunk = await db
    .select()
    .from(chunks)
    .where(and(eq(chunks.id, chunkId), eq(chunks.storeId, storeId), eq(chunks.docId, loaderId)))
    .get();
  if (!chunk) throw notFound(`Chunk ${chunkId} not found in loader ${loaderId}`);
  return chunk;
}

// The chunk as it was read: `?` id, storeId, docId, pageContent.
const UNCHANGED = "id = ? AND storeId = ? AND docId = ? AND pageContent = ?";

/**
 * Runs a change to a chunk against the chunk as last read: `attempt` answers whether it found the
 * chunk unchanged (and so applied); otherwise the chunk is read again — 404 once it is gone.
 */
async function withChunk<T>(
  db: Db,
  storeId: string,
  loaderId: string,
  chunkId: string,
  attempt: (chunk: typeof chunks.$inferSelect) => Promise<T | undefined>,
): Promise<T> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const done = await attempt(await findChunk(db, storeId, loaderId, chunkId));
    if (done !== undefined) return done;
  }
  throw conflict(`Chunk ${chunkId} keeps changing under concurrent edits: try again`);
}

/** Edits a chunk's text (and metadata); answers the page the chunk is on. */
export async function editChunk(
  { db }: Deps<"db">,
  storeId: string,
  loaderId: string,
  chunkId: string,
  edit: { pageContent: string; metadata?: Record<string, unknown> | string },
) {
  loaderOf(await getStoreState({ db }, storeId), loaderId);
  const position = await withChunk(db, storeId, loaderId, chunkId, async (chunk) => {
    const was = [chunkId, storeId, loaderId, chunk.pageContent];
    const metadata =
      edit.metadata === undefined ? chunk.metadata : typeof edit.metadata === "string" ? edit.metadata : JSON.stringify(edit.metadata);
    const [, changed, before] = await runBatch(db, [
      {
        sql:
          `UPDATE document_store_loader SET totalChars = totalChars + ?, updatedDate = ? WHERE id = ? AND ` +
          `storeId = ? AND EXISTS (SELECT 1 FROM document_store_file_chunk WHERE ${UNCHANGED})`,
        params: [edit.pageContent.length - chunk.pageContent.length, nowIso(), loaderId, storeId, ...was],
      },
      {
        sql: `UPDATE document_store_file_chunk SET pageContent = ?, metadata = ? WHERE ${UNCHANGED}`,
        params: [edit.pageContent, metadata, ...was],
      },
      // Where the chunk is in its loader: the page to answer.
      {
        sql: "SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ? AND docId = ? AND chunkNo <= ?",
        params: [storeId, loaderId, chunk.chunkNo],
      },
    ]);
    return changed.meta.changes ? Math.max(1, (before.results[0] as { n: number } | undefined)?.n ?? 1) : undefined;
  });
  return chunkPage({ db }, storeId, loaderId, Math.ceil(position / CHUNK_PAGE_SIZE));
}

export async function deleteChunk({ db }: Deps<"db">, storeId: string, loaderId: string, chunkId: string): Promise<{ deleted: number }> {
  loaderOf(await getStoreState({ db }, storeId), loaderId);
  return withChunk(db, storeId, loaderId, chunkId, async (chunk) => {
    const was = [chunkId, storeId, loaderId, chunk.pageContent];
    const [, gone] = await runBatch(db, [
      {
        sql:
          `UPDATE document_store_loader SET totalChunks = MAX(0, totalChunks - 1), totalChars = MAX(0, ` +
          `totalChars - ?), updatedDate = ? WHERE id = ? AND storeId = ? AND EXISTS (SELECT 1 FROM ` +
          `document_store_file_chunk WHERE ${UNCHANGED})`,
        params: [chunk.pageContent.length, nowIso(), loaderId, storeId, ...was],
      },
      { sql: `DELETE FROM document_store_file_chunk WHERE ${UNCHANGED}`, params: was },
    ]);
    return gone.meta.changes ? { deleted: gone.meta.changes } : undefined;
  });
}

/**
 * Removes a loader, its chunks and its files; its vectors stay (DELETE vectorstore removes those).
 * An upsert still working on it finds its lease gone and writes nothing more.
 */
export async function deleteLoader({ db, files }: Deps<"db" | "files">, storeId: string, loaderId: string): Promise<{ deleted: number }> {
  loaderOf(await getStoreState({ db }, storeId), loaderId);
  const [, gone] = await db.batch([
    db.delete(chunks).where(and(eq(chunks.storeId, storeId), eq(chunks.docId, loaderId))),
    db
      .delete(documentStoreLoader)
      .where(and(eq(documentStoreLoader.id, loaderId), eq(documentStoreLoader.storeId, storeId)))
      .returning({ id: documentStoreLoader.id }),
    // The last loader gone: the store is EMPTY again (unless its vectors are still there).
    db
      .update(documentStore)
      .set({ status: "EMPTY", updatedDate: nowIso() })
      .where(
        and(
          eq(documentStore.id, storeId),
          ne(documentStore.status, "UPSERTED"),
          sql`NOT EXISTS (SELECT 1 FROM ${documentStoreLoader} WHERE ${documentStoreLoader.storeId} = ${storeId})`,
        ),
      ),
  ]);
  if (!gone.length) throw notFound(`Document loader ${loaderId} not found in document store ${storeId}`);
  await deleteLoaderFiles(files, storeId, loaderId);
  return { deleted: 1 };
}

/**
 * A loader's stored chunks numbered after `after` and at most `upTo`, `limit` of them in chunkNo
 * order (a stopped run's chunks read back to be indexed): their ids, documents and first and last numbers.
 */
export async function storedChunkPage(
  db: Db,
  loader: { storeId: string; entryId: string },
  after: number,
  upTo: number,
  limit: number,
): Promise<{ ids: string[]; chunks: Document[]; firstNo: number; lastNo: number }> {
  const [read] = await runBatchPaced(db, [
    {
      sql:
        "SELECT id, chunkNo, pageContent, metadata FROM document_store_file_chunk WHERE storeId = ? AND docId = ? " +
        "AND chunkNo > ? AND chunkNo <= ? ORDER BY chunkNo LIMIT ?",
      params: [loader.storeId, loader.entryId, after, upTo, limit],
    },
  ]);
  const rows = read.results as Array<{ id: string; chunkNo: number; pageContent: string; metadata: string }>;
  return {
    ids: rows.map((r) => r.id),
    chunks: rows.map((r) => new Document({ pageContent: r.pageContent, metadata: JSON.parse(r.metadata) as Record<string, unknown> })),
    firstNo: rows[0]?.chunkNo ?? after,
    lastNo: rows.at(-1)?.chunkNo ?? after,
  };
}
