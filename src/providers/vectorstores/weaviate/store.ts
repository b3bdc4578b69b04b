// The weaviate vector store: objects laid out as LangChain's WeaviateStore (Flowise's node) writes
// them — properties {[weaviateTextKey]: text, ...metadata flattened (nested keys joined by "_",
// other characters than letters, digits and "_" as "_"; a key Weaviate would refuse as a property
// name made one it takes: weaviatePropertyName)} — so a class Flowise filled answers here and the
// other way round. As for Qdrant, D1 keeps only the bookkeeping rows (remote.ts). A missing
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
function flattenKeys(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const k = key.replace(/[^a-zA-Z0-9_]/g, "_");
    if (Array.isArray(value)) {
      if (!value.length || (typeof value[0] !== "object" && value.every((x) => typeof x === typeof value[0]))) out[k] = value;
    } else if (value !== null && typeof value === "object") {
      for (const [deep, v] of Object.entries(flattenKeys(value as Record<string, unknown>))) out[`${k}_${deep}`] = v;
    } else if (value !== null && value !== undefined) out[k] = value;
  }
  return out;
}

const PROPERTY_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,230}$/;
const RESERVED_NAMES = new Set(["_additional", "id", "_id"]);
const RESERVED_SUFFIX = /(_searchable|_rangeable|_temp|__meta_count|_propertyLength|_nullState)$/;

/**
 * A flattened key as a name Weaviate takes for a new property (undefined: none). Weaviate refuses the
 * whole object otherwise (its docs' "Collection definition"): a name must match
 * /[_A-Za-z][_0-9A-Za-z]{0,230}/ and be neither a reserved word (_additional, id, _id) nor end in a
 * reserved suffix (_temp, _searchable, …). So a leading digit gets a "_" before it ("2024" → "_2024"),
 * a reserved name or suffix a "_" after it ("_id" → "_id_"), and an empty or too long key is left out.
 */
export function weaviatePropertyName(key: string): string | undefined {
  let name = /^[0-9]/.test(key) ? `_${key}` : key;
  if (RESERVED_NAMES.has(name) || RESERVED_SUFFIX.test(name)) name = `${name}_`;
  return PROPERTY_NAME.test(name) ? name : undefined;
}

/** The metadata as LangChain's WeaviateStore flattens it, each key made a name Weaviate takes for a property. */
export function flattenForWeaviate(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flattenKeys(obj))) {
    const name = weaviatePropertyName(key);
    if (name !== undefined) out[name] = value;
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
    // An empty filter is none: Weaviate refuses `where: {}` ("unrecognized operator").
    const where = filter && Object.keys(filter).length ? filter : this.s.filter;
    return client.nearVector(query, this.topK(k), properties, where, withVector);
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
