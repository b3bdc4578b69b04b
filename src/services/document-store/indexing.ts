// Chunks into the store's vector store: through its record manager (LangChain's indexing
// semantics) when it has one, else replacing the loader's previous vectors.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { badRequest } from "../../errors";
import { newId } from "../../lib/ids";
import { float32Embeddings, inIsolate } from "../../providers/embeddings/types";
import { indexDocuments, type IndexResult } from "../../providers/recordmanager/indexing";
import type { AddVectorsOptions, DocVectorStore } from "../../providers/vectorstores/types";
import type { BuiltComponents } from "./components";
import { EMBED_SLICE, EmbedStream } from "./embed-stream";

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

type Write<V> = (vectors: V[], documents: DocumentInterface[], options: AddVectorsOptions) => Promise<unknown>;

/**
 * An upsert's vectors on their way to its store: float32s as the model sent them when the
 * embeddings can answer them and the store reads them (no array of numbers made per vector),
 * else number arrays.
 */
export type VectorStream =
  | { float32: true; stream: EmbedStream<Float32Array>; write: Write<Float32Array> }
  | { float32: false; stream: EmbedStream<number[]>; write: Write<number[]> };

/**
 * Texts per embedding call: a provider that caps its calls lower (Workers AI: 100) gets slices of
 * its own size, one call each (128 would be two calls, 100 + 28).
 */
function sliceFor(embeddings: object): number {
  const cap = (embeddings as { batchSize?: unknown }).batchSize;
  return typeof cap === "number" && Number.isInteger(cap) && cap >= 1 ? Math.min(EMBED_SLICE, cap) : EMBED_SLICE;
}

/** Starts embedding `texts` for `store` (see VectorStream). */
export function vectorStream(store: DocVectorStore, texts: string[]): VectorStream {
  const f32 = float32Embeddings(store.embeddings);
  const addFloat32 = store.addFloat32Vectors?.bind(store);
  const slice = sliceFor(store.embeddings);
  if (f32 && addFloat32) {
    const stream = new EmbedStream({ embedDocuments: (t) => f32.embedDocumentsFloat32(t) }, texts, slice);
    return { float32: true, stream, write: addFloat32 };
  }
  return { float32: false, stream: new EmbedStream(store.embeddings, texts, slice), write: store.addVectors.bind(store) };
}

/**
 * Starts embedding the chunks at once, so the model calls overlap the file and chunk writes that
 * come first; undefined with a record manager (it embeds only the chunks that changed).
 */
export function embedAhead(built: BuiltComponents, chunks: Document[]): VectorStream | undefined {
  return built.recordManager
    ? undefined
    : vectorStream(
        built.store,
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
  ahead?: VectorStream,
  chunkIds?: string[],
): Promise<IndexResult> {
  const docs = chunks.map((c) => new Document({ pageContent: c.pageContent, metadata: { ...c.metadata, docId } }));
  if (!built.recordManager) return replaceVectors(built.store, docId, docs, ahead, chunkIds);
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
async function replaceVectors(
  store: DocVectorStore,
  docId: string,
  docs: Document[],
  ahead?: VectorStream,
  chunkIds?: string[],
): Promise<IndexResult> {
  const old = await store.idsOfDoc(docId);
  if (old.length) await store.delete({ ids: old });
  const ids = docs.map(() => newId());
  await writeVectors(store, docs, ids, 1, ahead, chunkIds);
  return { numAdded: docs.length, numUpdated: 0, numSkipped: 0, numDeleted: old.length, addedDocs: docs, uids: ids };
}

/**
 * Embeds `docs` (chunks numbered from `firstChunkNo`) and writes their vectors under `ids`: each
 * write takes what the model has answered so far, in order, while it embeds the rest. `chunkIds`:
 * the stored chunks the docs are (their text is read from there, not written again).
 */
export async function writeVectors(
  store: DocVectorStore,
  docs: Document[],
  ids: string[],
  firstChunkNo: number,
  ahead?: VectorStream,
  chunkIds?: string[],
): Promise<void> {
  const s =
    ahead ??
    vectorStream(
      store,
      docs.map((d) => d.pageContent),
    );
  // A write costs a D1 batch: small ones only pay when they let a remote model's latency overlap.
  const min = inIsolate(store.embeddings) ? WRITE_MAX : Math.min(store.minWrite ?? 1, WRITE_MAX);
  const to = { docs, ids, firstChunkNo, chunkIds };
  if (s.float32) await drain(s.stream, s.write, to, min);
  else await drain(s.stream, s.write, to, min);
}

interface Destination {
  docs: Document[];
  ids: string[];
  firstChunkNo: number;
  chunkIds?: string[];
}

async function drain<V>(stream: EmbedStream<V>, write: Write<V>, to: Destination, min: number) {
  for (let from = 0, vectors; (vectors = await stream.next(min, WRITE_MAX)); from += vectors.length) {
    const end = from + vectors.length;
    const chunkNos = Array.from({ length: vectors.length }, (_, j) => to.firstChunkNo + from + j);
    await write(vectors, to.docs.slice(from, end), { ids: to.ids.slice(from, end), chunkNos, chunkIds: to.chunkIds?.slice(from, end) });
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
