// The weaviate vector store: objects laid out as LangChain's WeaviateStore (Flowise's node) writes
// them — properties {[weaviateTextKey]: text, ...metadata flattened (nested keys joined by "_",
// other characters than letters, digits and "_" as "_")} — so a class Flowise filled answers here
// and the other way round. As for Qdrant, D1 keeps only the bookkeeping rows (remote.ts). A missing
// class is created at the first write; read before that, it has nothing to answer.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { chunk } from "../../../lib/chunk";
import { ServiceStore, uuidIds } from "../remote";
import type { WeaviateClient, WeaviateHit } from "./client";

const WEAVIATE_PROVIDER = "weaviate";
/** Objects per batch request. */
const WEAVIATE_INSERT_BATCH = 100;
/** Ids per delete and per lookup (Weaviate's default QUERY_MAXIMUM_RESULTS is 10,000). */
const WEAVIATE_ID_BATCH = 500;

/** LangChain's flattenObjectForWeaviate: nested objects flattened, arrays of one scalar type kept, others dropped. */
export function flattenForWeaviate(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const k = key.replace(/[^a-zA-Z0-9_]/g, "_");
    if (Array.isArray(value)) {
      if (!value.length || (typeof value[0] !== "object" && value.every((x) => typeof x === typeof value[0]))) out[k] = value;
    } else if (value !== null && typeof value === "object") {
      for (const [deep, v] of Object.entries(flattenForWeaviate(value as Record<string, unknown>))) out[`${k}_${deep}`] = v;
    } else if (value !== null && value !== undefined) out[k] = value;
  }
  return out;
}

export interface WeaviateSettings {
  textKey: string;
  /** weaviateMetadataKeys: the properties read back besides the text (all when not given). */
  metadataKeys?: string[];
  /** weaviateFilter: every search's `where` unless the caller gives one. */
  filter?: Record<string, unknown>;
}

export class WeaviateVectorStore extends ServiceStore<WeaviateClient, WeaviateSettings> {
  declare FilterType: Record<string, unknown>;
  readonly provider = WEAVIATE_PROVIDER;
  readonly maxTopK = 1000;
  protected readonly deleteBatch = WEAVIATE_ID_BATCH;

  /** Weaviate takes UUIDs only: any other id is replaced by a UUID made from it. */
  protected async remoteIds(ids: string[]): Promise<string[]> {
    return uuidIds(ids);
  }

  private ensureClass(client: WeaviateClient): Promise<void> {
    return this.prepareOnce(async () => {
      if ((await client.properties()) === null) await client.create();
    });
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const objects = ids.map((id, i) => {
      const metadata = documents[i].metadata ?? {};
      if (Object.hasOwn(metadata, "id"))
        throw fail("INVALID_FLOW", "weaviate: a document's metadata must not have an `id` (LangChain's rule)");
      return { id, vector: vectors[i], properties: { [this.s.textKey]: documents[i].pageContent, ...flattenForWeaviate(metadata) } };
    });
    const client = await this.client();
    await this.ensureClass(client);
    for (const part of chunk(objects, WEAVIATE_INSERT_BATCH)) await client.insert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).deleteIds(ids);
  }

  /** Asks Weaviate itself: objects written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const wanted = new Map<string, string>(); // Weaviate's id → the caller's
    for (const [i, id] of (await this.remoteIds(ids)).entries()) wanted.set(id, ids[i]);
    if (!wanted.size) return found;
    const client = await this.client();
    if ((await client.properties()) === null) return found;
    for (const part of chunk([...wanted.keys()], WEAVIATE_ID_BATCH))
      for (const id of await client.existing(part)) found.add(wanted.get(id) ?? id);
    return found;
  }

  /** The nearest objects; none when the class does not exist yet. */
  private async search(query: number[], k: number, filter: Record<string, unknown> | undefined, withVector: boolean) {
    const client = await this.client();
    const known = await client.properties();
    if (known === null) return [];
    const wanted = this.s.metadataKeys ? [this.s.textKey, ...this.s.metadataKeys] : known;
    const properties = [...new Set(wanted)].filter((p) => known.includes(p));
    return client.nearVector(query, this.topK(k), properties, filter ?? this.s.filter, withVector);
  }

  /** Weaviate's distance as the score (smaller is nearer), as LangChain's WeaviateStore answers it. */
  async similaritySearchVectorWithScore(query: number[], k: number, filter?: Record<string, unknown>): Promise<[Document, number][]> {
    return (await this.search(query, k, filter, false)).map((h) => [this.documentOf(h), h.distance] as [Document, number]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<Record<string, unknown>>,
  ): Promise<Document[]> {
    const nearest = (vector: number[], fetchK: number, filter: Record<string, unknown> | undefined) =>
      this.search(vector, fetchK, filter, true);
    return this.mmrSearch(
      query,
      options,
      nearest,
      (h) => h.vector,
      (h) => this.documentOf(h),
    );
  }

  private documentOf(h: WeaviateHit): Document {
    const { [this.s.textKey]: text, ...rest } = h.properties;
    const metadata = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined));
    return new Document({ id: h.id, pageContent: text === undefined || text === null ? "" : String(text), metadata });
  }
}
