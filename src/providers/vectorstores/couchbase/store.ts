// The couchbase vector store: documents laid out as LangChain's CouchbaseSearchVectorStore (Flowise's
// node) writes them — key: the vector id, value {[textKey]: the text, [embeddingKey]: the vector,
// metadata: {...}} — so a collection Flowise filled answers here, and back. A search is the SDK's:
// a knn query on embeddingKey (k, size k, fields ["*"] or the filter's), its hits' fields read as
// LangChain reads them (textKey the page; "metadata.x" → x), the score Couchbase's. The Search index
// is made in Couchbase (as for Flowise); D1 keeps only the bookkeeping rows (remote.ts). Couchbase's
// index follows writes asynchronously: a search right after an upsert may not see it yet (Flowise's too).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { ServiceStore } from "../remote";
import type { CouchbaseClient, SearchHit } from "./client";

const COUCHBASE_PROVIDER = "couchbase";
const METADATA_KEY = "metadata";
/** Documents per UPSERT statement (a 1536-dimension vector is ~30 kB of JSON); keys per USE KEYS. */
const COUCHBASE_WRITE_BATCH = 32;
const COUCHBASE_ID_BATCH = 100;
const COUCHBASE_MAX_TOP_K = 1000;

/** LangChain's filter: {fields, searchOptions} (searchOptions merged into the search request as the SDK's `raw`). */
export interface CouchbaseFilter {
  fields?: string[];
  searchOptions?: Record<string, unknown>;
}

/** A filter read as LangChain reads it; `strict` (the node's input): other keys or shapes are a 400's `why`. */
export function readFilter(f: unknown, strict: boolean): { filter: CouchbaseFilter; why?: string } {
  if (!isObject(f)) return { filter: {} };
  const filter: CouchbaseFilter = {};
  const other = Object.keys(f).filter((k) => k !== "fields" && k !== "searchOptions");
  const fieldsOk = f.fields === undefined || (Array.isArray(f.fields) && f.fields.every((x) => typeof x === "string"));
  const optionsOk = f.searchOptions === undefined || isObject(f.searchOptions);
  if (fieldsOk && f.fields !== undefined) filter.fields = f.fields as string[];
  if (optionsOk && f.searchOptions !== undefined) filter.searchOptions = f.searchOptions as Record<string, unknown>;
  if (!strict) return { filter };
  if (other.length || !fieldsOk || !optionsOk)
    return {
      filter,
      why:
        'couchbaseMetadataFilter takes {"fields": [stored field names], "searchOptions": {…merged into the Search request}} ' +
        `as LangChain reads it${other.length ? `, not ${other.map((k) => JSON.stringify(k)).join(", ")}` : ""}`,
    };
  return { filter };
}

export interface CouchbaseSettings {
  textKey: string;
  embeddingKey: string;
  /** The node's couchbaseMetadataFilter: every search's unless the caller gives one. */
  filter: CouchbaseFilter;
}

export class CouchbaseVectorStore extends ServiceStore<CouchbaseClient, CouchbaseSettings> {
  declare FilterType: CouchbaseFilter;
  readonly provider = COUCHBASE_PROVIDER;
  readonly maxTopK = COUCHBASE_MAX_TOP_K;
  protected readonly deleteBatch = COUCHBASE_ID_BATCH;

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    const docs = ids.map((id, i): [string, Record<string, unknown>] => [
      id,
      {
        [this.s.textKey]: documents[i].pageContent,
        [this.s.embeddingKey]: vectors[i],
        [METADATA_KEY]: documents[i].metadata ?? {},
      },
    ]);
    for (const part of chunk(docs, COUCHBASE_WRITE_BATCH)) await client.upsert(part);
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    await (await this.client()).remove(ids);
  }

  /** Asks Couchbase itself (by key): documents written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    for (const part of chunk([...new Set(ids)], COUCHBASE_ID_BATCH)) for (const id of await client.existing(part)) found.add(id);
    return found;
  }

  /** A hit as LangChain's formatMetadata reads it: textKey the page, the other fields metadata ("metadata." taken off). */
  private documentOf(hit: SearchHit): Document {
    const metadata: Record<string, unknown> = {};
    let text: unknown;
    for (const [key, value] of Object.entries(hit.fields ?? {})) {
      if (key === this.s.textKey) text = value;
      else if (key !== this.s.embeddingKey) metadata[key.replace(`${METADATA_KEY}.`, "")] = value;
    }
    return new Document({ id: hit.id, pageContent: typeof text === "string" ? text : "", metadata });
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: CouchbaseFilter): Promise<[Document, number][]> {
    const f = filter === undefined ? this.s.filter : readFilter(filter, false).filter;
    let fields = f.fields?.length ? [...f.fields] : ["*"];
    if (!(fields.length === 1 && fields[0] === "*") && !fields.includes(this.s.textKey)) fields = [...fields, this.s.textKey];
    const hits = await (await this.client()).knn(this.s.embeddingKey, query, this.topK(k), fields, f.searchOptions);
    return hits.map((h) => [this.documentOf(h), Number(h.score ?? 0)] as [Document, number]);
  }
}
