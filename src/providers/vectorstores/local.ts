// The local vector store: vectors in D1 beside their text, scored in the worker. Each vector is
// normalised and quantised to int8 with one scale (base64 text, ~4x smaller than float32), so a
// query reads only compact rows of its own namespace and scores them in one pass.
import type { DocumentInterface } from "@langchain/core/documents";
import type { Document } from "@langchain/core/documents";
import { and, eq, inArray, sql } from "drizzle-orm";
import { localEmbedding, localEmbeddingVersion, vectorDocument } from "../../db/schema";
import { badRequest } from "../../errors";
import { toBase64 } from "../../lib/crypto";
import { Pacer } from "../../lib/pace";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { D1DocumentsStore } from "./d1-documents";
import { type Stmt, jsonInsert, runBatch, stmt } from "./d1-json";
import type { AddVectorsOptions } from "./types";

export const LOCAL_PROVIDER = "local";

/** Unit vector → int8 codes and the scale that restores them (value ≈ code × scale). One pass for norm and peak. */
export function quantize(vector: ArrayLike<number>): { scale: number; codes: Int8Array } {
  const n = vector.length;
  let sum = 0;
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const x = vector[i];
    sum += x * x;
    if (Math.abs(x) > peak) peak = Math.abs(x);
  }
  const norm = Math.sqrt(sum);
  const codes = new Int8Array(n);
  if (!(norm > 0)) return { scale: 0, codes };
  // code = x / norm / scale with scale = (peak / norm) / 127, i.e. x × 127 / peak.
  const scale = peak / norm / 127;
  const factor = 127 / peak;
  for (let i = 0; i < n; i++) codes[i] = Math.round(vector[i] * factor);
  return { scale, codes };
}

interface LoadedNamespace {
  dims: number;
  ids: string[];
  scales: Float64Array;
  codes: Int8Array;
}

/**
 * Decoded namespaces kept by this isolate between queries, keyed by namespace and its stamp, so a
 * repeated query reads one small aggregate row from D1 instead of every vector. Bounded in bytes;
 * the least recently used namespace goes first.
 */
class NamespaceCache {
  private readonly entries = new Map<string, { stamp: string; data: LoadedNamespace; bytes: number }>();
  private bytes = 0;
  constructor(private readonly budget: number) {}

  get(namespace: string, stamp: string, dims: number): LoadedNamespace | undefined {
    const entry = this.entries.get(namespace);
    if (!entry || entry.stamp !== stamp || entry.data.dims !== dims) return undefined;
    this.entries.delete(namespace); // re-insert: most recently used last
    this.entries.set(namespace, entry);
    return entry.data;
  }

  set(namespace: string, stamp: string, data: LoadedNamespace): void {
    this.drop(namespace);
    const bytes = data.codes.byteLength + data.scales.byteLength + data.ids.length * 48;
    if (bytes > this.budget) return;
    while (this.bytes + bytes > this.budget) this.drop(this.entries.keys().next().value as string);
    this.entries.set(namespace, { stamp, data, bytes });
    this.bytes += bytes;
  }

  private drop(namespace: string): void {
    const entry = this.entries.get(namespace);
    if (!entry) return;
    this.entries.delete(namespace);
    this.bytes -= entry.bytes;
  }
}

// 32 MB holds about 40,000 vectors of 768 dimensions, well inside a Worker's 128 MB.
const namespaceCache = new NamespaceCache(32 * 1024 * 1024);

interface Hit {
  id: string;
  score: number;
}

/** Keeps the k best hits seen so far (k is small: a sorted insert beats a heap here). */
class TopK {
  readonly hits: Hit[] = [];
  constructor(private readonly k: number) {}
  get floor(): number {
    return this.hits.length < this.k ? -Infinity : this.hits[this.hits.length - 1].score;
  }
  offer(id: string, score: number): void {
    if (score <= this.floor) return;
    let i = this.hits.length;
    while (i > 0 && this.hits[i - 1].score < score) i--;
    this.hits.splice(i, 0, { id, score });
    if (this.hits.length > this.k) this.hits.pop();
  }
}

