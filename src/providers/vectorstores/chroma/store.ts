// The chroma vector store: records laid out as LangChain's Chroma (Flowise's node) writes them — the
// text as the record's document, metadata with `loc.lines` as locFrom/locTo and other nested values
// as JSON text (Chroma takes only scalars) — so a collection Flowise filled answers here and the
// other way round. As for Pinecone, D1 keeps only the bookkeeping rows (remote.ts). A missing
// collection is created at the first write; read before that, it has nothing to answer.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { RemoteDocumentsStore } from "../remote";
import type { ChromaClient, ChromaHit, ChromaMetadata } from "./client";

const CHROMA_PROVIDER = "chroma";
/** Records per upsert: Chroma Cloud takes at most 300 a write (a self-hosted server's max_batch_size is larger). */
const CHROMA_UPSERT_BATCH = 300;
/** Results per query: Chroma Cloud answers at most 300. */
const CHROMA_MAX_RESULTS = 300;
/** Ids per delete and per get: within the 300 records a write, and results a read, Chroma Cloud takes. */
const CHROMA_DELETE_BATCH = 300;

/** Chroma metadata of a document, as LangChain's Chroma writes it. */
export function chromaMetadata(metadata: Record<string, unknown>): ChromaMetadata | null {
  const { loc, ...rest } = metadata;
  const lines = isObject(loc) && isObject(loc.lines) ? loc.lines : undefined;
  const out: ChromaMetadata = {};
  const all: Record<string, unknown> = {
    ...rest,
    ...(lines?.from !== undefined ? { locFrom: lines.from } : {}),
    ...(lines?.to !== undefined ? { locTo: lines.to } : {}),
  };
  for (const [k, v] of Object.entries(all)) {
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (v !== undefined) {
      const text = JSON.stringify(v);
      if (text !== undefined) out[k] = text;
    }
  }
  // An empty metadata map is sent as none (Chroma refuses some empty ones).
  return Object.keys(out).length ? out : null;
}

/** A record's metadata read back: locFrom/locTo as `loc.lines` again, as LangChain's Chroma does. */
function documentMetadata(metadata: ChromaMetadata | null): Record<string, unknown> {
  const m: Record<string, unknown> = { ...(metadata ?? {}) };
  if (m.locFrom && m.locTo) {
    m.loc = { lines: { from: m.locFrom, to: m.locTo } };
    delete m.locFrom;
    delete m.locTo;
  }
  return m;
}

const documentOf = (h: ChromaHit): Document =>
  new Document({ id: h.id, pageContent: h.document ?? "", metadata: documentMetadata(h.metadata) });

export class ChromaVectorStore extends RemoteDocumentsStore {
  declare FilterType: Record<string, unknown>;
  readonly provider = CHROMA_PROVIDER;
  readonly maxTopK = CHROMA_MAX_RESULTS;
  protected readonly deleteBatch = CHROMA_DELETE_BATCH;
  /** The collection's id once known (asked once per store). */
  private collectionId: string | undefined;

  constructor(
    embeddings: ConstructorParameters<typeof RemoteDocumentsStore>[0],
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    private readonly client: () => Promise<ChromaClient>,
    /** chromaMetadataFilter: every search's `where` unless the caller gives one. */
    private readonly filter?: Record<string, unknown>,
  ) {
    super(embeddings, db, namespace);
  }

  /** The collection's id: created when `create`, else null when it does not exist yet. */
  private async collection(client: ChromaClient, create: boolean): Promise<string | null> {
    if (this.collectionId) return this.collectionId;
    const id = create ? await client.findOrCreate() : await client.find();
    if (id) this.collectionId = id;
    return id;
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    const collection = (await this.collection(client, true)) as string;
    for (let at = 0; at < ids.length; at += CHROMA_UPSERT_BATCH) {
      const part = <T>(list: T[]) => list.slice(at, at + CHROMA_UPSERT_BATCH);
      await client.upsert(collection, {
        ids: part(ids),
        embeddings: part(vectors),
        metadatas: part(documents).map((d) => chromaMetadata(d.metadata ?? {})),
        documents: part(documents).map((d) => d.pageContent),
      });
    }
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    const client = await this.client();
    const collection = await this.collection(client, false);
    if (collection) await client.deleteIds(collection, ids);
  }

  /** Asks Chroma itself: records written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    const collection = await this.collection(client, false);
    if (!collection) return found;
    for (const part of chunk([...new Set(ids)], CHROMA_DELETE_BATCH))
      for (const id of await client.existing(collection, part)) found.add(id);
    return found;
  }

  /** Chroma's distance as the score (smaller is nearer), as LangChain's Chroma answers it. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const client = await this.client();
    const collection = await this.collection(client, false);
    if (!collection) return [];
    const hits = await client.query(collection, query, this.topK(k), filter ?? this.filter);
    return hits.map((h) => [documentOf(h), h.distance] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = async (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) => {
      const collection = await this.collection(client, false);
      return collection ? client.query(collection, vector, fetchK, filter ?? this.filter, true) : [];
    };
    return this.mmrSearch(query, options, nearest, (h) => h.embedding, documentOf);
  }
}
