// The upstash vector store (Upstash Vector): vectors laid out as LangChain's UpstashVectorStore
// (Flowise's node) writes them — the text under metadata._pageContentLC beside the document's own
// metadata, nested values kept — so an index Flowise filled answers here and the other way round.
// As for Pinecone, D1 keeps only the bookkeeping rows (remote.ts).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { RemoteDocumentsStore } from "../remote";
import type { UpstashHit, UpstashVectorClient } from "./client";

const UPSTASH_PROVIDER = "upstash";
const UPSTASH_TEXT_KEY = "_pageContentLC";
/** Vectors per upsert (LangChain's batch is 1000; smaller requests here). */
const UPSTASH_UPSERT_BATCH = 500;
/** Ids per delete and per fetch. */
const UPSTASH_DELETE_BATCH = 1000;

function documentOf(h: UpstashHit): Document {
  const { [UPSTASH_TEXT_KEY]: text, ...metadata } = h.metadata ?? {};
  return new Document({ id: String(h.id), pageContent: typeof text === "string" ? text : "", metadata });
}

export class UpstashVectorStore extends RemoteDocumentsStore {
  readonly provider = UPSTASH_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = UPSTASH_DELETE_BATCH;

  constructor(
    embeddings: ConstructorParameters<typeof RemoteDocumentsStore>[0],
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential, which holds the URL, is read then). */
    private readonly client: () => Promise<UpstashVectorClient>,
    /** upstashMetadataFilter: every search's filter unless the caller gives one. */
    private readonly filter?: string,
  ) {
    super(embeddings, db, namespace);
  }

  /** A caller's filter when it is Upstash's filter text, else upstashMetadataFilter. */
  private filterOf(filter: unknown): string | undefined {
    return typeof filter === "string" && filter ? filter : this.filter;
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    const records = ids.map((id, i) => ({
      id,
      vector: vectors[i],
      metadata: { [UPSTASH_TEXT_KEY]: documents[i].pageContent, ...(documents[i].metadata ?? {}) },
    }));
    for (const part of chunk(records, UPSTASH_UPSERT_BATCH)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Upstash itself: vectors written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk([...new Set(ids)], UPSTASH_DELETE_BATCH)) for (const id of await client.existing(part)) found.add(id);
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: object): Promise<[Document, number][]> {
    const hits = await (await this.client()).query(query, this.topK(k), this.filterOf(filter));
    return hits.map((h) => [documentOf(h), h.score ?? 0] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<object>): Promise<Document[]> {
    const client = await this.client();
    const nearest = (vector: number[], fetchK: number, filter: object | undefined) =>
      client.query(vector, fetchK, this.filterOf(filter), true);
    return this.mmrSearch(query, options, nearest, (h) => h.vector, documentOf);
  }
}
