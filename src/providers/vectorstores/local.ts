// The local vector store: vectors in D1 beside their text, scored in the worker. Each vector is
// normalised and quantised to int8 with one scale (base64 text, ~4x smaller than float32), so a
// query reads only compact rows of its own namespace and scores them in one pass.
import type { DocumentInterface } from "@langchain/core/documents";
import type { Document } from "@langchain/core/documents";
import { and, eq, inArray, sql } from "drizzle-orm";
import { localEmbedding, vectorDocument } from "../../db/schema";
import { badRequest } from "../../errors";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { D1DocumentsStore } from "./d1-documents";
import { jsonInsert, runBatch, stmt } from "./d1-json";

export const LOCAL_PROVIDER = "local";

/** Unit vector → int8 codes and the scale that restores them (value ≈ code × scale). */
export function quantize(vector: number[]): { scale: number; codes: Int8Array } {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  const codes = new Int8Array(vector.length);
  if (!(norm > 0)) return { scale: 0, codes };
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x / norm));
  const scale = max / 127;
  for (let i = 0; i < vector.length; i++) codes[i] = Math.round(vector[i] / norm / scale);
  return { scale, codes };
}

function toBase64(codes: Int8Array): string {
  const bytes = new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength);
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

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

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    const rows = vectors.map((v, i) => {
      const { scale, codes } = quantize(v);
      return [ids[i], v.length, scale, toBase64(codes)];
    });
    // Text and vectors in one batch: D1 runs a batch as a transaction, so neither exists alone.
    await runBatch(this.db, [
      ...this.documentWrites(ids, documents),
      ...jsonInsert("INSERT OR REPLACE INTO local_embedding (namespace, id, dims, scale, vector)", [this.namespace], rows),
    ]);
    return ids;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = [...new Set(params?.ids ?? [])];
    if (!ids.length) return;
    await runBatch(this.db, [
      ...this.documentDeletes(ids),
      ...chunk(ids, D1_MAX_PARAMS - 1).map((part) => stmt(this.db.delete(localEmbedding).where(and(eq(localEmbedding.namespace, this.namespace), inArray(localEmbedding.id, part))))),
    ]);
  }

  async clear(): Promise<number> {
    const [, removed] = await this.db.batch([
      this.db.delete(localEmbedding).where(eq(localEmbedding.namespace, this.namespace)),
      this.db.delete(vectorDocument).where(and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace))).returning({ id: vectorDocument.id }),
    ]);
    return removed.length;
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    const hits = await this.search(query, k);
    return this.hitsToDocuments(hits);
  }

  /**
   * One pass over the namespace's vectors: SQLite concatenates them in groups (one result row per
   * group instead of one per vector: D1 results cost per row and per byte, and base64 text travels
   * far cheaper than blobs), and each group is decoded and dotted in the same loop, top k kept.
   */
  async search(query: number[], k: number): Promise<Hit[]> {
    let norm = 0;
    for (const x of query) norm += x * x;
    norm = Math.sqrt(norm) || 1;
    const q = Float64Array.from(query, (x) => x / norm);
    const dims = q.length;
    const width = 4 * Math.ceil(dims / 3); // base64 characters per vector
    // Keep each concatenated value well under D1's 2 MB value limit.
    const perGroup = Math.max(1, Math.floor(1_500_000 / (width + 40)));
    const groups = await this.db.all<{ n: number; ids: string; scales: string; vectors: string }>(sql`
      SELECT COUNT(*) AS n, group_concat(id, ',') AS ids, group_concat(scale, ',') AS scales, group_concat(vector, '') AS vectors
      FROM local_embedding WHERE namespace = ${this.namespace} AND dims = ${dims} GROUP BY rowid / ${perGroup}`);
    const top = new TopK(Math.max(1, k));
    for (const g of groups) {
      const ids = g.ids.split(",");
      const scales = g.scales.split(",");
      for (let v = 0; v < g.n; v++) {
        const bin = atob(g.vectors.slice(v * width, (v + 1) * width));
        let dot = 0;
        for (let i = 0; i < dims; i++) dot += ((bin.charCodeAt(i) << 24) >> 24) * q[i];
        top.offer(ids[v], dot * Number(scales[v]));
      }
    }
    if (!groups.length) {
      const other = await this.db.get<{ dims: number }>(sql`SELECT dims FROM local_embedding WHERE namespace = ${this.namespace} LIMIT 1`);
      if (other) throw badRequest(`The stored vectors have ${other.dims} dimensions but the embedding gives ${dims}: re-upsert with the same embedding, or delete the vector store first`);
    }
    return top.hits;
  }
}
