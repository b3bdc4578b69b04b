// The pinecone vector store: vectors, text and metadata live in Pinecone the way LangChain's
// PineconeStore writes them (text under metadata.text, nested metadata flattened to "a.b" keys,
// nulls dropped), so an index Flowise filled answers here and the other way round. D1 keeps only
// the bookkeeping rows a document store needs (which loader and chunk each vector came from).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { runBatchPaced } from "../d1-json";
import { D1DocumentsStore } from "../d1-documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { maximalMarginalRelevance } from "@langchain/core/utils/math";
import type { PineconeClient, PineconeMatch } from "./client";
import type { AddVectorsOptions } from "../types";

const PINECONE_PROVIDER = "pinecone";
const PINECONE_TEXT_KEY = "text";
/** Vectors per upsert request (LangChain's batch; Pinecone takes up to 1000 or 2 MB). */
const PINECONE_UPSERT_BATCH = 100;
/** Ids per delete request (Pinecone's cap) and per fetch (they travel in the query string). */
const PINECONE_DELETE_BATCH = 1000;
const PINECONE_FETCH_BATCH = 100;

type Scalar = string | number | boolean;

/** Pinecone metadata of a document: scalars and string lists only, nested keys as "a.b". */
function pineconeMetadata(metadata: Record<string, unknown>, text: string): Record<string, Scalar | string[]> {
  const out: Record<string, Scalar | string[]> = {};
  const visit = (value: unknown, key: string) => {
    if (value === null || value === undefined) return;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) out[key] = value as string[];
    else if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${key}.${i}`));
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) visit(v, key ? `${key}.${k}` : k);
  };
  visit(metadata, "");
  out[PINECONE_TEXT_KEY] = text;
  return out;
}

/** A metadata filter given as an object or JSON text (Flowise's pineconeMetadataFilter). */
export function filterOf(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_FLOW", "pineconeMetadataFilter is not valid JSON");
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw fail("INVALID_FLOW", "pineconeMetadataFilter must be a JSON object");
  return v as Record<string, unknown>;
}

const slices = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

export class PineconeVectorStore extends D1DocumentsStore {
  declare FilterType: Record<string, unknown>;
  readonly provider = PINECONE_PROVIDER;
  readonly maxTopK = 1000;

  constructor(
    embeddings: ConstructorParameters<typeof D1DocumentsStore>[0],
    db: ConstructorParameters<typeof D1DocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    private readonly client: () => Promise<PineconeClient>,
    /** Pinecone's own namespace (pineconeNamespace; "" is the default one). */
    readonly pineconeNamespace: string,
    private readonly defaultFilter?: Record<string, unknown>,
  ) {
    super(embeddings, db, namespace);
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    const client = await this.client();
    const records = ids.map((id, i) => ({
      id,
      values: vectors[i],
      metadata: pineconeMetadata(documents[i].metadata ?? {}, documents[i].pageContent),
    }));
    // D1 keeps only which loader each vector came from: the text lives in Pinecone.
    const bookkeeping = documents.map((d) => ({
      pageContent: "",
      metadata: typeof d.metadata?.docId === "string" ? { docId: d.metadata.docId } : {},
    }));
    await runBatchPaced(this.db, this.documentWrites(ids, bookkeeping, { chunkNos: options?.chunkNos }));
    try {
      for (const part of slices(records, PINECONE_UPSERT_BATCH)) await client.upsert(part, this.pineconeNamespace);
    } catch (err) {
      await runBatchPaced(this.db, this.documentDeletes(ids)).catch(() => {});
      throw err;
    }
    return ids;
  }

  /** Asks Pinecone itself: vectors written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of slices([...new Set(ids)], PINECONE_FETCH_BATCH))
      for (const id of await client.fetchIds(part, this.pineconeNamespace)) found.add(id);
    return found;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = [...new Set(params?.ids ?? [])];
    if (!ids.length) return;
    const client = await this.client();
    for (const part of slices(ids, PINECONE_DELETE_BATCH)) {
      await client.deleteIds(part, this.pineconeNamespace);
      await runBatchPaced(this.db, this.documentDeletes(part));
    }
  }

  /** Removes the vectors this store wrote (never the whole Pinecone namespace, which others may share). */
  async clear(): Promise<number> {
    const ids = await this.allIds();
    await this.delete({ ids });
    return ids.length;
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
    const vector = await this.embeddings.embedQuery(query);
    const matches = await client.query(
      vector,
      this.topK(options.fetchK ?? 20),
      this.pineconeNamespace,
      options.filter ?? this.defaultFilter,
      true,
    );
    const withValues = matches.filter((m) => Array.isArray(m.values) && m.values.length === vector.length);
    if (!withValues.length) return [];
    const picked = maximalMarginalRelevance(
      vector,
      withValues.map((m) => m.values!),
      options.lambda ?? 0.5,
      options.k,
    );
    return picked.map((i) => documentOf(withValues[i]));
  }

  private topK(k: number): number {
    return Math.max(1, Math.min(this.maxTopK, k));
  }
}

function documentOf(m: PineconeMatch): Document {
  const { [PINECONE_TEXT_KEY]: text, ...metadata } = m.metadata ?? {};
  return new Document({ id: m.id, pageContent: typeof text === "string" ? text : "", metadata });
}
