// Chunks into the store's vector store: through its record manager (LangChain's indexing
// semantics) when it has one, else replacing the loader's previous vectors.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { newId } from "../../lib/ids";
import { indexDocuments, type IndexResult } from "../../providers/recordmanager/indexing";
import type { DocVectorStore } from "../../providers/vectorstores/types";
import type { BuiltComponents } from "./components";

/** An upsert answers at most this many of its added documents (the rest are in the store). */
export const ADDED_DOCS_LIMIT = 1000;

export interface UpsertResult {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
  addedDocs: Array<{ pageContent: string; metadata: Record<string, unknown> }>;
  docId: string;
  storeId: string;
}

export interface IndexControl {
  fullCleanupSince?: number;
  skipFullCleanup?: boolean;
  /** A plan with more chunks than this is not run here: executePlan throws QueueInstead before writing anything. */
  queueAbove?: number;
}

/**
 * Starts embedding the chunks at once, so the model calls overlap the file and chunk writes that
 * come first; undefined with a record manager (it embeds only the chunks that changed).
 */
export function embedAhead(built: BuiltComponents, chunks: Document[]): Promise<number[][]> | undefined {
  return built.recordManager ? undefined : embedGroup(built.store, chunks, 0);
}

/** Chunks are embedded and written this many at a time: the vectors of two groups at most are held. */
const GROUP = 1000;

function embedGroup(store: DocVectorStore, docs: Document[], from: number): Promise<number[][]> {
  const vectors = store.embeddings.embedDocuments(docs.slice(from, from + GROUP).map((d) => d.pageContent));
  vectors.catch(() => {}); // awaited when its group is written; an earlier step may fail first
  return vectors;
}

/** Chunks → vector store, through the record manager when the store has one (`ahead`: embedAhead's vectors). */
export async function indexChunks(built: BuiltComponents, docId: string, chunks: Document[], control: IndexControl, ahead?: Promise<number[][]>): Promise<IndexResult> {
  const docs = chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: { ...c.metadata, docId } }));
  const store: DocVectorStore = built.store;
  let result: IndexResult;
  if (built.recordManager) {
    const { recordManager, cleanup, sourceIdKey, forceUpdate } = built.recordManager;
    result = await indexDocuments(docs, recordManager, store, { cleanup, sourceIdKey, forceUpdate, ...control });
  } else {
    // Without a record manager the loader's previous vectors are replaced (not piled up).
    const old = await store.idsOfDoc(docId);
    if (old.length) await store.delete({ ids: old });
    const ids = docs.map(() => newId());
    // Group i+1 is embedded while group i is written.
    let next: Promise<number[][]> | undefined = ahead ?? embedGroup(store, docs, 0);
    for (let i = 0; i < docs.length; i += GROUP) {
      const vectors = await next!;
      next = i + GROUP < docs.length ? embedGroup(store, docs, i + GROUP) : undefined;
      await store.addVectors(vectors, docs.slice(i, i + GROUP), { ids: ids.slice(i, i + GROUP) });
    }
    result = { numAdded: docs.length, numUpdated: 0, numSkipped: 0, numDeleted: old.length, addedDocs: docs, uids: ids };
  }
  // Chunk numbers of this commit, so query hits find their chunk by index rather than by text.
  await store.linkChunks(result.uids.map((uid, i) => [uid, i + 1]));
  return result;
}

/** Incremental cleanup groups chunks by their source: refuse before anything is written, not after. */
export function assertIndexable(built: BuiltComponents, chunks: Document[]): void {
  const rm = built.recordManager;
  if (rm?.cleanup !== "incremental" || rm.sourceIdKey === "docId") return;
  if (chunks.some((c) => c.metadata?.[rm.sourceIdKey] === undefined || c.metadata?.[rm.sourceIdKey] === null)) {
    throw badRequest(`Incremental cleanup needs every chunk's metadata to have "${rm.sourceIdKey}" (the record manager's sourceIdKey): add it with \`metadata\`, or use the docId key`);
  }
}
