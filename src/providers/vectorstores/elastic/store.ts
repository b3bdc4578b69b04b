// The elasticsearch and openSearch vector stores: documents laid out as LangChain's
// ElasticVectorSearch and OpenSearchVectorStore (Flowise's nodes) write them — {embedding, text,
// metadata}, under LangChain's index mapping (dense_vector / knn_vector) — so an index Flowise
// filled answers here and the other way round. As for Qdrant, D1 keeps only the bookkeeping rows
// (remote.ts). A missing index is created at the first write, sized by the vectors written; read
// before that, it has nothing to answer.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk, chunkBy } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { ServiceStore, documentBytes } from "../remote";
import type { SearchClient, SearchHit } from "./client";

/** Documents per bulk request. */
const BULK_BATCH = 200;
/**
 * Bytes per bulk request, about: Amazon OpenSearch Service refuses requests over 10 MiB on its small
 * instance types (Elastic advises 5–15 MB), and 200 documents of 3,072 dimensions are ~13 MB of JSON.
 */
const BULK_BYTES = 5_000_000;
/** Ids per delete and per _mget. */
const ID_BATCH = 500;
const TEXT = "text";
const METADATA = "metadata";
const EMBEDDING = "embedding";

export interface SearchStoreSettings {
  provider: "elasticsearch" | "openSearch";
  /** The index's creation body for vectors of `dimension`. */
  indexBody: (dimension: number) => Record<string, unknown>;
  /** Flowise's Elasticsearch node drops `pdf` and `loc` from the metadata it writes. */
  dropMetadata?: string[];
  /**
   * Vectors are sent scaled to unit length: Elasticsearch's similarity dot_product refuses any other
   * float vector, written or queried (its dense_vector docs), and many embedding models answer others.
   */
  unitVectors?: boolean;
}

/** `v` scaled to length 1 (a zero vector as it is): what dot_product ranks as cosine would. */
export function unitLength(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm ? v.map((x) => x / norm) : v;
}

/** LangChain's metadata terms: {key: value} as a term (a list: terms) on metadata.key. */
export function metadataTerms(filter?: Record<string, unknown>): Record<string, unknown> {
  const must: unknown[] = [];
  for (const [key, value] of Object.entries(filter ?? {}))
    must.push({ [Array.isArray(value) ? "terms" : "term"]: { [`${METADATA}.${key}`]: value } });
  return { must, must_not: [] };
}

export class SearchVectorStore extends ServiceStore<SearchClient, SearchStoreSettings> {
  declare FilterType: Record<string, unknown>;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = ID_BATCH;

  readonly provider: string;

  constructor(...args: ConstructorParameters<typeof ServiceStore<SearchClient, SearchStoreSettings>>) {
    super(...args);
    // A field, not a getter over `s`: the base constructors read it before `s` is set.
    this.provider = args[4].provider;
  }

  private ensureIndex(client: SearchClient, dimension: number): Promise<void> {
    return this.prepareOnce(async () => {
      if (!(await client.exists())) await client.create(this.s.indexBody(dimension));
    });
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.ensureIndex(client, vectors[0].length);
    const writes = ids.map((id, i) => {
      const metadata: Record<string, unknown> = { ...(documents[i].metadata ?? {}) };
      for (const key of this.s.dropMetadata ?? []) delete metadata[key];
      const text = documents[i].pageContent;
      const bytes = documentBytes(id, vectors[i], text, metadata);
      return { bytes, lines: [{ index: { _id: id } }, { [EMBEDDING]: this.sent(vectors[i]), [METADATA]: metadata, [TEXT]: text }] };
    });
    for (const part of chunkBy(writes, BULK_BATCH, BULK_BYTES, (w) => w.bytes)) await client.bulk(part.flatMap((w) => w.lines));
  }

  /** A vector as the index takes it. */
  private sent(v: number[]): number[] {
    return this.s.unitVectors ? unitLength(v) : v;
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).bulk(ids.map((id) => ({ delete: { _id: id } })));
  }

  /** Asks the service itself: documents written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk([...new Set(ids)], ID_BATCH)) for (const id of await client.existing(part)) found.add(id);
    return found;
  }

  /** The service's _score (larger is nearer), as LangChain's stores answer it. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const hits = await (await this.client()).knn(this.sent(query), this.topK(k), metadataTerms(filter), EMBEDDING, false);
    return hits.map((h) => [documentOf(h), h.score] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const nearest = async (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      (await this.client()).knn(this.sent(vector), fetchK, metadataTerms(filter), EMBEDDING, true);
    return this.mmrSearch(query, options, nearest, (h) => h.source[EMBEDDING], documentOf);
  }
}

function documentOf(h: SearchHit): Document {
  const text = h.source[TEXT];
  const metadata = h.source[METADATA];
  return new Document({ id: h.id, pageContent: typeof text === "string" ? text : "", metadata: isObject(metadata) ? metadata : {} });
}
