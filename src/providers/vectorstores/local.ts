// The local vector store: vectors in D1 beside their text, scored in the worker. Each vector is
// normalised and quantised to int8 with one scale (base64 text, ~4x smaller than float32), so a
// query reads only compact rows of its own namespace and scores them in one pass.
import type { DocumentInterface } from "@langchain/core/documents";
import type { Document } from "@langchain/core/documents";
import { and, eq, inArray } from "drizzle-orm";
import { localEmbedding, localEmbeddingVersion, vectorDocument } from "../../db/schema";
import { fail } from "../../errors";
import { toBase64 } from "../../lib/crypto";
import { Pacer } from "../../lib/pace";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { D1DocumentsStore, linkHits } from "./d1-documents";
import { type LoadedNamespace, NamespaceCache, allocateNamespace, topK, unitQuery } from "./local-index";
import { type Stmt, runBatch, runBatchPaced, stmt, valuesInsert } from "./d1-json";
import type { AddVectorsOptions, LinkedSearch } from "./types";

const LOCAL_PROVIDER = "local";
/** The version token of a namespace that was never written. */
const NO_VERSION = "none";

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

// 32 MB holds about 40,000 vectors of 768 dimensions, well inside a Worker's 128 MB.
const namespaceCache = new NamespaceCache(32 * 1024 * 1024);

/**
 * Rankings per query: when writes keep changing the namespace between ranking and reading, the
 * last one is answered (its documents as read then; hits deleted meanwhile left out).
 */
const MAX_RANKINGS = 3;

export class LocalD1VectorStore extends D1DocumentsStore {
  readonly provider = LOCAL_PROVIDER;
  readonly maxTopK = 100;

  addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    return this.write(vectors, documents, options);
  }

  /** Float32 vectors as the embeddings answered them: quantised as they are. */
  addFloat32Vectors(vectors: Float32Array[], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    return this.write(vectors, documents, options);
  }

  private async write(vectors: ArrayLike<number>[], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    const rows = vectors.map((v, i) => {
      const { scale, codes } = quantize(v);
      return [ids[i], v.length, scale, toBase64(new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength))];
    });
    // Text and vectors in one batch: D1 runs a batch as a transaction, so neither exists alone.
    await runBatchPaced(this.db, [
      ...this.documentWrites(ids, documents, options),
      ...valuesInsert("INSERT OR REPLACE INTO local_embedding (namespace, id, dims, scale, vector)", [this.namespace], rows),
      this.bumpVersion(),
    ]);
    return ids;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = [...new Set(params?.ids ?? [])];
    if (!ids.length) return;
    await runBatchPaced(this.db, [
      ...this.documentDeletes(ids),
      ...chunk(ids, D1_MAX_PARAMS - 1).map((part) =>
        stmt(this.db.delete(localEmbedding).where(and(eq(localEmbedding.namespace, this.namespace), inArray(localEmbedding.id, part)))),
      ),
      this.bumpVersion(),
    ]);
  }

  async clear(): Promise<number> {
    const [, removed] = await this.db.batch([
      this.db.delete(localEmbedding).where(eq(localEmbedding.namespace, this.namespace)),
      this.db
        .delete(vectorDocument)
        .where(and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace)))
        .returning({ id: vectorDocument.id }),
      this.db
        .insert(localEmbeddingVersion)
        .values({ namespace: this.namespace, version: crypto.randomUUID() })
        .onConflictDoUpdate({ target: localEmbeddingVersion.namespace, set: { version: crypto.randomUUID() } }),
    ]);
    return removed.length;
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    return (await this.rankAndRead(query, k)).hits.map((h) => [h.document, h.score]);
  }

  async searchLinked(query: string, k: number, link: { chunkStoreId: string; also?: Stmt }): Promise<LinkedSearch> {
    return this.rankAndRead(await this.embeddings.embedQuery(query), k, link.chunkStoreId, link.also);
  }

  /**
   * Top k by cosine with their documents, in one D1 round trip when this isolate holds the
   * namespace: it is ranked from memory first, then the hits' documents are read together with the
   * namespace's version token. A token other than the one the vectors were loaded at means a
   * write came in between: the vectors are loaded again and the ranking redone.
   */
  private async rankAndRead(query: number[], k: number, chunkStoreId?: string, also?: Stmt): Promise<LinkedSearch> {
    const q = unitQuery(query);
    let loaded = namespaceCache.get(this.namespace, q.length);
    for (let ranking = 1; ; ranking++) {
      loaded ??= await this.load(q.length);
      const hits = await topK(loaded, q, k);
      const [version, documents, extra] = await runBatch(this.db, [
        this.versionStmt(),
        this.documentsStmt(
          hits.map((h) => h.id),
          chunkStoreId,
        ),
        ...(also ? [also] : []),
      ]);
      const stamp = (version.results[0] as { version?: string } | undefined)?.version ?? NO_VERSION;
      if (stamp === loaded.stamp || ranking === MAX_RANKINGS) {
        return { hits: linkHits(hits, this.documentsFrom(documents)), also: (extra?.results ?? []) as Record<string, unknown>[] };
      }
      namespaceCache.drop(this.namespace, loaded);
      loaded = undefined;
    }
  }

  private versionStmt(): Stmt {
    return { sql: "SELECT version FROM local_embedding_version WHERE namespace = ?", params: [this.namespace] };
  }

  /** Replaces the namespace's version token; goes in the same batch as the write it marks. */
  private bumpVersion(): Stmt {
    return {
      sql:
        "INSERT INTO local_embedding_version (namespace, version) VALUES (?, ?) ON CONFLICT(namespace) DO " +
        "UPDATE SET version = excluded.version",
      params: [this.namespace, crypto.randomUUID()],
    };
  }

  /**
   * Every vector of the namespace, decoded once, with the version token they are at (one batch:
   * one transaction), kept in this isolate's cache. SQLite concatenates the vectors in groups (one
   * result row per group instead of one per vector: D1 results cost per row and per byte, and
   * base64 text travels far cheaper than blobs).
   */
  private async load(dims: number): Promise<LoadedNamespace> {
    const width = 4 * Math.ceil(dims / 3); // base64 characters per vector
    // Keep each concatenated value well under D1's 2 MB value limit.
    const perGroup = Math.max(1, Math.floor(1_500_000 / (width + 40)));
    const [version, grouped, other] = await runBatch(this.db, [
      this.versionStmt(),
      {
        sql: `SELECT COUNT(*) AS n, group_concat(id, ',') AS ids, group_concat(scale, ',') AS scales, group_concat(vector, '') AS vectors
          FROM local_embedding WHERE namespace = ? AND dims = ? GROUP BY rowid / ?`,
        params: [this.namespace, dims, perGroup],
      },
      { sql: "SELECT dims FROM local_embedding WHERE namespace = ? AND dims <> ? LIMIT 1", params: [this.namespace, dims] },
    ]);
    const groups = grouped.results as Array<{ n: number; ids: string; scales: string; vectors: string }>;
    const otherDims = (other.results[0] as { dims: number } | undefined)?.dims;
    if (!groups.length && otherDims !== undefined) {
      throw fail(
        "INVALID_FLOW",
        `The stored vectors have ${otherDims} dimensions but the embedding gives ${dims}: re-upsert with the same ` +
          `embedding, or delete the vector store first`,
      );
    }
    const stamp = (version.results[0] as { version?: string } | undefined)?.version ?? NO_VERSION;
    const loaded = allocateNamespace(
      stamp,
      dims,
      groups.reduce((n, g) => n + g.n, 0),
    );
    const { ids, scales, codes, stride } = loaded;
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
        const offset = v * stride;
        for (let i = 0; i < dims; i++) codes[offset + i] = (bin.charCodeAt(i) << 24) >> 24;
      }
    }
    namespaceCache.set(this.namespace, loaded);
    return loaded;
  }
}
