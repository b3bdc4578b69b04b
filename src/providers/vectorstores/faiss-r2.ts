// faiss: Flowise keeps a FAISS index in a folder (basePath) on its disk. Workers have no FAISS and
// no disk, so here an index is one R2 object per basePath (its documents, and its vectors
// normalised to int8 codes as the local store keeps them) searched by brute-force cosine. Writes
// are read-modify-write guarded by the object's etag (a conditional put, retried), so two upserts
// into one basePath both keep their vectors. Decoded indexes stay in the isolate while their etag holds.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { Embeddings } from "@langchain/core/embeddings";
import { VectorStore } from "@langchain/core/vectorstores";
import { fail } from "../../errors";
import { sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { Pacer } from "../../lib/pace";
import { quantize } from "./local";
import type { AddVectorsOptions, DocVectorStore } from "./types";

const FAISS_PROVIDER = "faiss";
const FORMAT = "edgeflow-faiss-1";
const WRITE_ATTEMPTS = 6;

interface Entry {
  id: string;
  pageContent: string;
  metadata: Record<string, unknown>;
  scale: number;
  chunkNo?: number | null;
}

interface Index {
  dims: number;
  entries: Entry[];
  codes: Int8Array;
}

/** Where a node without a basePath keeps its index: under its namespace, so deleting the chatflow (or store) finds it. */
export const FAISS_NAMESPACE_PREFIX = "vectorstores/faiss/ns/";

/**
 * The R2 key of an index: for a basePath a hash of it (any path, C:\Users\… or /data/x, makes a safe
 * key; like Flowise's folder it is shared by every flow naming it), else the caller's namespace.
 */
export const faissKey = async (basePath: string | undefined, namespace: string): Promise<string> =>
  basePath ? `vectorstores/faiss/path/${(await sha256Hex(basePath)).slice(0, 40)}` : `${FAISS_NAMESPACE_PREFIX}${namespace}`;

function encode(index: Index): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify({ format: FORMAT, dims: index.dims, entries: index.entries }));
  const out = new Uint8Array(4 + header.length + index.codes.length);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  out.set(new Uint8Array(index.codes.buffer, index.codes.byteOffset, index.codes.byteLength), 4 + header.length);
  return out;
}

function decode(bytes: Uint8Array, key: string): Index {
  const length = bytes.length >= 4 ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) : -1;
  let header: { format?: string; dims?: number; entries?: Entry[] } = {};
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  } catch {
    // reported below
  }
  if (header.format !== FORMAT || !Array.isArray(header.entries) || typeof header.dims !== "number")
    throw fail("INTERNAL", `The faiss index at ${key} is not readable`);
  const codes = new Int8Array(bytes.slice(4 + length).buffer);
  return { dims: header.dims, entries: header.entries, codes };
}

const empty = (): Index => ({ dims: 0, entries: [], codes: new Int8Array(0) });

// Decoded indexes by key, with the etag they were read at; a few, each under 16 MB.
const cache = new Map<string, { etag: string; index: Index }>();
const CACHE_ENTRIES = 8;
const CACHE_MAX_BYTES = 16 * 1024 * 1024;

export class FaissR2Store extends VectorStore implements DocVectorStore {
  declare FilterType: object;
  readonly provider = FAISS_PROVIDER;
  readonly maxTopK = 100;
  /** Each addVectors rewrites the whole index object: an upsert writes in large groups. */
  readonly minWrite = 1024;

  /** The basePath input (Flowise's folder), else the caller's namespace: also the record manager's namespace. */
  readonly namespace: string;

  constructor(
    embeddings: Embeddings,
    private readonly bucket: R2Bucket,
    private readonly basePath: string | undefined,
    namespace: string,
  ) {
    super(embeddings, {});
    this.namespace = basePath ?? namespace;
  }

  _vectorstoreType(): string {
    return FAISS_PROVIDER;
  }

  private key?: Promise<string>;
  private keyOf(): Promise<string> {
    return (this.key ??= faissKey(this.basePath, this.namespace));
  }

  /** The index as stored now (from the isolate's copy when its etag still holds), and that etag. */
  private async read(): Promise<{ index: Index; etag?: string }> {
    const key = await this.keyOf();
    const known = cache.get(key);
    const obj = await this.bucket.get(key, known ? { onlyIf: { etagDoesNotMatch: known.etag } } : undefined);
    if (!obj) {
      cache.delete(key);
      return { index: empty() };
    }
    // Unchanged since the isolate read it: R2 answers the object without a body.
    if (!("body" in obj)) return { index: known!.index, etag: (obj as R2Object).etag };
    const index = decode(new Uint8Array(await (obj as R2ObjectBody).arrayBuffer()), this.namespace);
    this.remember(key, obj.etag, index);
    return { index, etag: obj.etag };
  }

  private remember(key: string, etag: string, index: Index): void {
    cache.delete(key);
    if (index.codes.byteLength > CACHE_MAX_BYTES) return;
    cache.set(key, { etag, index });
    while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  }

