// The qdrant vector store: points laid out as LangChain's QdrantVectorStore (Flowise's node) writes
// them — payload {[contentPayloadKey]: text, [metadataPayloadKey]: metadata}, nested metadata kept
// as it is — so a collection Flowise filled answers here and the other way round. As for Pinecone,
// D1 keeps only the bookkeeping rows (remote.ts). A missing collection is created at the first
// write, sized by the vectors written; read before that, it has nothing to answer.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { ServiceStore, uuidIds } from "../remote";
import type { QdrantClient, QdrantHit } from "./client";

const QDRANT_PROVIDER = "qdrant";
/** Points per upsert request when batchSize is not set (LangChain sends all at once; this keeps requests small). */
const QDRANT_UPSERT_BATCH = 256;
/** Ids per delete request (LangChain's batch) and per retrieve. */
const QDRANT_DELETE_BATCH = 1000;
const QDRANT_RETRIEVE_BATCH = 1000;

export interface QdrantSettings {
  contentKey: string;
  metadataKey: string;
  /** Cosine, Euclid, Dot or Manhattan: a created collection's distance. */
  distance: string;
  /** qdrantCollectionConfiguration: the rest of a created collection's configuration. */
  collectionConfig?: Record<string, unknown>;
  /** qdrantFilter: every search's filter unless the caller gives one. */
  filter?: Record<string, unknown>;
  batchSize?: number;
}

export class QdrantVectorStore extends ServiceStore<QdrantClient, QdrantSettings> {
  declare FilterType: Record<string, unknown>;
  readonly provider = QDRANT_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = QDRANT_DELETE_BATCH;

  /** Qdrant takes UUIDs (or unsigned integers) only. */
  protected async remoteIds(ids: string[]): Promise<string[]> {
    return uuidIds(ids);
  }

  /** Creates the collection when missing: Flowise's config, its vectors sized as the embeddings answered. */
  private ensureCollection(client: QdrantClient, size: number): Promise<void> {
    return this.prepareOnce(async () => {
      if (await client.exists()) return;
      const config = this.s.collectionConfig ?? {};
      const vectors = isObject(config.vectors) ? config.vectors : {};
      await client.create({ ...config, vectors: { ...vectors, size, distance: this.s.distance } });
    });
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.ensureCollection(client, vectors[0].length);
    const points = ids.map((id, i) => ({
      id,
      vector: vectors[i],
      payload: { [this.s.contentKey]: documents[i].pageContent, [this.s.metadataKey]: documents[i].metadata ?? {} },
    }));
    for (const part of chunk(points, this.s.batchSize ?? QDRANT_UPSERT_BATCH)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Qdrant itself: points written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const wanted = new Map<string, string>(); // Qdrant's id → the caller's
    for (const [i, id] of (await this.remoteIds(ids)).entries()) wanted.set(id, ids[i]);
    if (!wanted.size) return found;
    const client = await this.client();
    for (const part of chunk([...wanted.keys()], QDRANT_RETRIEVE_BATCH))
      for (const id of await client.retrieveIds(part)) found.add(wanted.get(String(id)) ?? String(id));
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const hits = await (await this.client()).search(query, this.topK(k), filter ?? this.s.filter);
    return (hits ?? []).map((h) => [this.documentOf(h), h.score ?? 0] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = async (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      (await client.search(vector, fetchK, filter ?? this.s.filter, true)) ?? [];
    return this.mmrSearch(
      query,
      options,
      nearest,
      (h) => h.vector,
      (h) => this.documentOf(h),
    );
  }

  private documentOf(h: QdrantHit): Document {
    const payload = h.payload ?? {};
    const text = payload[this.s.contentKey];
    const metadata = payload[this.s.metadataKey];
    return new Document({
      id: String(h.id),
      pageContent: typeof text === "string" ? text : "",
      metadata: isObject(metadata) ? metadata : {},
    });
  }
}
