// The part every vector store here shares: documents (text and metadata) in D1's vector_document
// table, keyed by provider, namespace and vector id. Subclasses keep the vectors.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { Embeddings } from "@langchain/core/embeddings";
import { VectorStore } from "@langchain/core/vectorstores";
import { and, count, eq, inArray } from "drizzle-orm";
import type { Db } from "../../env";
import { vectorDocument } from "../../db/schema";
import { D1_MAX_PARAMS, chunk } from "../../lib/chunk";
import { newId } from "../../lib/ids";
import type { AddVectorsOptions, DocVectorStore, LinkedHit } from "./types";
import { type Stmt, jsonBatches, jsonInsert, runBatch, runBatchPaced, stmt } from "./d1-json";

interface StoredDoc {
  id: string;
  docId: string | null;
  pageContent: string;
  metadata: Record<string, unknown>;
}

/** A stored document with the document-store chunk it was indexed from (null: none, or edited since). */
export interface LinkedDoc extends StoredDoc {
  chunk: { id: string; chunkNo: number } | null;
}

interface DocumentRow {
  id: string;
  docId: string | null;
  pageContent: string;
  metadata: string;
  chunkId?: string | null;
  chunkNo?: number | null;
}

/** Ranked hits with their documents, in rank order; hits whose document is gone are left out. */
export function linkHits(hits: Array<{ id: string; score: number }>, docs: Map<string, LinkedDoc>): LinkedHit[] {
  return hits.flatMap((h) => {
    const d = docs.get(h.id);
    return d
      ? [{ document: new Document({ id: d.id, pageContent: d.pageContent, metadata: d.metadata }), score: h.score, chunk: d.chunk }]
      : [];
  });
}