  /** Applies `change` to the stored index and writes it only if nobody wrote in between (else again). */
  private async update<T>(change: (index: Index) => { index: Index; result: T }): Promise<T> {
    const key = await this.keyOf();
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const { index, etag } = await this.read();
      const { index: next, result } = change(index);
      const onlyIf = etag ? { etagMatches: etag } : new Headers({ "If-None-Match": "*" });
      const written = await this.bucket.put(key, encode(next), { onlyIf, customMetadata: { basePath: this.namespace.slice(0, 512) } });
      if (written) {
        this.remember(key, written.etag, next);
        return result;
      }
    }
    throw fail("CONFLICT", `The faiss index at ${this.namespace} kept changing while this write tried to land; try again`);
  }

  async addDocuments(documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    return this.addVectors(vectors, documents, options);
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = options?.ids ?? documents.map((d) => d.id ?? newId());
    if (ids.length !== documents.length || vectors.length !== documents.length)
      throw new Error("one id and one vector per document are needed");
    if (!ids.length) return ids;
    const dims = vectors[0].length;
    const quantized = vectors.map((v) => {
      if (v.length !== dims) throw fail("NODE_FAILED", "The embedding gave vectors of different lengths");
      return quantize(v);
    });
    return this.update((index) => {
      if (index.entries.length && index.dims !== dims)
        throw fail(
          "INVALID_FLOW",
          `The faiss index at ${this.namespace} holds vectors of ${index.dims} dimensions but the embedding ` +
            `gives ${dims}: upsert with the same embedding, or use another basePath`,
        );
      const replaced = new Set(ids);
      const keep = index.entries.map((e, i) => [e, i] as const).filter(([e]) => !replaced.has(e.id));
      const codes = new Int8Array((keep.length + ids.length) * dims);
      keep.forEach(([, i], j) => codes.set(index.codes.subarray(i * dims, (i + 1) * dims), j * dims));
      quantized.forEach((q, j) => codes.set(q.codes, (keep.length + j) * dims));
      const added: Entry[] = ids.map((id, j) => ({
        id,
        pageContent: documents[j].pageContent,
        metadata: documents[j].metadata ?? {},
        scale: quantized[j].scale,
        ...(options?.chunkNos ? { chunkNo: options.chunkNos[j] } : {}),
      }));
      return { index: { dims, entries: [...keep.map(([e]) => e), ...added], codes }, result: ids };
    });
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = new Set(params?.ids ?? []);
    if (!ids.size) return;
    await this.update((index) => ({ index: filtered(index, (e) => !ids.has(e.id)), result: undefined }));
  }

  async clear(): Promise<number> {
    return this.update((index) => ({ index: empty(), result: index.entries.length }));
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    const { index } = await this.read();
    if (!index.entries.length) return [];
    if (index.dims !== query.length)
      throw fail(
        "INVALID_FLOW",
        `The faiss index at ${this.namespace} holds vectors of ${index.dims} dimensions but the embedding gives ${query.length}`,
      );
    let norm = 0;
    for (const x of query) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    const scores: Array<[number, number]> = [];
    const pacer = new Pacer(20_000);
    for (let v = 0; v < index.entries.length; v++) {
      let dot = 0;
      const offset = v * index.dims;
      for (let i = 0; i < index.dims; i++) dot += index.codes[offset + i] * query[i];
      scores.push([v, (dot * index.entries[v].scale) / norm]);
      const wait = pacer.tick();
      if (wait) await wait;
    }
    scores.sort((a, b) => b[1] - a[1]);
    return scores.slice(0, Math.max(1, k)).map(([v, score]) => {
      const e = index.entries[v];
      return [new Document({ id: e.id, pageContent: e.pageContent, metadata: e.metadata }), score];
    });
  }

  async has(ids: string[]): Promise<Set<string>> {
    const { index } = await this.read();
    const wanted = new Set(ids);
    return new Set(index.entries.filter((e) => wanted.has(e.id)).map((e) => e.id));
  }

  async idsOfDoc(docId: string, limit?: number): Promise<string[]> {
    const { index } = await this.read();
    const ids = index.entries.filter((e) => e.metadata?.docId === docId).map((e) => e.id);
    return limit ? ids.slice(0, limit) : ids;
  }

  async linkChunks(pairs: Array<[string, number]>): Promise<void> {
    if (!pairs.length) return;
    const chunkOf = new Map(pairs);
    await this.update((index) => ({
      index: { ...index, entries: index.entries.map((e) => (chunkOf.has(e.id) ? { ...e, chunkNo: chunkOf.get(e.id) } : e)) },
      result: undefined,
    }));
  }

  async chunkHints(ids: string[]): Promise<Map<string, { docId: string | null; chunkNo: number | null }>> {
    const { index } = await this.read();
    const wanted = new Set(ids);
    const out = new Map<string, { docId: string | null; chunkNo: number | null }>();
    for (const e of index.entries) {
      if (wanted.has(e.id))
        out.set(e.id, { docId: typeof e.metadata?.docId === "string" ? e.metadata.docId : null, chunkNo: e.chunkNo ?? null });
    }
    return out;
  }
}

function filtered(index: Index, keep: (e: Entry) => boolean): Index {
  const rows = index.entries.map((e, i) => [e, i] as const).filter(([e]) => keep(e));
  const codes = new Int8Array(rows.length * index.dims);
  rows.forEach(([, i], j) => codes.set(index.codes.subarray(i * index.dims, (i + 1) * index.dims), j * index.dims));
  return { dims: index.dims, entries: rows.map(([e]) => e), codes };
}
