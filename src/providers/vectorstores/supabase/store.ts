// The supabase vector store: rows laid out as LangChain's SupabaseVectorStore (Flowise's node)
// writes them — {id, content, metadata, embedding} in tableName — and found through the queryName
// function (Flowise's documented match_documents), so a table Flowise filled answers here and the
// other way round. As for Pinecone, D1 keeps only the bookkeeping rows (remote.ts). Ids are UUIDs
// (any other id is replaced by a UUID made from it) when the table's id column is uuid or text, and
// integers made from them when it is bigint (Flowise's documented bigserial table): an explicit id
// is what lets the record manager find, skip and delete each chunk later.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { numericId } from "../../../lib/ids";
import { lazily, RemoteDocumentsStore, uuidIds } from "../remote";
import type { SupabaseClient, SupabaseIdKind, SupabaseMatch } from "./client";
import { withoutNul } from "../../../lib/without-nul";

const SUPABASE_PROVIDER = "supabase";
/** Rows per insert (LangChain's upsertBatchSize is 500; embeddings make rows large). */
const SUPABASE_UPSERT_BATCH = 200;
/** Ids per delete and per select: they travel in the query string. */
const SUPABASE_DELETE_BATCH = 100;

/** A match function's `embedding`: a list, or pgvector's text form "[0.1,…]". */
function vectorOf(m: SupabaseMatch): number[] | undefined {
  if (Array.isArray(m.embedding)) return m.embedding as number[];
  if (typeof m.embedding === "string") {
    try {
      const v = JSON.parse(m.embedding);
      return Array.isArray(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Made ids start here: a bigserial sequence counts from 1, so they stay clear of its numbers. */
const FIRST_MADE_ID = 2 ** 52;
/** The bigint id for `id` (52 random bits: a million made ids in one table collide about once in 9,000 tables). */
export const bigintId = (id: string): Promise<string> => numericId(id, FIRST_MADE_ID);

const documentOf = (m: SupabaseMatch): Document =>
  new Document({
    ...(m.id !== undefined ? { id: String(m.id) } : {}),
    pageContent: typeof m.content === "string" ? m.content : "",
    metadata: isObject(m.metadata) ? m.metadata : {},
  });

export interface SupabaseFilter {
  /** supabaseMetadataFilter: the function's `filter` argument. */
  metadata?: Record<string, unknown>;
  /** supabaseRPCFilter, read: query-string filters (they override the metadata filter, as in Flowise). */
  rpc?: URLSearchParams;
}

export class SupabaseVectorStore extends RemoteDocumentsStore {
  declare FilterType: Record<string, unknown>;
  readonly provider = SUPABASE_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = SUPABASE_DELETE_BATCH;

  constructor(
    embeddings: ConstructorParameters<typeof RemoteDocumentsStore>[0],
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    private readonly client: () => Promise<SupabaseClient>,
    private readonly filter: SupabaseFilter = {},
  ) {
    super(embeddings, db, namespace);
    this.idKind = lazily(async () => (await this.client()).idKind());
  }

  /** Asked once per store, before its first write, delete or look-up by id (a search needs no id). */
  private readonly idKind: () => Promise<SupabaseIdKind>;

  protected async remoteIds(ids: string[]): Promise<string[]> {
    if (!ids.length) return ids;
    return (await this.idKind()) === "bigint" ? Promise.all(ids.map(bigintId)) : uuidIds(ids);
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    const numeric = (await this.idKind()) === "bigint";
    const rows = ids.map((id, i) => ({
      id: numeric ? Number(id) : id,
      content: documents[i].pageContent.replaceAll("\u0000", ""),
      metadata: withoutNul(documents[i].metadata ?? {}) as Record<string, unknown>,
      embedding: vectors[i],
    }));
    for (const part of chunk(rows, SUPABASE_UPSERT_BATCH)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Supabase itself: rows written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const wanted = new Map<string, string>(); // the table's id → the caller's
    for (const [i, id] of (await this.remoteIds(ids)).entries()) wanted.set(id, ids[i]);
    if (!wanted.size) return found;
    const client = await this.client();
    for (const part of chunk([...wanted.keys()], SUPABASE_DELETE_BATCH))
      for (const id of await client.existing(part)) found.add(wanted.get(id.toLowerCase()) ?? id);
    return found;
  }

  private search(client: SupabaseClient, vector: number[], k: number, filter?: Record<string, unknown>): Promise<SupabaseMatch[]> {
    if (filter) return client.match(vector, k, filter);
    return client.match(vector, k, this.filter.metadata ?? {}, this.filter.rpc);
  }

  /** The function's `similarity` as the score. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const matches = await this.search(await this.client(), query, this.topK(k), filter);
    return matches.map((m) => [documentOf(m), m.similarity ?? 0] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (the function answering their embeddings), then k of them picked. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      this.search(client, vector, fetchK, filter);
    return this.mmrSearch(query, options, nearest, vectorOf, documentOf);
  }
}