export class LocalD1VectorStore extends D1DocumentsStore {
  readonly provider = LOCAL_PROVIDER;
  readonly maxTopK = 100;

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    const rows = vectors.map((v, i) => {
      const { scale, codes } = quantize(v);
      return [ids[i], v.length, scale, toBase64(new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength))];
    });
    // Text and vectors in one batch: D1 runs a batch as a transaction, so neither exists alone.
    await runBatch(this.db, [
      ...this.documentWrites(ids, documents, options?.chunkNos),
      ...jsonInsert("INSERT OR REPLACE INTO local_embedding (namespace, id, dims, scale, vector)", [this.namespace], rows),
      this.bumpVersion(),
    ]);
    return ids;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = [...new Set(params?.ids ?? [])];
    if (!ids.length) return;
    await runBatch(this.db, [
      ...this.documentDeletes(ids),
      ...chunk(ids, D1_MAX_PARAMS - 1).map((part) => stmt(this.db.delete(localEmbedding).where(and(eq(localEmbedding.namespace, this.namespace), inArray(localEmbedding.id, part))))),
      this.bumpVersion(),
    ]);
  }

  async clear(): Promise<number> {
    const [, removed] = await this.db.batch([
      this.db.delete(localEmbedding).where(eq(localEmbedding.namespace, this.namespace)),
      this.db.delete(vectorDocument).where(and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace))).returning({ id: vectorDocument.id }),
      this.db.insert(localEmbeddingVersion).values({ namespace: this.namespace, version: crypto.randomUUID() })
        .onConflictDoUpdate({ target: localEmbeddingVersion.namespace, set: { version: crypto.randomUUID() } }),
    ]);
    return removed.length;
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    const hits = await this.search(query, k);
    return this.hitsToDocuments(hits);
  }

  /** Top k by cosine: from this isolate's cache when the namespace is unchanged, else from D1. */
  async search(query: number[], k: number): Promise<Hit[]> {
    let norm = 0;
    for (const x of query) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    const q = Float64Array.from(query, (x) => x / norm);
    const dims = q.length;

    const stamp = await this.stamp();
    let loaded = namespaceCache.get(this.namespace, stamp, dims);
    if (!loaded) {
      loaded = await this.load(dims);
      if (!loaded.ids.length) {
        const other = await this.db.get<{ dims: number }>(sql`SELECT dims FROM local_embedding WHERE namespace = ${this.namespace} LIMIT 1`);
        if (other) throw badRequest(`The stored vectors have ${other.dims} dimensions but the embedding gives ${dims}: re-upsert with the same embedding, or delete the vector store first`);
      }
      namespaceCache.set(this.namespace, stamp, loaded);
    }

    const top = new TopK(Math.max(1, k));
    const { ids, scales, codes } = loaded;
    const pacer = new Pacer(20_000); // a store of many vectors is scored between yields
    for (let v = 0, offset = 0; v < ids.length; v++, offset += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += codes[offset + i] * q[i];
      top.offer(ids[v], dot * scales[v]);
      const wait = pacer.tick();
      if (wait) await wait;
    }
    return top.hits;
  }

  /** The namespace's version token: one primary-key lookup. */
  private async stamp(): Promise<string> {
    const row = await this.db.select({ version: localEmbeddingVersion.version }).from(localEmbeddingVersion)
      .where(eq(localEmbeddingVersion.namespace, this.namespace)).get();
    return row?.version ?? "none";
  }

  /** Replaces the namespace's version token; goes in the same batch as the write it marks. */
  private bumpVersion(): Stmt {
    return {
      sql: "INSERT INTO local_embedding_version (namespace, version) VALUES (?, ?) ON CONFLICT(namespace) DO UPDATE SET version = excluded.version",
      params: [this.namespace, crypto.randomUUID()],
    };
  }

  /**
   * Every vector of the namespace, decoded once: SQLite concatenates them in groups (one result
   * row per group instead of one per vector: D1 results cost per row and per byte, and base64 text
   * travels far cheaper than blobs).
   */
  private async load(dims: number): Promise<LoadedNamespace> {
    const width = 4 * Math.ceil(dims / 3); // base64 characters per vector
    // Keep each concatenated value well under D1's 2 MB value limit.
    const perGroup = Math.max(1, Math.floor(1_500_000 / (width + 40)));
    const groups = await this.db.all<{ n: number; ids: string; scales: string; vectors: string }>(sql`
      SELECT COUNT(*) AS n, group_concat(id, ',') AS ids, group_concat(scale, ',') AS scales, group_concat(vector, '') AS vectors
      FROM local_embedding WHERE namespace = ${this.namespace} AND dims = ${dims} GROUP BY rowid / ${perGroup}`);
    const total = groups.reduce((n, g) => n + g.n, 0);
    const ids: string[] = [];
    const scales = new Float64Array(total);
    const codes = new Int8Array(total * dims);
    let v = 0;
    const pacer = new Pacer();
    for (const g of groups) {
      await pacer.tick();
      const groupIds = g.ids.split(",");
      const groupScales = g.scales.split(",");
      for (let j = 0; j < g.n; j++, v++) {
        ids.push(groupIds[j]);
        scales[v] = Number(groupScales[j]);
        const bin = atob(g.vectors.slice(j * width, (j + 1) * width));
        const offset = v * dims;
        for (let i = 0; i < dims; i++) codes[offset + i] = (bin.charCodeAt(i) << 24) >> 24;
      }
    }
    return { dims, ids, scales, codes };
  }
}
