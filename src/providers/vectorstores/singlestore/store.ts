// The singlestore vector store: rows laid out as LangChain's SingleStoreVectorStore (Flowise's node)
// writes them — so a table Flowise filled answers here and the other way round. As for the other
// hosted stores, D1 keeps only the bookkeeping rows (remote.ts). The table's id is a BIGINT: a
// vector's id becomes a positive number below 2^53 made from it (a decimal id in that range is
// kept as it is). The table is made at the first write, as LangChain does.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { numericId } from "../../../lib/ids";
import { ServiceStore } from "../remote";
import type { SingleStoreClient, SingleStoreHit } from "./client";

const SINGLESTORE_PROVIDER = "singlestore";
/** Rows per INSERT (a 1536-dimension row is ~30 KB of SQL; MySQL 5.7's max_allowed_packet is 4 MiB). */
const INSERT_BATCH = 50;
const ID_BATCH = 1000;

/**
 * A hit's score, higher nearer: DOT_PRODUCT as SingleStore answers it; EUCLIDEAN_DISTANCE d as
 * 1 / (1 + d). (LangChain reads a `score` column its query never names, so Flowise's scores are NaN.)
 */
const scoreOf = (metric: string, raw: number) => (metric === "DOT_PRODUCT" ? raw : 1 / (1 + raw));

const documentOf = (h: SingleStoreHit): Document =>
  new Document({ pageContent: h.content ?? "", metadata: isObject(h.metadata) ? h.metadata : {} });

export interface SingleStoreSettings {
  metric: "DOT_PRODUCT" | "EUCLIDEAN_DISTANCE";
}

export class SingleStoreVectorStore extends ServiceStore<SingleStoreClient, SingleStoreSettings> {
  declare FilterType: Record<string, unknown>;
  readonly provider = SINGLESTORE_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = ID_BATCH;

  protected async remoteIds(ids: string[]): Promise<string[]> {
    return Promise.all(ids.map((id) => numericId(id)));
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.prepareOnce(() => client.ensureTable());
    const rows = ids.map((id, i) => ({ id, content: documents[i].pageContent, metadata: documents[i].metadata ?? {}, vector: vectors[i] }));
    for (const part of chunk(rows, INSERT_BATCH)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks SingleStore itself: rows written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const wanted = new Map<string, string>(); // the table's id → the caller's
    for (const [i, id] of (await this.remoteIds(ids)).entries()) wanted.set(id, ids[i]);
    if (!wanted.size) return found;
    const client = await this.client();
    for (const part of chunk([...wanted.keys()], ID_BATCH)) for (const id of await client.existing(part)) found.add(wanted.get(id) ?? id);
    return found;
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    const hits = await (await this.client()).search(query, this.topK(k), filter ?? {});
    return hits.filter((h) => h.content !== null).map((h) => [documentOf(h), scoreOf(this.s.metric, h.score)] as [Document, number]);
  }
}
