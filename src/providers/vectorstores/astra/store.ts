// The Astra vector store: documents laid out as LangChain's AstraDBVectorStore (Flowise's node)
// writes them — {_id, text, $vector, ...metadata at the top level} — so a collection Flowise filled
// answers here and the other way round. As for the other hosted stores, D1 keeps only the
// bookkeeping rows (remote.ts). A missing collection is created at the first write (the vectors'
// dimension, similarityMetric, metadata indexed as LangChain asks); read before that, it has nothing.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { ServiceStore } from "../remote";
import type { AstraClient, AstraDoc } from "./client";

const ASTRA_PROVIDER = "astra";
const CONTENT_KEY = "text";
/** Documents per insertMany; ids per read (a find answers 20 a page) and per delete. */
const ASTRA_INSERT_BATCH = 20;
const ASTRA_ID_BATCH = 20;
/** The most a vector search answers. */
const ASTRA_MAX_TOP_K = 1000;

/** A document as LangChain reads it: `text` the page, the other fields (but the vector and similarity) metadata. */
function documentOf(d: AstraDoc): Document {
  const { _id, [CONTENT_KEY]: text, $vector: _v, $similarity: _s, ...metadata } = d;
  return new Document({ id: _id === undefined ? undefined : String(_id), pageContent: typeof text === "string" ? text : "", metadata });
}

export interface AstraSettings {
  /** cosine, euclidean or dot_product: a created collection's metric. */
  metric: string;
}

export class AstraVectorStore extends ServiceStore<AstraClient, AstraSettings> {
  declare FilterType: Record<string, unknown>;
  readonly provider = ASTRA_PROVIDER;
  readonly maxTopK = ASTRA_MAX_TOP_K;
  protected readonly deleteBatch = ASTRA_ID_BATCH;

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.prepareOnce(() => client.create(vectors[0].length, this.s.metric));
    const docs = ids.map((id, i) => ({
      ...(documents[i].metadata ?? {}),
      _id: id,
      [CONTENT_KEY]: documents[i].pageContent,
      $vector: vectors[i],
    }));
    for (const part of chunk(docs, ASTRA_INSERT_BATCH)) {
      // As LangChain: insert, then replace the ones that were there already (a rewrite).
      const there = new Set((await client.insertMany(part)).map(String));
      for (const d of part) if (there.has(d._id)) await client.replace(d);
    }
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Astra itself: documents written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk([...new Set(ids)], ASTRA_ID_BATCH)) for (const id of await client.existing(part)) found.add(id);
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const docs = await (await this.client()).nearest(query, this.topK(k), filter ?? {}, false);
    return (docs ?? []).map((d) => [documentOf(d), Number(d.$similarity ?? 0)] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const client = await this.client();
    const nearest = async (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      (await client.nearest(vector, fetchK, filter ?? {}, true)) ?? [];
    return this.mmrSearch(query, options, nearest, (d) => d.$vector, documentOf);
  }
}
