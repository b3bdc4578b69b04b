// The zep and zepCloud vector stores: documents in a Zep collection, as LangChain's ZepVectorStore
// and ZepCloudVectorStore (Flowise's nodes) write them ({content, metadata}; open source with the
// vector, Zep Cloud embeds the text itself), so a collection Flowise filled answers here. Each
// document also carries our id as Zep's document_id (search hits come back with it); Zep names
// documents by uuids of its own, which D1's bookkeeping row keeps (metadata.zepUuid) for deletes.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { Embeddings } from "@langchain/core/embeddings";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { isObject } from "../../../lib/inputs";
import { runBatchPaced } from "../d1-json";
import { RemoteDocumentsStore, ServiceEmbedsText, pickMmr } from "../remote";
import type { AddVectorsOptions } from "../types";
import { type ZepApi, type ZepHit, addDocuments, deleteDocuments, ensureCollection, searchDocuments } from "./client";
import { withoutNul } from "../../../lib/without-nul";

function hitDocument(h: ZepHit & { document_id?: string }): Document {
  return new Document({ id: h.document_id || h.uuid, pageContent: h.content ?? "", metadata: h.metadata ?? {} });
}

/**
 * A JSONPath string literal or key as PostgreSQL (behind Zep) reads it: JSON's double-quoted escapes, and `'`
 * as \u0027 since Zep turns every `'` of a path into `"`.
 */
const pathString = (s: string) => JSON.stringify(s).replaceAll("'", "\\u0027");

/** A dotted key as JSONPath accessors: a segment that is not an identifier (a space, `$`, `-`) goes quoted. */
const pathKey = (key: string) =>
  key
    .split(".")
    .map((p) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `.${pathString(p)}`))
    .join("");

/**
 * Flowise's zep node: {key: value} becomes Zep's JSONPath filter, one `==` condition per key (always sent).
 * Keys and string values are quoted as PostgreSQL's jsonpath needs (Flowise's unquoted `@.my key == "O'Brien"`
 * is a syntax error: every search a 500); a value that is no JSON scalar cannot be compared: a 400.
 */
export function zepJsonPathFilter(filter: Record<string, unknown> | undefined): unknown {
  const and = Object.entries(filter ?? {}).map(([k, v]) => {
    if (v !== null && typeof v === "object")
      throw fail("INVALID_FLOW", `zep zepMetadataFilter: ${JSON.stringify(k)} must be a string, number, boolean or null`);
    const value = typeof v === "string" ? pathString(v) : JSON.stringify(v ?? null);
    return { jsonpath: `$[*] ? (@${pathKey(k)} == ${value})` };
  });
  return { where: { and } };
}

export class ZepStore extends RemoteDocumentsStore {
  readonly maxTopK = 1000;
  protected readonly deleteBatch = 100;

  constructor(
    readonly provider: "zep" | "zepCloud",
    embeddings: Embeddings,
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    /** Resolved on first use (the credential is read then). */
    private readonly api: () => Promise<ZepApi>,
    private readonly collection: string,
    /** zepMetadataFilter: every search's filter unless the caller gives one. */
    private readonly filter?: Record<string, unknown>,
  ) {
    super(provider === "zepCloud" ? new ServiceEmbedsText() : embeddings, db, namespace);
  }

  private metadataOf(filter: unknown): unknown {
    const f = isObject(filter) && Object.keys(filter).length ? filter : this.filter;
    return this.provider === "zep" ? zepJsonPathFilter(f) : f;
  }

  /** Unused: addVectors writes to Zep first, since Zep names the documents. */
  protected async writeRemote(): Promise<void> {}

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = this.idsFor(documents, options);
    if (!ids.length) return ids;
    const api = await this.api();
    const open = this.provider === "zep";
    await this.prepareOnce(() => ensureCollection(api, this.collection, open ? vectors[0]?.length : undefined));
    const docs = documents.map((d, i) => ({
      content: withoutNul(d.pageContent),
      document_id: ids[i],
      metadata: withoutNul(d.metadata ?? {}),
      ...(open ? { embedding: vectors[i] } : {}),
    }));
    const uuids = await addDocuments(api, this.collection, docs);
    // D1 keeps which loader each document came from and Zep's uuid: the text lives in Zep.
    const bookkeeping = documents.map((d, i) => ({
      pageContent: "",
      metadata: { ...(typeof d.metadata?.docId === "string" ? { docId: d.metadata.docId } : {}), zepUuid: uuids[i] },
    }));
    try {
      await runBatchPaced(this.db, this.documentWrites(ids, bookkeeping, { chunkNos: options?.chunkNos }));
    } catch (err) {
      await deleteDocuments(api, this.collection, uuids).catch(() => {});
      throw err;
    }
    return ids;
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    const rows = await this.documentsOf(ids);
    const uuids = [...rows.values()].flatMap((r) => (typeof r.metadata.zepUuid === "string" ? [r.metadata.zepUuid] : []));
    if (uuids.length) await deleteDocuments(await this.api(), this.collection, uuids);
  }

  private async search(query: { text?: string; embedding?: number[] }, k: number, filter: unknown) {
    const body = { ...query, metadata: this.metadataOf(filter) };
    return searchDocuments(await this.api(), this.collection, body, this.topK(k));
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: object): Promise<[Document, number][]> {
    if (this.provider === "zepCloud") throw fail("INVALID_FLOW", "zepCloud searches by text: Zep Cloud embeds the query itself");
    const { results } = await this.search({ embedding: query }, k, filter);
    return results.map((h) => [hitDocument(h), h.score ?? 0]);
  }

  async similaritySearchWithScore(query: string, k = 4, filter?: object): Promise<[Document, number][]> {
    if (this.provider === "zep") return super.similaritySearchWithScore(query, k, filter);
    const { results } = await this.search({ text: query }, k, filter);
    return results.map((h) => [hitDocument(h), h.score ?? 0]);
  }

  async similaritySearch(query: string, k = 4, filter?: object): Promise<Document[]> {
    return (await this.similaritySearchWithScore(query, k, filter)).map(([d]) => d);
  }

  /** Flowise's searchType "mmr": fetchK nearest with their vectors (Zep Cloud: and the query's), then k picked. */
  async maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<object>): Promise<Document[]> {
    if (this.provider === "zep") {
      const nearest = async (vector: number[], fetchK: number, filter: object | undefined) =>
        (await this.search({ embedding: vector }, fetchK, filter)).results;
      return this.mmrSearch(query, options, nearest, (h) => h.embedding, hitDocument);
    }
    const { results, queryVector } = await this.search({ text: query }, options.fetchK ?? 20, options.filter);
    return pickMmr(queryVector ?? [], results, (h) => h.embedding, options.lambda ?? 0.5, options.k).map(hitDocument);
  }
}
