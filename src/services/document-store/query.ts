// Vector store query, as Flowise: a retriever over the store's saved embedding and vector store,
// each hit matched back to its chunk for id and chunkNo. A store with a linked search (the local
// one) answers in one D1 read after ranking, which also confirms the store's configuration this
// isolate built it from; the others are linked here (chunk hints, then a chunk lookup).
import type { Document, DocumentInterface } from "@langchain/core/documents";
import { eq, sql } from "drizzle-orm";
import { documentStore } from "../../db/schema";
import type { Db } from "../../env";
import { badRequest, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { stmt } from "../../providers/vectorstores/d1-json";
import type { DocVectorStore, LinkedHit } from "../../providers/vectorstores/types";
import { buildComponents } from "./components";
import { getStoreRow } from "./stores";
import type { DocStoreDeps } from "./types";
import { type ComponentsRow, savedComponents } from "./vectors";

export const DEFAULT_TOP_K = 4;

function topKOf(value: unknown, max: number): number {
  if (value === undefined || value === null || value === "") return DEFAULT_TOP_K;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < 1) throw badRequest("inputs.topK must be a whole number of at least 1");
  if (n > max) throw badRequest(`inputs.topK must be at most ${max} for this vector store`);
  return n;
}

/**
 * The component columns of stores this isolate queried lately: a repeated query builds from them
 * at once and confirms them in its one read (a changed or deleted store is read and built again).
 */
const recentRows = new Map<string, ComponentsRow>();
const RECENT_ROWS = 256;

const sameComponents = (a: ComponentsRow, b: ComponentsRow) =>
  a.embeddingConfig === b.embeddingConfig && a.vectorStoreConfig === b.vectorStoreConfig && a.recordManagerConfig === b.recordManagerConfig;

function remember(row: ComponentsRow): void {
  recentRows.delete(row.id);
  recentRows.set(row.id, {
    id: row.id,
    embeddingConfig: row.embeddingConfig,
    vectorStoreConfig: row.vectorStoreConfig,
    recordManagerConfig: row.recordManagerConfig,
  });
  if (recentRows.size > RECENT_ROWS) recentRows.delete(recentRows.keys().next().value as string);
}

type Query = { storeId: string; query: string; inputs?: Record<string, unknown> };

export async function queryStore(deps: DocStoreDeps, input: Query) {
  let row: ComponentsRow = recentRows.get(input.storeId) ?? (await getStoreRow(deps, input.storeId));
  for (;;) {
    const built = await buildComponents(deps, row.id, savedComponents(row));
    const k = topKOf(input.inputs?.topK, built.store.maxTopK);
    const started = Date.now();
    if (!built.store.searchLinked) {
      const hits = await linkByHints(deps.db, built.store, row.id, await built.store.similaritySearchWithScore(input.query, k));
      return answer(deps.db, row.id, hits, Date.now() - started);
    }
    const guard = stmt(
      deps.db
        .select({
          id: documentStore.id,
          embeddingConfig: documentStore.embeddingConfig,
          vectorStoreConfig: documentStore.vectorStoreConfig,
          recordManagerConfig: documentStore.recordManagerConfig,
        })
        .from(documentStore)
        .where(eq(documentStore.id, row.id)),
    );
    const found = await built.store.searchLinked(input.query, k, { chunkStoreId: row.id, also: guard });
    const timeTaken = Date.now() - started;
    const current = found.also[0] as ComponentsRow | undefined;
    if (!current) {
      recentRows.delete(row.id);
      throw notFound(`Document store ${row.id} not found`);
    }
    if (sameComponents(current, row)) {
      remember(current);
      return answer(deps.db, row.id, found.hits, timeTaken);
    }
    row = current; // configured differently since this isolate built it: build again
  }
}

const docIdOf = (d: DocumentInterface) => (typeof d.metadata?.docId === "string" ? d.metadata.docId : "");

/** The answer: each hit with its chunk's id and number; hits without a linked chunk are matched by text. */
async function answer(db: Db, storeId: string, hits: LinkedHit[], timeTaken: number) {
  // A hit whose chunk was edited or re-processed since it was indexed: matched by its text alone.
  type Found = { id: string; chunkNo: number; docId: string; pageContent: string };
  const key = (docId: string, text: string) => `${docId}\u0000${text}`;
  const missing = hits.filter((h) => !h.chunk);
  const byText = new Map<string, Found>();
  if (missing.length) {
    const pairs = JSON.stringify(missing.map((h) => [docIdOf(h.document), h.document.pageContent]));
    const sameText = sql`c.docId = json_extract(w.value, '$[0]') AND c.pageContent = json_extract(w.value, '$[1]')`;
    const found = await db.all<Found>(sql`
      SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${pairs}) w
      CROSS JOIN document_store_file_chunk c ON c.storeId = ${storeId} AND ${sameText}`);
    for (const c of found) byText.set(key(c.docId, c.pageContent), c);
  }
  const docs = hits.map(({ document: d, chunk: linked }) => {
    const chunk = linked ?? byText.get(key(docIdOf(d), d.pageContent));
    // A vector whose chunk was edited or deleted since: Flowise's answer, chunkNo -1.
    return { pageContent: d.pageContent, metadata: d.metadata, id: chunk?.id ?? newId(), chunkNo: chunk?.chunkNo ?? -1 };
  });
  return { timeTaken, docs };
}

/**
 * Links hits to their chunks for stores without searchLinked: by the chunk number each vector was
 * indexed from (an index lookup), confirmed by the text. (CROSS JOIN keeps the few hits as the
 * outer loop: left to itself SQLite may walk the store's every chunk instead.)
 */
async function linkByHints(
  db: Db,
  store: DocVectorStore,
  storeId: string,
  scored: Array<[DocumentInterface, number]>,
): Promise<LinkedHit[]> {
  const hints = await store.chunkHints(scored.map(([d]) => d.id ?? ""));
  const wanted = scored.map(([d]) => [docIdOf(d), hints.get(d.id ?? "")?.chunkNo ?? -1]);
  const sameNo = sql`c.docId = json_extract(w.value, '$[0]') AND c.chunkNo = json_extract(w.value, '$[1]')`;
  const found = scored.length
    ? await db.all<{ id: string; chunkNo: number; docId: string; pageContent: string }>(sql`
        SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${JSON.stringify(wanted)}) w
        CROSS JOIN document_store_file_chunk c ON c.storeId = ${storeId} AND ${sameNo}`)
    : [];
  return scored.map(([d, score]) => {
    const c = found.find((f) => f.docId === docIdOf(d) && f.pageContent === d.pageContent);
    return { document: d as Document, score, chunk: c ? { id: c.id, chunkNo: c.chunkNo } : null };
  });
}
