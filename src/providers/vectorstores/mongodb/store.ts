// The mongoDBAtlas vector store: documents laid out as Flowise's MongoDBAtlasVectorSearch writes them
// — {[textKey]: the text, [embeddingKey]: the vector (doubles), ...metadata at the top level} —
// with our vector ids as _id (Flowise lets the driver make ObjectIds, or takes the ids it is
// given: so do we, and a document it wrote answers here with its ObjectId as id). Search is
// Flowise's pipeline: $vectorSearch (index, path, queryVector, limit k, numCandidates 10·k, the
// filter), the score set from {$meta: "vectorSearchScore"} (Atlas's similarity: higher is nearer,
// as the repo's scores are), the vectors projected away. The Atlas Vector Search index is made in
// Atlas (as for Flowise); D1 keeps only the bookkeeping rows (remote.ts).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { chunk } from "../../../lib/chunk";
import type { BoundCollection, BsonDocument, MongoCollection } from "../../mongodb/client";
import { ServiceStore } from "../remote";

const MONGODB_PROVIDER = "mongodb";
/** Documents per insert (a 1536-dimension vector is ~21 kB of BSON). */
const MONGODB_WRITE_BATCH = 100;
/** Ids per find / delete (Flowise's delete takes 50 a call). */
const MONGODB_ID_BATCH = 50;
const DUPLICATE_KEY = 11000;
/** $vectorSearch's limit is at most 10,000 (numCandidates too: 10·k is capped there). */
const MONGODB_MAX_TOP_K = 1000;
const MAX_CANDIDATES = 10_000;

export interface MongoSettings {
  indexName: string;
  textKey: string;
  embeddingKey: string;
  /** mongoMetadataFilter as Flowise turns it: {key: {$eq: value}}, every search's unless the caller gives one. */
  filter?: Record<string, unknown>;
}

/** LangChain's filter: {preFilter, postFilterPipeline, includeEmbeddings}, or the pre-filter itself. */
export type MongoFilter = Record<string, unknown>;

interface Hit {
  doc: BsonDocument;
  score: number;
}

export class MongoAtlasVectorStore extends ServiceStore<MongoCollection, MongoSettings> {
  declare FilterType: MongoFilter;
  readonly provider = MONGODB_PROVIDER;
  readonly maxTopK = MONGODB_MAX_TOP_K;
  protected readonly deleteBatch = MONGODB_ID_BATCH;

  private docOf(id: string, vector: number[], d: DocumentInterface): BsonDocument {
    const { _id: _ignored, ...metadata } = (d.metadata ?? {}) as Record<string, unknown>;
    return { _id: id, [this.s.textKey]: d.pageContent, [this.s.embeddingKey]: Float64Array.from(vector), ...metadata };
  }

  /** Flowise's insertMany; a document already there (same _id: a rewrite) is replaced, as LangChain's upsert by id. */
  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const docs = ids.map((id, i) => this.docOf(id, vectors[i], documents[i]));
    const collection = await this.client();
    await collection.session(async (c) => {
      for (const part of chunk(docs, MONGODB_WRITE_BATCH)) {
        const errors = await c.insert(part);
        const other = errors.find((e) => e.code !== DUPLICATE_KEY);
        if (other)
          throw fail("UPSTREAM_FAILED", `${collection.client.label} insert failed: ${other.errmsg ?? "write error"} (${other.code})`);
        if (!errors.length) continue;
        await c.update(
          errors.map((e) => {
            const { _id, ...rest } = part[e.index];
            return { q: { _id }, u: rest, upsert: true };
          }),
        );
      }
    });
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).session((c) => c.delete([{ _id: { $in: ids } }]));
  }

  /** Asks MongoDB itself: documents written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    await (await this.client()).session(async (c) => {
      for (const part of chunk([...new Set(ids)], MONGODB_ID_BATCH)) {
        for (const d of await c.find({ _id: { $in: part } }, { projection: { _id: 1 } })) found.add(String(d._id));
      }
    });
    return found;
  }

  private pipeline(vector: number[], k: number, filter: MongoFilter | undefined): BsonDocument[] {
    const f = filter ?? this.s.filter;
    const wrapped = !!f && ("preFilter" in f || "postFilterPipeline" in f || "includeEmbeddings" in f);
    const preFilter = (wrapped ? f?.preFilter : f) as BsonDocument | undefined;
    const post = wrapped && Array.isArray(f?.postFilterPipeline) ? (f.postFilterPipeline as BsonDocument[]) : [];
    const withVectors = wrapped && f?.includeEmbeddings === true;
    return [
      {
        $vectorSearch: {
          queryVector: Float64Array.from(vector),
          index: this.s.indexName,
          path: this.s.embeddingKey,
          limit: k,
          numCandidates: Math.min(MAX_CANDIDATES, 10 * k),
          ...(preFilter && Object.keys(preFilter).length ? { filter: preFilter } : {}),
        },
      },
      { $set: { score: { $meta: "vectorSearchScore" } } },
      ...(withVectors ? [] : [{ $project: { [this.s.embeddingKey]: 0 } }]),
      ...post,
    ];
  }

  private async search(vector: number[], k: number, filter: MongoFilter | undefined): Promise<Hit[]> {
    const docs = await (await this.client()).session((c: BoundCollection) => c.aggregate(this.pipeline(vector, k, filter)));
    return docs.map((doc) => ({ doc, score: Number(doc.score ?? 0) }));
  }

  private documentOf(doc: BsonDocument, keepVector = false): Document {
    const { _id, score: _s, [this.s.textKey]: text, ...metadata } = doc;
    if (!keepVector) delete metadata[this.s.embeddingKey];
    return new Document({ id: _id === undefined ? undefined : String(_id), pageContent: typeof text === "string" ? text : "", metadata });
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: MongoFilter): Promise<[Document, number][]> {
    const hits = await this.search(query, this.topK(k), filter);
    return hits.map((h) => [this.documentOf(h.doc), h.score] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest with their vectors, then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<MongoFilter>): Promise<Document[]> {
    const nearest = (vector: number[], fetchK: number, filter: MongoFilter | undefined) => {
      const f = filter ?? this.s.filter;
      const wrapped = !!f && ("preFilter" in f || "postFilterPipeline" in f);
      return this.search(vector, fetchK, { ...(wrapped ? f : { preFilter: f }), includeEmbeddings: true });
    };
    return this.mmrSearch(
      query,
      options,
      nearest,
      (h) => h.doc[this.s.embeddingKey],
      (h) => this.documentOf(h.doc),
    );
  }
}
