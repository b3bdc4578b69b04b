// Vector store query (as Flowise: a retriever over the store's saved embedding and vector store,
// each hit matched back to its chunk for id and chunkNo) and vector store delete (only what a
// record manager recorded, as the service document says).
import { sql } from "drizzle-orm";
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
  const hits = await built.store.similaritySearch(input.query, k);
  const timeTaken = Date.now() - started;

  // (CROSS JOIN keeps the few hits as the outer loop, each an index lookup: left to itself SQLite
  // may walk the store's every chunk instead.)
  // Match each hit to its chunk for the chunk's id and number: by the chunk number the vector was
  // indexed from (an index lookup), confirmed by the text; by the text alone when that fails
  // (the chunk was edited or re-processed since).
  const hints = await built.store.chunkHints(hits.map((h) => h.id ?? ""));
  type Found = { id: string; chunkNo: number; docId: string; pageContent: string };
  const docIdOf = (h: (typeof hits)[number]) => (typeof h.metadata?.docId === "string" ? h.metadata.docId : "");
  const byHint = hits.length
    ? await deps.db.all<Found>(sql`
        SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${JSON.stringify(hits.map((h) => [docIdOf(h), hints.get(h.id ?? "")?.chunkNo ?? -1]))}) w
        CROSS JOIN document_store_file_chunk c ON c.storeId = ${row.id} AND c.docId = json_extract(w.value, '$[0]') AND c.chunkNo = json_extract(w.value, '$[1]')`)
    : [];
  const key = (docId: string, text: string) => `${docId}\u0000${text}`;
  const byKey = new Map(byHint.map((c) => [key(c.docId, c.pageContent), c]));
  const missing = hits.filter((h) => !byKey.has(key(docIdOf(h), h.pageContent)));
  if (missing.length) {
    const found = await deps.db.all<Found>(sql`
      SELECT c.id, c.chunkNo, c.docId, c.pageContent FROM json_each(${JSON.stringify(missing.map((h) => [docIdOf(h), h.pageContent]))}) w
      CROSS JOIN document_store_file_chunk c ON c.storeId = ${row.id} AND c.docId = json_extract(w.value, '$[0]') AND c.pageContent = json_extract(w.value, '$[1]')`);
    for (const c of found) byKey.set(key(c.docId, c.pageContent), c);
  }
  const docs = hits.map((h) => {
    const chunk = byKey.get(key(docIdOf(h), h.pageContent));
    // A vector whose chunk was edited or deleted since: Flowise's answer, chunkNo -1.
    return { pageContent: h.pageContent, metadata: h.metadata, id: chunk?.id ?? newId(), chunkNo: chunk?.chunkNo ?? -1 };
  });
  return { timeTaken, docs };
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
