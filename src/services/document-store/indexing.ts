// Chunks into the store's vector store: through its record manager (LangChain's indexing
// semantics) when it has one, else replacing the loader's previous vectors.
import { Document } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { newId } from "../../lib/ids";
import { inIsolate } from "../../providers/embeddings/types";
import { indexDocuments, type IndexResult } from "../../providers/recordmanager/indexing";
import type { DocVectorStore } from "../../providers/vectorstores/types";
import type { BuiltComponents } from "./components";
import { EmbedStream } from "./embed-stream";

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
export function embedAhead(built: BuiltComponents, chunks: Document[]): EmbedStream | undefined {
  return built.recordManager
    ? undefined
    : new EmbedStream(
        built.store.embeddings,
        chunks.map((c) => c.pageContent),
      );
}

/** At most this many vectors per vector-store write (one D1 batch for the local store): 8 slices. */
const WRITE_MAX = 1024;

/** Chunks → vector store, through the record manager when the store has one (`ahead`: embedAhead's vectors). */
export async function indexChunks(
  built: BuiltComponents,
  docId: string,
  chunks: Document[],
  control: IndexControl,
  ahead?: EmbedStream,
): Promise<IndexResult> {
  const docs = chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: { ...c.metadata, docId } }));
  if (!built.recordManager) return replaceVectors(built.store, docId, docs, ahead);
  const { recordManager, cleanup, sourceIdKey, forceUpdate } = built.recordManager;
  const result = await indexDocuments(docs, recordManager, built.store, { cleanup, sourceIdKey, forceUpdate, ...control });
  // Chunk numbers of this commit, so query hits find their chunk by index rather than by text.
  await built.store.linkChunks(result.uids.map((uid, i) => [uid, i + 1]));
  return result;
}

/**
 * Without a record manager the loader's previous vectors are replaced (not piled up). Each write
 * takes what the model has answered so far, in order, while it embeds the rest; the chunk
 * numbers go in the same write.
 */
async function replaceVectors(store: DocVectorStore, docId: string, docs: Document[], ahead?: EmbedStream): Promise<IndexResult> {
  const old = await store.idsOfDoc(docId);
  if (old.length) await store.delete({ ids: old });
  const ids = docs.map(() => newId());
  await writeVectors(store, docs, ids, 1, ahead);
  return { numAdded: docs.length, numUpdated: 0, numSkipped: 0, numDeleted: old.length, addedDocs: docs, uids: ids };
}

/**
 * Embeds `docs` (chunks numbered from `firstChunkNo`) and writes their vectors under `ids`: each
 * write takes what the model has answered so far, in order, while it embeds the rest.
 */
export async function writeVectors(
  store: DocVectorStore,
  docs: Document[],
  ids: string[],
  firstChunkNo: number,
  ahead?: EmbedStream,
): Promise<void> {
  const stream =
    ahead ??
    new EmbedStream(
      store.embeddings,
      docs.map((d) => d.pageContent),
    );
  // A write costs a D1 batch: small ones only pay when they let a remote model's latency overlap.
  const min = inIsolate(store.embeddings) ? WRITE_MAX : Math.min(store.minWrite ?? 1, WRITE_MAX);
  for (let from = 0, vectors; (vectors = await stream.next(min, WRITE_MAX)); from += vectors.length) {
    const to = from + vectors.length;
    const chunkNos = Array.from({ length: vectors.length }, (_, j) => firstChunkNo + from + j);
    await store.addVectors(vectors, docs.slice(from, to), { ids: ids.slice(from, to), chunkNos });
  }
}

/** Incremental cleanup groups chunks by their source: refuse before anything is written, not after. */
export function assertIndexable(built: BuiltComponents, chunks: Document[]): void {
  const rm = built.recordManager;
  if (rm?.cleanup !== "incremental" || rm.sourceIdKey === "docId") return;
  if (chunks.some((c) => c.metadata?.[rm.sourceIdKey] === undefined || c.metadata?.[rm.sourceIdKey] === null)) {
    throw badRequest(
      `Incremental cleanup needs every chunk's metadata to have "${rm.sourceIdKey}" (the record manager's ` +
        `sourceIdKey): add it with \`metadata\`, or use the docId key`,
    );
  }
}
