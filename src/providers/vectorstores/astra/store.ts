// The Astra vector store: documents laid out as LangChain's AstraDBVectorStore (Flowise's node)
// writes them — {_id, text, $vector, ...metadata at the top level} — so a collection Flowise filled
// answers here and the other way round. As for the other hosted stores, D1 keeps only the
// bookkeeping rows (remote.ts). A missing collection is created at the first write (the vectors'
// dimension, similarityMetric, only a `metadata` field indexed, so the text and the top-level metadata
// escape Astra's indexed-value limits); read before that, it has nothing. One that exists with other
// options (Flowise's indexes every field) is written as it is, held to its limits before any write.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { chunk, chunkBy } from "../../../lib/chunk";
import { utf8Length } from "../../../lib/utf8";
import { ServiceStore } from "../remote";
import type { AstraClient, AstraCollectionOptions, AstraDoc } from "./client";

const ASTRA_PROVIDER = "astra";
const CONTENT_KEY = "text";
/** Documents per insertMany; ids per read (a find answers 20 a page) and per delete. */
const ASTRA_INSERT_BATCH = 20;
const ASTRA_ID_BATCH = 20;
/** The most a vector search answers. */
const ASTRA_MAX_TOP_K = 1000;

/** The Data API's limit on a string in an indexed field ("Data API limits"). */
const ASTRA_INDEXED_STRING_BYTES = 8000;
/** The Data API's limit on a document, in characters of its JSON. */
const ASTRA_DOCUMENT_CHARS = 4_000_000;
/**
 * UTF-8 bytes of JSON per insertMany: the Data API's HTTP layer refuses requests over 20 MiB (413), which
 * 20 unsplit documents (whole files) can pass. Half of it, so that a document alone (up to 4,000,000
 * characters, 12 MB in CJK) still goes in one request.
 */
const ASTRA_INSERT_BYTES = 10_000_000;

/**
 * Metadata as the Data API takes it: it refuses the whole document for a field name that is empty or
 * starts with `$` (at any depth; JSON data carries `$schema`, `$ref`, `$id`), so those get a `_` before them.
 */
function astraMetadata(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(astraMetadata);
  // Plain objects only: a Date (or anything with toJSON) is left for JSON to write as it would.
  if (!value || typeof value !== "object" || ![Object.prototype, null].includes(Object.getPrototypeOf(value))) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k === "" || k.startsWith("$") ? `_${k}` : k] = astraMetadata(v);
  return out;
}

/** Whether a collection's `indexing` (allow or deny a path and what is under it; none: everything) indexes `path`. */
function indexes(indexing: AstraCollectionOptions["indexing"], path: string): boolean {
  const covers = (rule: string) => rule === "*" || path === rule || path.startsWith(`${rule}.`);
  if (indexing?.allow?.length) return indexing.allow.some(covers);
  if (indexing?.deny?.length) return !indexing.deny.some(covers);
  return true;
}

/** The first string over Astra's indexed-value limit at an indexed path of `doc` (its path and bytes), if any. */
function oversizedString(doc: AstraDoc, indexing: AstraCollectionOptions["indexing"]): { field: string; bytes: number } | undefined {
  const find = (value: unknown, path: string): { field: string; bytes: number } | undefined => {
    if (typeof value === "string") {
      const bytes = utf8Length(value);
      return bytes > ASTRA_INDEXED_STRING_BYTES && indexes(indexing, path) ? { field: path, bytes } : undefined;
    }
    if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value)) {
        const found = find(v, !path ? k : Array.isArray(value) ? path : `${path}.${k}`);
        if (found) return found;
      }
    return undefined;
  };
  const { _id, $vector, ...fields } = doc;
  return find(fields, "");
}

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

  /** The collection's options, once prepareOnce has created or found it. */
  private collection: AstraCollectionOptions = {};

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    const client = await this.client();
    await this.prepareOnce(async () => {
      this.collection = await client.create(vectors[0].length, this.s.metric);
    });
    const docs = ids.map((id, i) => ({
      ...(astraMetadata(documents[i].metadata ?? {}) as Record<string, unknown>),
      _id: id,
      [CONTENT_KEY]: documents[i].pageContent,
      $vector: vectors[i],
    }));
    // Refused by Astra, a document would fail alone while the rest of its batch is written: a 400 first.
    const sized = docs.map((d) => {
      const start = d[CONTENT_KEY].slice(0, 40);
      // A collection that indexes the text (Flowise's indexes every field) keeps at most 8,000 bytes there.
      const over = oversizedString(d, this.collection.indexing);
      if (over)
        throw fail(
          "NODE_FAILED",
          `Astra: a chunk ("${start}…") has ${over.bytes} bytes in its indexed field ${over.field}; this collection indexes ` +
            `it, and Astra keeps at most ${ASTRA_INDEXED_STRING_BYTES} bytes there: ` +
            (over.field === CONTENT_KEY
              ? "split the documents smaller (a text splitter's chunkSize)"
              : "leave that metadata key out (the loader's omitMetadataKeys)"),
        );
      const json = JSON.stringify(d);
      if (json.length > ASTRA_DOCUMENT_CHARS)
        throw fail(
          "NODE_FAILED",
          `Astra: a chunk ("${start}…") is ${json.length} characters as JSON; Astra keeps at most ${ASTRA_DOCUMENT_CHARS} a ` +
            "document: split the documents smaller (a text splitter's chunkSize)",
        );
      return { d, bytes: utf8Length(json) };
    });
    for (const batch of chunkBy(sized, ASTRA_INSERT_BATCH, ASTRA_INSERT_BYTES, (x) => x.bytes)) {
      const part = batch.map((x) => x.d);
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