const parseMetadata = (s: string): Record<string, unknown> => {
  try {
    const v = JSON.parse(s);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
};

export abstract class D1DocumentsStore extends VectorStore implements DocVectorStore {
  declare FilterType: object;
  abstract readonly provider: string;
  abstract readonly maxTopK: number;

  constructor(
    embeddings: Embeddings,
    protected readonly db: Db,
    readonly namespace: string,
  ) {
    super(embeddings, {});
  }

  async addDocuments(documents: DocumentInterface[], options?: { ids?: string[] }): Promise<string[]> {
    const vectors = await this.embeddings.embedDocuments(documents.map((d) => d.pageContent));
    return this.addVectors(vectors, documents, options);
  }

  abstract addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]>;

  protected idsFor(documents: DocumentInterface[], options?: { ids?: string[] }): string[] {
    const ids = options?.ids ?? documents.map((d) => d.id ?? newId());
    if (ids.length !== documents.length) throw new Error("one id per document is needed");
    return ids;
  }

  /**
   * Statements writing the documents' text rows (insert or replace), with their chunk numbers when
   * known. A document given a chunk id (options.chunkIds) keeps no text of its own: its chunk's is read.
   */
  protected documentWrites(ids: string[], documents: DocumentInterface[], options?: AddVectorsOptions): Stmt[] {
    const chunkNos = options?.chunkNos;
    const chunkIds = options?.chunkIds;
    const rows = documents.map((d, i) => {
      const docId = typeof d.metadata?.docId === "string" ? d.metadata.docId : null;
      const chunkId = chunkIds?.[i] ?? null;
      return [ids[i], docId, chunkId === null ? d.pageContent : "", JSON.stringify(d.metadata ?? {}), chunkNos?.[i] ?? null, chunkId];
    });
    return jsonInsert(
      "INSERT OR REPLACE INTO vector_document (provider, namespace, id, docId, pageContent, metadata, chunkNo, chunkId)",
      [this.provider, this.namespace],
      rows,
    );
  }

  protected documentDeletes(ids: string[]): Stmt[] {
    return chunk(ids, D1_MAX_PARAMS - 2).map((part) =>
      stmt(
        this.db
          .delete(vectorDocument)
          .where(
            and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace), inArray(vectorDocument.id, part)),
          ),
      ),
    );
  }

  /** Records which chunk (number) each vector was indexed from: [vector id, chunkNo] pairs. */
  async linkChunks(pairs: Array<[string, number]>): Promise<void> {
    if (!pairs.length) return;
    // An upsert driven by the pairs (each a primary-key probe); UPDATE … FROM json_each would
    // scan the table once per pair. Only rows that exist are touched.
    await runBatchPaced(
      this.db,
      jsonBatches(pairs).map((json) => ({
        sql: `INSERT INTO vector_document (provider, namespace, id, chunkNo, pageContent, metadata)
        SELECT ?1, ?2, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), '', '{}' FROM json_each(?3) j
        WHERE EXISTS (SELECT 1 FROM vector_document v WHERE v.provider = ?1 AND v.namespace = ?2 AND v.id = json_extract(j.value, '$[0]'))
        ON CONFLICT (provider, namespace, id) DO UPDATE SET chunkNo = excluded.chunkNo`,
        params: [this.provider, this.namespace, json],
      })),
    );
  }

  /** Loader and chunk number each vector was last indexed from (see linkChunks). */
  async chunkHints(ids: string[]): Promise<Map<string, { docId: string | null; chunkNo: number | null }>> {
    const out = new Map<string, { docId: string | null; chunkNo: number | null }>();
    for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 2)) {
      const rows = await this.db
        .select({ id: vectorDocument.id, docId: vectorDocument.docId, chunkNo: vectorDocument.chunkNo })
        .from(vectorDocument)
        .where(
          and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace), inArray(vectorDocument.id, part)),
        )
        .all();
      for (const r of rows) out.set(r.id, { docId: r.docId, chunkNo: r.chunkNo });
    }
    return out;
  }

  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const part of chunk([...new Set(ids)], D1_MAX_PARAMS - 2)) {
      const rows = await this.db
        .select({ id: vectorDocument.id })
        .from(vectorDocument)
        .where(
          and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace), inArray(vectorDocument.id, part)),
        )
        .all();
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  async idsOfDoc(docId: string, limit?: number): Promise<string[]> {
    const query = this.db
      .select({ id: vectorDocument.id })
      .from(vectorDocument)
      .where(
        and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace), eq(vectorDocument.docId, docId)),
      );
    const rows = await (limit ? query.limit(limit) : query).all();
    return rows.map((r) => r.id);
  }

  protected async allIds(): Promise<string[]> {
    const rows = await this.db
      .select({ id: vectorDocument.id })
      .from(vectorDocument)
      .where(and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace)))
      .all();
    return rows.map((r) => r.id);
  }

  async size(): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(vectorDocument)
      .where(and(eq(vectorDocument.provider, this.provider), eq(vectorDocument.namespace, this.namespace)));
    return row?.n ?? 0;
  }

  /**
   * One statement reading the stored documents of `ids` and, given `chunkStoreId`, the document
   * store chunk each was last indexed from (linkChunks), when that chunk still holds the same text.
   * A row with a chunkId reads its text from that chunk (t), which is also its link when it is of
   * `chunkStoreId`; one whose chunk is gone is left out (never the case while the migration's
   * triggers hold: they give a row its text back before its chunk goes).
   * The ids travel as one JSON parameter and lead the join (CROSS JOIN: SQLite keeps them the outer
   * loop, each a primary-key and an index lookup, never a scan of the store's chunks).
   */
  protected documentsStmt(ids: string[], chunkStoreId?: string): Stmt {
    const link = chunkStoreId !== undefined;
    const own = "CASE WHEN t.storeId = ?4 THEN t";
    return {
      sql: `SELECT v.id, v.docId, COALESCE(t.pageContent, v.pageContent) AS pageContent, v.metadata${
        link ? `, COALESCE(${own}.id END, c.id) AS chunkId, COALESCE(${own}.chunkNo END, c.chunkNo) AS chunkNo` : ""
      }
        FROM json_each(?3) w CROSS JOIN vector_document v ON v.provider = ?1 AND v.namespace = ?2 AND v.id = w.value
        LEFT JOIN document_store_file_chunk t ON t.id = v.chunkId
        ${
          link
            ? "LEFT JOIN document_store_file_chunk c ON v.chunkId IS NULL AND c.storeId = ?4 AND c.docId = v.docId AND " +
              "c.chunkNo = v.chunkNo AND c.pageContent = v.pageContent"
            : ""
        }
        WHERE v.chunkId IS NULL OR t.id IS NOT NULL`,
      params: [this.provider, this.namespace, JSON.stringify(ids), ...(link ? [chunkStoreId] : [])],
    };
  }

  /** The rows of documentsStmt by vector id. */
  protected documentsFrom(result: D1Result): Map<string, LinkedDoc> {
    const out = new Map<string, LinkedDoc>();
    for (const r of result.results as DocumentRow[]) {
      const linked = typeof r.chunkId === "string" && typeof r.chunkNo === "number" ? { id: r.chunkId, chunkNo: r.chunkNo } : null;
      out.set(r.id, { id: r.id, docId: r.docId, pageContent: r.pageContent, metadata: parseMetadata(r.metadata), chunk: linked });
    }
    return out;
  }

  /** The stored documents of `ids` (missing ones left out). */
  protected async documentsOf(ids: string[]): Promise<Map<string, LinkedDoc>> {
    if (!ids.length) return new Map();
    const [result] = await runBatch(this.db, [this.documentsStmt(ids)]);
    return this.documentsFrom(result);
  }

  protected async hitsToDocuments(hits: Array<{ id: string; score: number }>): Promise<[Document, number][]> {
    return linkHits(hits, await this.documentsOf(hits.map((h) => h.id))).map((h) => [h.document, h.score]);
  }

  _vectorstoreType(): string {
    return this.provider;
  }

  abstract delete(params?: { ids?: string[] }): Promise<void>;
  abstract clear(): Promise<number>;
}
