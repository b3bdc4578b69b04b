// The redis vector store: hashes laid out as LangChain's RedisVectorStore (Flowise's node) writes
// them — doc:<index>:<id> holding {[vectorKey]: float32 bytes, [contentKey]: text, [metadataKey]:
// the metadata's JSON with -, : and " backslash-escaped} — under LangChain's index, so an index
// Flowise filled answers here and the other way round. As for the other hosted stores, D1 keeps
// only the bookkeeping rows (remote.ts). The index is made at the first write, sized by the vectors
// written (dropped first when replaceIndex is on, as Flowise does: its hashes stay and are indexed again).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { ServiceStore } from "../remote";
import { type RediSearchClient, type RedisHit, type RedisSearchKeys, SCORE_FIELD, float32Of } from "./client";

const REDIS_PROVIDER = "redis";
/** Hashes per pipeline (LangChain's batchSize is 1000; vectors make commands large). */
const REDIS_WRITE_BATCH = 200;
const REDIS_KEY_BATCH = 1000;

const decoder = new TextDecoder();
const escapeLc = (s: string) => s.replaceAll("-", "\\-").replaceAll(":", "\\:").replaceAll('"', '\\"');
const unescapeLc = (s: string) => s.replaceAll("\\-", "-").replaceAll("\\:", ":").replaceAll('\\"', '"');

export interface RedisSettings extends RedisSearchKeys {
  index: string;
  replaceIndex: boolean;
}

export class RedisVectorStore extends ServiceStore<RediSearchClient, RedisSettings> {
  /** LangChain's filter: terms any of which the metadata field holds. */
  declare FilterType: string[];
  readonly provider = REDIS_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = REDIS_KEY_BATCH;

  private ensureIndex(client: RediSearchClient, dim: number): Promise<void> {
    return this.prepareOnce(async () => {
      if (this.s.replaceIndex) await client.dropIndex();
      else if (await client.exists()) return;
      await client.create(dim);
    });
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.ensureIndex(client, vectors[0].length);
    const rows = ids.map((id, i) => ({
      id,
      vector: vectors[i],
      text: documents[i].pageContent,
      metadata: escapeLc(JSON.stringify(documents[i].metadata ?? {})),
    }));
    for (const part of chunk(rows, REDIS_WRITE_BATCH)) await client.write(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).remove(ids);
  }

  /** Asks Redis itself: hashes written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk(ids, REDIS_KEY_BATCH)) (await client.existing(part)).forEach((yes, i) => yes && found.add(part[i]));
    return found;
  }

  private filterOf(filter: string[] | undefined): string {
    if (!filter?.length) return "*";
    return `@${this.s.metadataKey}:(${filter.map(escapeLc).join("|")})`;
  }

  /** RediSearch's cosine distance as the score's complement (1 − distance): higher is nearer. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: string[]): Promise<[Document, number][]> {
    const hits = await (await this.client()).knn(query, this.topK(k), this.filterOf(filter));
    return hits.map((h) => [this.documentOf(h), 1 - Number(decoder.decode(h.fields.get(SCORE_FIELD)))] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked. */
  async maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<string[]>): Promise<Document[]> {
    const client = await this.client();
    const nearest = (vector: number[], fetchK: number, filter: string[] | undefined) =>
      client.knn(vector, fetchK, this.filterOf(filter), true);
    const vectorOf = (h: RedisHit) => {
      const bytes = h.fields.get(this.s.vectorKey);
      return bytes ? float32Of(bytes) : undefined;
    };
    return this.mmrSearch(query, options, nearest, vectorOf, (h) => this.documentOf(h));
  }

  private documentOf(h: RedisHit): Document {
    const content = h.fields.get(this.s.contentKey);
    const raw = h.fields.get(this.s.metadataKey);
    let metadata: unknown = {};
    try {
      metadata = raw ? JSON.parse(unescapeLc(decoder.decode(raw))) : {};
    } catch {
      // not LangChain's metadata: kept empty
    }
    return new Document({
      id: h.key.startsWith(this.prefixOf()) ? h.key.slice(this.prefixOf().length) : h.key,
      pageContent: content ? decoder.decode(content) : "",
      metadata: isObject(metadata) ? metadata : {},
    });
  }

  private prefixOf(): string {
    return `doc:${this.s.index}:`;
  }
}
