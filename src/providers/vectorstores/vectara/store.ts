// The vectara store: Vectara embeds and indexes text itself, so the store writes documents (text and
// metadata, one core document part each: the chunk as it is) and searches by the query's text; no model is
// asked for a vector (ServiceEmbedsText stands in for embeddings: an upsert, a document store's
// too, calls no embeddings model). D1 keeps only the bookkeeping rows (remote.ts): which loader and chunk
// each document came from, under the document id Vectara holds it by.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { Db } from "../../../env";
import { fail } from "../../../errors";
import { chunk } from "../../../lib/chunk";
import { RemoteDocumentsStore, ServiceEmbedsText } from "../remote";
import type { VectaraClient, VectaraQueryResponse, VectaraSearch } from "./client";

/** Calls in flight at once when indexing or deleting documents (Vectara takes one per call). */
const PARALLEL = 8;

/**
 * A query's results as documents, best first: the part's metadata, then its document's (LangChain's
 * order). v2 returns metadata values as they were indexed (numbers, objects), where v1 answered strings.
 */
export function hitsOf(res: VectaraQueryResponse): Array<{ document: Document; score: number }> {
  return (res.search_results ?? []).map((r) => {
    const metadata = { ...(r.part_metadata ?? {}), ...(r.document_metadata ?? {}) };
    return { document: new Document({ id: r.document_id, pageContent: r.text ?? "", metadata }), score: r.score ?? 0 };
  });
}

export class VectaraStore extends RemoteDocumentsStore {
  readonly provider = "vectara";
  readonly maxTopK = 100;
  protected readonly deleteBatch = 100;

  constructor(
    db: Db,
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    readonly vectara: () => Promise<VectaraClient>,
    /** The node's search settings (filter, lambda, context sentences, MMR). */
    readonly search: VectaraSearch,
    /** Flowise's vectorStore.k: results per search (the QA chain's topK). */
    readonly k: number,
  ) {
    super(new ServiceEmbedsText(), db, namespace);
  }

  _vectorstoreType(): string {
    return "vectara";
  }

  protected async writeRemote(ids: string[], _vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.vectara();
    const jobs = ids.map((id, i) => () => client.index(id, documents[i].pageContent, documents[i].metadata ?? {}));
    for (const part of chunk(jobs, PARALLEL)) await Promise.all(part.map((job) => job()));
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    const client = await this.vectara();
    for (const part of chunk(ids, PARALLEL)) await Promise.all(part.map((id) => client.deleteDoc(id)));
  }

  /** A caller's filter when it is Vectara's filter text, else the node's. */
  private searchOf(filter: unknown): VectaraSearch {
    return typeof filter === "string" && filter.trim() ? { ...this.search, filter } : this.search;
  }

  async similaritySearchWithScore(query: string, k = this.k, filter?: this["FilterType"]): Promise<[Document, number][]> {
    const n = this.topK(k);
    const res = await (await this.vectara()).query(query, n, this.searchOf(filter));
    // The MMR reranker is asked for k of its mmrK; kept to k all the same.
    return hitsOf(res)
      .slice(0, n)
      .map((h) => [h.document, h.score]);
  }

  async similaritySearch(query: string, k = this.k, filter?: this["FilterType"]): Promise<Document[]> {
    return (await this.similaritySearchWithScore(query, k, filter)).map(([d]) => d);
  }

  async similaritySearchVectorWithScore(): Promise<[Document, number][]> {
    throw fail("INVALID_FLOW", "Vectara searches by text (it embeds the query itself): it cannot be searched by a vector");
  }

  /** Uploads files into the corpus: how many were added, and how many were there already. */
  async uploadFiles(files: Array<{ name: string; mime: string; bytes: Uint8Array }>): Promise<{ added: number; existing: number }> {
    const client = await this.vectara();
    let added = 0;
    for (const f of files) if (await client.upload(f)) added++;
    return { added, existing: files.length - added };
  }
}
