// Cloudflare Vectorize: one namespace per document store; a vector's metadata holds only ids
// (storeId, docId) — its text stays in D1 — so Vectorize's 10 KiB metadata cap never bites.
// Upserts go in batches of at most 1000; a query asks at most 20 matches (Vectorize's cap).
import type { Document, DocumentInterface } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { D1DocumentsStore } from "./d1-documents";
import { runBatchPaced } from "./d1-json";
import type { AddVectorsOptions } from "./types";
import { errorMessage } from "../../lib/error-message";

export const VECTORIZE_PROVIDER = "vectorize";
const VECTORIZE_MAX_UPSERT = 1000;
const VECTORIZE_MAX_TOP_K = 20;

/** The slice of the Vectorize binding used here (a stand-in provides the same in tests). */
export interface VectorizeLike {
  upsert(vectors: Array<{ id: string; values: number[]; namespace?: string; metadata?: Record<string, string> }>): Promise<unknown>;
  query(
    vector: number[],
    options: { topK: number; namespace?: string; returnMetadata?: string | boolean; returnValues?: boolean },
  ): Promise<{ matches: Array<{ id: string; score: number }> }>;
  deleteByIds(ids: string[]): Promise<unknown>;
}

export function isVectorizeBound(v: unknown): v is VectorizeLike {
  return !!v && typeof (v as VectorizeLike).query === "function" && typeof (v as VectorizeLike).upsert === "function";
}

async function provider<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw fail("UPSTREAM_FAILED", `Vectorize ${what} failed: ${errorMessage(err)}`);
  }
}

/** Deletes Vectorize vectors by id, a batch at a time; nothing to do where the binding is absent. */
export async function deleteVectorizeIds(binding: unknown, ids: string[]): Promise<void> {
  if (!ids.length || !isVectorizeBound(binding)) return;
  for (let i = 0; i < ids.length; i += VECTORIZE_MAX_UPSERT) await binding.deleteByIds(ids.slice(i, i + VECTORIZE_MAX_UPSERT));
}

export class VectorizeStore extends D1DocumentsStore {
  readonly provider = VECTORIZE_PROVIDER;
  readonly maxTopK = VECTORIZE_MAX_TOP_K;
  private index!: VectorizeLike;

  static create(index: unknown, ...rest: ConstructorParameters<typeof D1DocumentsStore>): VectorizeStore {
    if (!isVectorizeBound(index))
      throw fail(
        "MISSING_CREDENTIAL",
        "Vectorize binding VECTORIZE is not configured: the vectorize vector store needs it (use localVectorStore locally)",
      );
    const store = new VectorizeStore(...rest);
    store.index = index;
    return store;
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    // Text first: a vector Vectorize holds must always find its text. Undone when Vectorize fails.
    await runBatchPaced(this.db, this.documentWrites(ids, documents, options));
    try {
      for (let i = 0; i < ids.length; i += VECTORIZE_MAX_UPSERT) {
        const part = ids.slice(i, i + VECTORIZE_MAX_UPSERT).map((id, j) => {
          const docId = documents[i + j].metadata?.docId;
          return {
            id,
            values: vectors[i + j],
            namespace: this.namespace,
            metadata: { storeId: this.namespace, ...(typeof docId === "string" ? { docId } : {}) },
          };
        });
        await provider("upsert", () => this.index.upsert(part));
      }
    } catch (err) {
      await runBatchPaced(this.db, this.documentDeletes(ids)).catch(() => {});
      throw err;
    }
    return ids;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = [...new Set(params?.ids ?? [])];
    for (let i = 0; i < ids.length; i += VECTORIZE_MAX_UPSERT) {
      const part = ids.slice(i, i + VECTORIZE_MAX_UPSERT);
      await provider("delete", () => this.index.deleteByIds(part));
      await runBatchPaced(this.db, this.documentDeletes(part));
    }
  }

  async clear(): Promise<number> {
    const ids = await this.allIds();
    await this.delete({ ids });
    return ids.length;
  }

  async similaritySearchVectorWithScore(query: number[], k: number): Promise<[Document, number][]> {
    const topK = Math.max(1, Math.min(VECTORIZE_MAX_TOP_K, k));
    const result = await provider("query", () => this.index.query(query, { topK, namespace: this.namespace, returnMetadata: "none" }));
    return this.hitsToDocuments((result?.matches ?? []).map((m) => ({ id: m.id, score: m.score })));
  }
}
