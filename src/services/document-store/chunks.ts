// Chunk pages (50 per page, by chunkNo), chunk edit and delete (keeping the loader's totals right)
// and loader delete. Chunk edits do not touch vectors, as in Flowise: a refresh re-indexes.
import { and, asc, count, eq, lte } from "drizzle-orm";
import type { Db } from "../../env";
import { documentStoreFileChunk } from "../../db/schema";
import { notFound } from "../../errors";
import { deleteLoaderFiles } from "./files";
import { type StoreRow, getStoreRow, parseLoaders, storeUpdate } from "./stores";
import type { LoaderEntry } from "./types";

export const CHUNK_PAGE_SIZE = 50;
const chunks = documentStoreFileChunk;

function loaderOf(row: StoreRow, loaderId: string): { loaders: LoaderEntry[]; loader: LoaderEntry } {
  const loaders = parseLoaders(row);
  const loader = loaders.find((l) => l.id === loaderId);
  if (!loader) throw notFound(`Document loader ${loaderId} not found in document store ${row.id}`);
  return { loaders, loader };
}

export async function chunkPage(db: Db, storeId: string, loaderId: string, pageNo: number) {
  const row = await getStoreRow(db, storeId);
  const loaders = parseLoaders(row);
  let file: LoaderEntry | undefined;
  if (loaderId !== "all") file = loaderOf(row, loaderId).loader;
  const where = file ? and(eq(chunks.storeId, storeId), eq(chunks.docId, loaderId)) : eq(chunks.storeId, storeId);
  const [page, totals] = await db.batch([
    db.select().from(chunks).where(where).orderBy(asc(chunks.docId), asc(chunks.chunkNo)).limit(CHUNK_PAGE_SIZE).offset((pageNo - 1) * CHUNK_PAGE_SIZE),
    db.select({ n: count() }).from(chunks).where(where),
  ]);
  return {
    chunks: page,
    count: totals[0]?.n ?? 0,
    characters: file ? file.totalChars || 0 : loaders.reduce((n, l) => n + (l.totalChars || 0), 0),
    ...(file ? { file: { ...file } as Record<string, unknown> } : {}),
    currentPage: pageNo,
    storeName: row.name,
    description: row.description,
    docId: loaderId,
  };
}

async function findChunk(db: Db, storeId: string, loaderId: string, chunkId: string) {
  const chunk = await db.select().from(chunks).where(and(eq(chunks.id, chunkId), eq(chunks.storeId, storeId), eq(chunks.docId, loaderId))).get();
  if (!chunk) throw notFound(`Chunk ${chunkId} not found in loader ${loaderId}`);
  return chunk;
}

/** Edits a chunk's text (and metadata); answers the page the chunk is on. */
export async function editChunk(db: Db, storeId: string, loaderId: string, chunkId: string, edit: { pageContent: string; metadata?: Record<string, unknown> | string }) {
  const row = await getStoreRow(db, storeId);
  const { loaders, loader } = loaderOf(row, loaderId);
  const chunk = await findChunk(db, storeId, loaderId, chunkId);
  loader.totalChars = (loader.totalChars || 0) - chunk.pageContent.length + edit.pageContent.length;
  const metadata = edit.metadata === undefined ? chunk.metadata : typeof edit.metadata === "string" ? edit.metadata : JSON.stringify(edit.metadata);
  const [, , before] = await db.batch([
    db.update(chunks).set({ pageContent: edit.pageContent, metadata }).where(eq(chunks.id, chunkId)),
    storeUpdate(db, storeId, { loaders: JSON.stringify(loaders) }),
    db.select({ n: count() }).from(chunks).where(and(eq(chunks.storeId, storeId), eq(chunks.docId, loaderId), lte(chunks.chunkNo, chunk.chunkNo))),
  ]);
  const position = Math.max(1, before[0]?.n ?? 1);
  return chunkPage(db, storeId, loaderId, Math.ceil(position / CHUNK_PAGE_SIZE));
}

export async function deleteChunk(db: Db, storeId: string, loaderId: string, chunkId: string): Promise<{ deleted: number }> {
  const row = await getStoreRow(db, storeId);
  const { loaders, loader } = loaderOf(row, loaderId);
  const chunk = await findChunk(db, storeId, loaderId, chunkId);
  loader.totalChunks = Math.max(0, (loader.totalChunks || 0) - 1);
  loader.totalChars = Math.max(0, (loader.totalChars || 0) - chunk.pageContent.length);
  const [gone] = await db.batch([
    db.delete(chunks).where(eq(chunks.id, chunkId)).returning({ id: chunks.id }),
    storeUpdate(db, storeId, { loaders: JSON.stringify(loaders) }),
  ]);
  return { deleted: gone.length };
}

/** Removes a loader, its chunks and its files; its vectors stay (DELETE vectorstore removes those). */
export async function deleteLoader(db: Db, bucket: R2Bucket, storeId: string, loaderId: string): Promise<{ deleted: number }> {
  const row = await getStoreRow(db, storeId);
  const { loaders } = loaderOf(row, loaderId);
  const rest = loaders.filter((l) => l.id !== loaderId);
  await db.batch([
    db.delete(chunks).where(and(eq(chunks.storeId, storeId), eq(chunks.docId, loaderId))),
    storeUpdate(db, storeId, { loaders: JSON.stringify(rest), ...(rest.length === 0 && row.status !== "UPSERTED" ? { status: "EMPTY" as const } : {}) }),
  ]);
  await deleteLoaderFiles(bucket, storeId, loaderId);
  return { deleted: 1 };
}
