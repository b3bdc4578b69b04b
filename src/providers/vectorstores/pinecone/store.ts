// The pinecone vector store: vectors, text and metadata live in Pinecone the way LangChain's
// PineconeStore writes them (text under metadata.text, nested metadata flattened to "a.b" keys,
// nulls dropped), so an index Flowise filled answers here and the other way round. D1 keeps only
// the bookkeeping rows a document store needs (which loader and chunk each vector came from).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { chunk, chunkBy } from "../../../lib/chunk";
import { utf8Length } from "../../../lib/utf8";
import { RemoteDocumentsStore, jsonObjectInput } from "../remote";
import type { PineconeClient, PineconeMatch, PineconeVector } from "./client";

const PINECONE_PROVIDER = "pinecone";
const PINECONE_TEXT_KEY = "text";
/** Vectors per upsert request (LangChain's batch; Pinecone takes up to 1000 or 2 MB). */
const PINECONE_UPSERT_BATCH = 100;
/**
 * Bytes per upsert request as Pinecone counts them (its docs' batch table: 4 bytes a dimension plus
 * the metadata; 1536 dimensions with 2000 bytes of metadata fit 245 to its 2 MB).
 */
const PINECONE_UPSERT_BYTES = 2_000_000;
/** Pinecone's limit on one vector's metadata (which holds the chunk's text in LangChain's layout). */
const PINECONE_METADATA_BYTES = 40_960;
/** Ids per delete request (Pinecone's cap) and per fetch (they travel in the query string). */
const PINECONE_DELETE_BATCH = 1000;
const PINECONE_FETCH_BATCH = 100;

type Scalar = string | number | boolean;

/** Pinecone metadata of a document: scalars and string lists only, nested keys as "a.b". */
function pineconeMetadata(metadata: Record<string, unknown>, text: string): Record<string, Scalar | string[]> {
  const out: Record<string, Scalar | string[]> = {};
  const visit = (value: unknown, key: string) => {
    // NaN and Infinity too: JSON sends them as null, which Pinecone refuses like any null.
    if (value === null || value === undefined || (typeof value === "number" && !Number.isFinite(value))) return;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) out[key] = value as string[];
    else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${key}.${i}`));
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) visit(v, key ? `${key}.${k}` : k);
  };
  visit(metadata, "");
  out[PINECONE_TEXT_KEY] = text;
  return out;
}

const metadataBytes = (v: PineconeVector) => utf8Length(JSON.stringify(v.metadata ?? {}));

/**
 * Upsert batches Pinecone takes: at most PINECONE_UPSERT_BATCH vectors and PINECONE_UPSERT_BYTES
 * (large chunks, or long vectors, fill 2 MB well before 100 vectors). A vector whose metadata
 * alone is over Pinecone's limit is a 400 before anything is written.
 */
export function upsertBatches(vectors: PineconeVector[]): PineconeVector[][] {
  const sized = vectors.map((v) => {
    const meta = metadataBytes(v);
    if (meta > PINECONE_METADATA_BYTES) {
      const start = String(v.metadata?.[PINECONE_TEXT_KEY] ?? "").slice(0, 40);
      throw fail(
        "NODE_FAILED",
        `pinecone: a chunk ("${start}…") has ${meta} bytes of text and metadata; Pinecone keeps at most ${PINECONE_METADATA_BYTES} ` +
          "bytes a vector (the text is kept in its metadata): split the documents smaller (a text splitter's chunkSize)",
      );
    }
    return { v, bytes: 4 * v.values.length + meta };
  });
  return chunkBy(sized, PINECONE_UPSERT_BATCH, PINECONE_UPSERT_BYTES, (s) => s.bytes).map((batch) => batch.map((s) => s.v));
}

/** A metadata filter given as an object or JSON text (Flowise's pineconeMetadataFilter). */
export const filterOf = (value: unknown) => jsonObjectInput(value, "pineconeMetadataFilter");

export class PineconeVectorStore extends RemoteDocumentsStore {
  declare FilterType: Record<string, unknown>;
  readonly provider = PINECONE_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = PINECONE_DELETE_BATCH;

  constructor(
    embeddings: ConstructorParameters<typeof RemoteDocumentsStore>[0],
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    private readonly client: () => Promise<PineconeClient>,
    /** Pinecone's own namespace (pineconeNamespace; "" is the default one). */
    readonly pineconeNamespace: string,
    private readonly defaultFilter?: Record<string, unknown>,
  ) {
    super(embeddings, db, namespace);
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const records = ids.map((id, i) => ({
      id,
      values: vectors[i],
      metadata: pineconeMetadata(documents[i].metadata ?? {}, documents[i].pageContent),
    }));
    const batches = upsertBatches(records);
    const client = await this.client();
    for (const part of batches) await client.upsert(part, this.pineconeNamespace);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids, this.pineconeNamespace);
  }

  /** Asks Pinecone itself: vectors written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk([...new Set(ids)], PINECONE_FETCH_BATCH))
      for (const id of await client.fetchIds(part, this.pineconeNamespace)) found.add(id);
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const client = await this.client();
    const matches = await client.query(query, this.topK(k), this.pineconeNamespace, filter ?? this.defaultFilter);
    return matches.map((m) => [documentOf(m), m.score ?? 0] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      client.query(vector, fetchK, this.pineconeNamespace, filter ?? this.defaultFilter, true);
    return this.mmrSearch(query, options, nearest, (m) => m.values, documentOf);
  }
}

function documentOf(m: PineconeMatch): Document {
  const { [PINECONE_TEXT_KEY]: text, ...metadata } = m.metadata ?? {};
  return new Document({ id: m.id, pageContent: typeof text === "string" ? text : "", metadata });
}
