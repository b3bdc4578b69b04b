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
import { chunk, chunkBy } from "../../../lib/chunk";
import { utf8Length } from "../../../lib/utf8";
import { encodeBson } from "../../mongodb/bson";
import type { BoundCollection, BsonDocument, MongoCollection } from "../../mongodb/client";
import { ServiceStore } from "../remote";

const MONGODB_PROVIDER = "mongodb";
/** Documents per insert (a 1536-dimension vector is ~21 kB of BSON). */
const MONGODB_WRITE_BATCH = 100;
/** MongoDB's maxBsonObjectSize: a larger document is refused ("object to insert too large"). */
const MONGODB_MAX_DOCUMENT = 16 * 1024 * 1024;
/**
 * The documents' BSON bytes an insert holds at most: our client sends them in the command's body, which
 * MongoDB takes up to 16 MiB + 16 KiB (over it, the whole insert is refused); the rest is the envelope's.
 */
const MONGODB_WRITE_BYTES = MONGODB_MAX_DOCUMENT - 64 * 1024;
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

const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** `value` with NUL taken out of its keys, nested ones too: a BSON key cannot hold one (nor can a MongoDB field name). */
function withoutNulKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulKeys);
  if (!plainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll("\u0000", ""), withoutNulKeys(v)]));
}

/** An array of `n` doubles in BSON: its size and end, then per element a type byte, the index as a key (NUL-ended) and 8 bytes. */
function doublesBytes(n: number): number {
  let bytes = 5;
  for (let i = 0; i < n; i++) bytes += 10 + String(i).length;
  return bytes;
}

const hasDollarField = (doc: BsonDocument) => Object.keys(doc).some((k) => k.startsWith("$"));

export class MongoAtlasVectorStore extends ServiceStore<MongoCollection, MongoSettings> {
  declare FilterType: MongoFilter;
  readonly provider = MONGODB_PROVIDER;
  readonly maxTopK = MONGODB_MAX_TOP_K;
  protected readonly deleteBatch = MONGODB_ID_BATCH;

  private docOf(id: string, vector: number[], d: DocumentInterface): BsonDocument {
    const { _id: _ignored, ...metadata } = withoutNulKeys(d.metadata ?? {}) as Record<string, unknown>;
    return { _id: id, [this.s.textKey]: d.pageContent, [this.s.embeddingKey]: Float64Array.from(vector), ...metadata };
  }

  /** A document's BSON size: the vector's counted (encoding 3,072 doubles takes ~2 ms), the rest encoded. */
  private bsonBytes(doc: BsonDocument, dims: number): number {
    const { [this.s.embeddingKey]: _vector, ...rest } = doc;
    return encodeBson(rest).length + 2 + utf8Length(this.s.embeddingKey) + doublesBytes(dims);
  }

  /**
   * Flowise's insertMany, in inserts of at most MONGODB_WRITE_BATCH documents and MONGODB_WRITE_BYTES; a
   * document already there (same _id: a rewrite) is replaced, as LangChain's upsert by id. A document over
   * MongoDB's 16 MiB is a 400 before anything is written.
   */
  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const sized = ids.map((id, i) => {
      const doc = this.docOf(id, vectors[i], documents[i]);
      const bytes = this.bsonBytes(doc, vectors[i].length);
      if (bytes > MONGODB_MAX_DOCUMENT)
        throw fail(
          "NODE_FAILED",
          `mongoDBAtlas: a chunk ("${documents[i].pageContent.slice(0, 40)}…") makes a document of ${bytes} bytes (text, vector ` +
            `and metadata); MongoDB keeps at most ${MONGODB_MAX_DOCUMENT} bytes a document: split the documents smaller ` +
            "(a text splitter's chunkSize)",
        );
      return { doc, bytes };
    });
    const collection = await this.client();
    await collection.session(async (c) => {
      for (const batch of chunkBy(sized, MONGODB_WRITE_BATCH, MONGODB_WRITE_BYTES, (s) => s.bytes)) {
        const part = batch.map((s) => s.doc);
        const errors = await c.insert(part);
        const other = errors.find((e) => e.code !== DUPLICATE_KEY);
        if (other)
          throw fail("UPSTREAM_FAILED", `${collection.client.label} insert failed: ${other.errmsg ?? "write error"} (${other.code})`);
        const again = errors.map((e) => part[e.index]);
        if (again.length) await this.rewrite(c, collection.client.label, again);
      }
    });
  }

  /**
   * Documents already stored under their _id, written again. A replacement may not hold a $-prefixed
   * top-level field (MongoDB refuses it there, though an insert takes it): such a document is deleted and
   * inserted again instead.
   */
  private async rewrite(c: BoundCollection, label: string, docs: BsonDocument[]): Promise<void> {
    const replaced = docs.filter((d) => !hasDollarField(d));
    if (replaced.length) await c.update(replaced.map(({ _id, ...rest }) => ({ q: { _id }, u: rest, upsert: true })));
    const reinserted = docs.filter(hasDollarField);
    if (!reinserted.length) return;
    await c.delete([{ _id: { $in: reinserted.map((d) => d._id) } }]);
    const [refused] = await c.insert(reinserted);
    if (refused) throw fail("UPSTREAM_FAILED", `${label} insert failed: ${refused.errmsg ?? "write error"} (${refused.code})`);
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
