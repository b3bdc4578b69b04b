// The meilisearch vector store: documents laid out as Flowise's node writes them — {objectID,
// pageContent, metadata, _vectors: {ollama: {embeddings, regenerate: false}}} — and searched as its
// retriever does: Meilisearch's hybrid search with the question's text and vector (semanticRatio),
// documents answered with metadata {objectID, ...metadata}. As for Qdrant, D1 keeps only the
// bookkeeping rows (remote.ts), which also answer which chunks are already there. A missing index is
// created at the first write; read before that, it has nothing to answer.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { chunkBy } from "../../../lib/chunk";
import { isUuid, stableId } from "../../../lib/ids";
import { isObject } from "../../../lib/inputs";
import { utf8Length } from "../../../lib/utf8";
import { ServiceStore } from "../remote";
import { MEILI_EMBEDDER, type MeiliClient, type MeiliHit } from "./client";

/** Documents per add request, ids per delete. */
const MEILI_BATCH = 500;
/**
 * Bytes of JSON per add request: Meilisearch refuses a request over its payload limit (100 MB by
 * default) with a 413, and 500 long chunks with their vectors pass that (70,000 CJK characters are
 * 210 kB a document). Half the default leaves room for a server that sets it lower.
 */
const MEILI_BATCH_BYTES = 50_000_000;

export interface MeiliSettings {
  semanticRatio: number;
  /** searchFilter: Meilisearch's filter expression (e.g. metadata.source = 'a.txt'). */
  filter?: string;
}

const documentOf = (h: MeiliHit): Document =>
  new Document({
    id: typeof h.objectID === "string" ? h.objectID : undefined,
    pageContent: typeof h.pageContent === "string" ? h.pageContent : "",
    metadata: { objectID: h.objectID, ...(isObject(h.metadata) ? h.metadata : {}) },
  });

export class MeiliVectorStore extends ServiceStore<MeiliClient, MeiliSettings> {
  readonly provider = "meilisearch";
  readonly maxTopK = 1000;
  protected readonly deleteBatch = MEILI_BATCH;

  /** Meilisearch ids are letters, digits, - and _: any other id is replaced by a UUID made from it. */
  protected async remoteIds(ids: string[]): Promise<string[]> {
    return Promise.all(ids.map((id) => (isUuid(id) || /^[A-Za-z0-9_-]{1,511}$/.test(id) ? id : stableId(id))));
  }

  private ensureIndex(client: MeiliClient, dimensions: number): Promise<void> {
    return this.prepareOnce(async () => client.prepare(!(await client.exists()), dimensions));
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.ensureIndex(client, vectors[0].length);
    const docs = ids.map((objectID, i) => ({
      pageContent: documents[i].pageContent,
      metadata: documents[i].metadata ?? {},
      objectID,
      _vectors: { [MEILI_EMBEDDER]: { embeddings: vectors[i], regenerate: false } },
    }));
    for (const part of chunkBy(docs, MEILI_BATCH, MEILI_BATCH_BYTES, (d) => utf8Length(JSON.stringify(d)) + 1)) await client.add(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** The hybrid search, with the question's text (Flowise's retriever sends both). */
  async similaritySearchWithScore(query: string, k = 4, filter?: unknown): Promise<[Document, number][]> {
    return this.searchWith(query, await this.embeddings.embedQuery(query), k, filter);
  }

  async similaritySearch(query: string, k = 4, filter?: unknown): Promise<Document[]> {
    return (await this.similaritySearchWithScore(query, k, filter)).map(([d]) => d);
  }

  /** Without a text (a vector only): the semantic part alone answers. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: unknown): Promise<[Document, number][]> {
    return this.searchWith("", query, k, filter);
  }

  private async searchWith(q: string, vector: number[], k: number, filter?: unknown): Promise<[Document, number][]> {
    const f = typeof filter === "string" && filter ? filter : this.s.filter;
    const hits = await (await this.client()).search(q, vector, this.topK(k), this.s.semanticRatio, f);
    return hits.map((h) => [documentOf(h), Number(h._rankingScore ?? 0)] as [Document, number]);
  }
}
