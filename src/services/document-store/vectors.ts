// Vector store query (as Flowise: a retriever over the store's saved embedding and vector store,
// each hit matched back to its chunk for id and chunkNo) and vector store delete (only what a
// record manager recorded, as the service document says).
import type { Document, DocumentInterface } from "@langchain/core/documents";
import { sql } from "drizzle-orm";
import type { Db } from "../../env";
import type { DocVectorStore, LinkedHit } from "../../providers/vectorstores/types";
import { badRequest } from "../../errors";
import { newId } from "../../lib/ids";
import { buildComponents, type VectorComponents } from "./components";
import { getStoreRow, parseComponent, settleStatus } from "./stores";
import type { DocStoreDeps } from "./types";

export const DEFAULT_TOP_K = 4;

export function savedComponents(row: Awaited<ReturnType<typeof getStoreRow>>): VectorComponents {
  const embedding = parseComponent(row.embeddingConfig);
  const vectorStore = parseComponent(row.vectorStoreConfig);
  if (!embedding || !vectorStore) throw badRequest(`Document store ${row.id} has no embedding and vector store configured yet: upsert it first`);
  return { embedding, vectorStore, recordManager: parseComponent(row.recordManagerConfig) };
}

function topKOf(value: unknown, max: number): number {
  if (value === undefined || value === null || value === "") return DEFAULT_TOP_K;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < 1) throw badRequest("inputs.topK must be a whole number of at least 1");
  if (n > max) throw badRequest(`inputs.topK must be at most ${max} for this vector store`);
  return n;
}

export async function queryStore(deps: DocStoreDeps, input: { storeId: string; query: string; inputs?: Record<string, unknown> }) {
  const row = await getStoreRow(deps.db, input.storeId);
  const built = await buildComponents(deps, row.id, savedComponents(row));
  const k = topKOf(input.inputs?.topK, built.store.maxTopK);
  const started = Date.now();
  const hits = built.store.searchLinked
    ? await built.store.searchLinked(input.query, k, row.id)
    : await linkByHints(deps.db, built.store, row.id, await built.store.similaritySearchWithScore(input.query, k));
  const timeTaken = Date.now() - started;

  // A hit whose chunk was edited or re-processed since it was indexed: matched by its text alone.
  type Found = { id: string; chunkNo: number; docId: string; pageContent: string };
  const key = (docId: string, text: string) => `${docId}\u0000${text}`;
  const missing = hits.filter((h) => !h.chunk);
  const byText = new Map<string, Found>();
  if (missing.length) {
    const found = await deps.db.all<Found>(sql`
      SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${JSON.stringify(missing.map((h) => [docIdOf(h.document), h.document.pageContent]))}) w
      CROSS JOIN document_store_file_chunk c ON c.storeId = ${row.id} AND c.docId = json_extract(w.value, '$[0]') AND c.pageContent = json_extract(w.value, '$[1]')`);
    for (const c of found) byText.set(key(c.docId, c.pageContent), c);
  }
  const docs = hits.map(({ document: d, chunk: linked }) => {
    const chunk = linked ?? byText.get(key(docIdOf(d), d.pageContent));
    // A vector whose chunk was edited or deleted since: Flowise's answer, chunkNo -1.
    return { pageContent: d.pageContent, metadata: d.metadata, id: chunk?.id ?? newId(), chunkNo: chunk?.chunkNo ?? -1 };
  });
  return { timeTaken, docs };
}

const docIdOf = (d: DocumentInterface) => (typeof d.metadata?.docId === "string" ? d.metadata.docId : "");

/**
 * Links hits to their chunks for stores without searchLinked: by the chunk number each vector was
 * indexed from (an index lookup), confirmed by the text. (CROSS JOIN keeps the few hits as the
 * outer loop: left to itself SQLite may walk the store's every chunk instead.)
 */
async function linkByHints(db: Db, store: DocVectorStore, storeId: string, scored: Array<[DocumentInterface, number]>): Promise<LinkedHit[]> {
  const hints = await store.chunkHints(scored.map(([d]) => d.id ?? ""));
  const wanted = scored.map(([d]) => [docIdOf(d), hints.get(d.id ?? "")?.chunkNo ?? -1]);
  const found = scored.length
    ? await db.all<{ id: string; chunkNo: number; docId: string; pageContent: string }>(sql`
        SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${JSON.stringify(wanted)}) w
        CROSS JOIN document_store_file_chunk c ON c.storeId = ${storeId} AND c.docId = json_extract(w.value, '$[0]') AND c.chunkNo = json_extract(w.value, '$[1]')`)
    : [];
  return scored.map(([d, score]) => {
    const c = found.find((f) => f.docId === docIdOf(d) && f.pageContent === d.pageContent);
    return { document: d as Document, score, chunk: c ? { id: c.id, chunkNo: c.chunkNo } : null };
  });
}

/** Deletes the vectors the record manager recorded (all, or one loader's); answers how many. */
export async function deleteStoreVectors(deps: DocStoreDeps, storeId: string, docId?: string): Promise<{ deleted: number }> {
  const row = await getStoreRow(deps.db, storeId);
  const components = savedComponents(row);
  if (!components.recordManager) throw badRequest(`Document store ${storeId} has no record manager: one is needed to know which vectors to delete`);
  const built = await buildComponents(deps, storeId, components);
  const rm = built.recordManager!.recordManager;
  const keys = await rm.listKeys(docId ? { docId } : {});
  if (keys.length) {
    await built.store.delete({ ids: keys });
    await rm.deleteKeys(keys);
  }
  if (!docId) await settleStatus(deps.db, storeId);
  return { deleted: keys.length };
}
