// The postgres vector store: rows laid out as Flowise's node (its TypeORM driver) writes them —
// {"id" uuid, "pageContent", metadata jsonb, embedding vector} in tableName — so a table Flowise
// filled answers here and the other way round. As for the other hosted stores, D1 keeps only the
// bookkeeping rows (remote.ts). Ids are UUIDs (any other id is replaced by a UUID made from it).
// The table (and the pgvector extension) is made at the first write, as Flowise does.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk, chunkBy } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { ServiceStore, documentBytes, uuidIds } from "../remote";
import type { PgVectorClient, PgVectorHit } from "./client";

const POSTGRES_PROVIDER = "postgres";
/** Rows per insert when batchSize is not set (Flowise's TypeORM driver saves 500 at a time). */
const PG_UPSERT_BATCH = 500;
/** Ids per delete and per read. */
const PG_ID_BATCH = 1000;
/** Rows one INSERT holds at most whatever batchSize says: 4 parameters a row, a statement binds fewer than 65,535. */
const PG_MAX_ROWS = Math.floor(65_533 / 4);
/**
 * Bytes one INSERT holds, about: 500 rows of long chunks and 3,072 dimensions would be a ~75 MB
 * statement, built and sent from a Worker's 128 MB of memory (sizes estimated: documentBytes).
 */
const PG_MAX_BYTES = 8_000_000;

/**
 * A hit's score, higher nearer: Flowise answers the raw distance, which reads backwards for the
 * retrievers that keep scores above a threshold; cosine 1 − distance, inner product its value,
 * euclidean 1 / (1 + distance).
 */
const SCORES: Record<string, (d: number) => number> = {
  "<=>": (d) => 1 - d,
  "<#>": (d) => -d,
  "<->": (d) => 1 / (1 + d),
};

/** pgvector's text form "[0.1,…]" as numbers. */
function vectorOf(h: PgVectorHit): number[] | undefined {
  if (!h.embedding) return undefined;
  try {
    const v = JSON.parse(h.embedding);
    return Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const documentOf = (h: PgVectorHit): Document =>
  new Document({ id: h.id, pageContent: h.pageContent ?? "", metadata: isObject(h.metadata) ? h.metadata : {} });

export interface PostgresSettings {
  /** The table's distance operator (distanceStrategy). */
  operator: string;
  /** pgMetadataFilter: every search's filter unless the caller gives one. */
  filter?: Record<string, unknown>;
  batchSize?: number;
}

export class PostgresVectorStore extends ServiceStore<PgVectorClient, PostgresSettings> {
  declare FilterType: Record<string, unknown>;
  readonly provider = POSTGRES_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = PG_ID_BATCH;

  protected async remoteIds(ids: string[]): Promise<string[]> {
    return uuidIds(ids);
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.prepareOnce(() => client.ensureTable());
    const rows = ids.map((id, i) => ({
      id,
      pageContent: documents[i].pageContent,
      metadata: documents[i].metadata ?? {},
      embedding: vectors[i],
    }));
    const bytes = (r: (typeof rows)[number]) => documentBytes(r.id, r.embedding, r.pageContent, r.metadata);
    const size = Math.min(this.s.batchSize ?? PG_UPSERT_BATCH, PG_MAX_ROWS);
    for (const part of chunkBy(rows, size, PG_MAX_BYTES, bytes)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Postgres itself: rows written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const wanted = new Map<string, string>(); // the table's id → the caller's
    for (const [i, id] of (await this.remoteIds(ids)).entries()) wanted.set(id, ids[i]);
    if (!wanted.size) return found;
    const client = await this.client();
    for (const part of chunk([...wanted.keys()], PG_ID_BATCH))
      for (const id of await client.existing(part)) found.add(wanted.get(id.toLowerCase()) ?? id);
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const hits = await (await this.client()).search(query, this.topK(k), filter ?? this.s.filter ?? {});
    const score = SCORES[this.s.operator] ?? SCORES["<=>"];
    return hits.filter((h) => h.pageContent !== null).map((h) => [documentOf(h), score(h.distance)] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their embeddings), then k of them picked. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = async (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      (await client.search(vector, fetchK, filter ?? this.s.filter ?? {}, true)).filter((h) => h.pageContent !== null);
    return this.mmrSearch(query, options, nearest, vectorOf, documentOf);
  }
}
