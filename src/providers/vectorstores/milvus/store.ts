// The milvus vector store: rows laid out as LangChain's Milvus store (Flowise's node) names them —
// primary key `langchain_primaryid`, text `langchain_text` (milvusTextField), vector
// `langchain_vector`, each metadata key a field of its own (objects as JSON text) — so a collection
// Flowise filled answers here and the other way round. A missing collection is created at the first
// write as LangChain does when given ids (VarChar primary key, no autoID; HNSW index, L2), with
// dynamic fields on, so chunks whose metadata keys differ can share it. As for the other hosted
// stores, D1 keeps only the bookkeeping rows (remote.ts).
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { chunk } from "../../../lib/chunk";
import { isObject } from "../../../lib/inputs";
import { utf8Length } from "../../../lib/utf8";
import { ServiceStore } from "../remote";
import type { MilvusClient, MilvusCollection, MilvusRow } from "./client";

const MILVUS_PROVIDER = "milvus";
export const MILVUS_PRIMARY_FIELD = "langchain_primaryid";
export const MILVUS_VECTOR_FIELD = "langchain_vector";
export const MILVUS_TEXT_FIELD = "langchain_text";
/** Milvus's longest VarChar (bytes). */
const VARCHAR_MAX = 65535;
/** Rows per upsert, ids per query and delete (the ids go in a filter expression). */
const MILVUS_UPSERT_BATCH = 500;
const MILVUS_ID_BATCH = 500;
/** The nearest Milvus answers in one search (its topK limit). */
const MILVUS_MAX_TOP_K = 16384;

/**
 * A hit's score, higher nearer, as Flowise's node answers it: L2 1 / (1 + distance), IP and COSINE
 * (distance + 1) / 2.
 */
const scoreOf = (metric: string, d: number): number =>
  metric === "L2" ? 1 / (1 + d) : metric === "IP" || metric === "COSINE" ? (d + 1) / 2 : d;

/** What the store needs of a collection's schema. */
interface Layout {
  primary: string;
  primaryType: string;
  autoId: boolean;
  vector: string;
  metric: string;
  dynamic: boolean;
  /** Its declared fields (a collection without dynamic fields takes only these). */
  fields: Set<string>;
}

function layoutOf(c: MilvusCollection): Layout {
  const fields = c.fields ?? [];
  const primary = fields.find((f) => f.primaryKey);
  const vector = fields.find((f) => /Vector$/.test(f.type ?? "")) ?? { name: MILVUS_VECTOR_FIELD };
  return {
    primary: primary?.name ?? MILVUS_PRIMARY_FIELD,
    primaryType: primary?.type ?? "VarChar",
    autoId: primary?.autoId === true,
    vector: vector.name,
    metric: c.indexes?.find((i) => i.fieldName === vector.name)?.metricType ?? "L2",
    dynamic: c.enableDynamicField === true,
    fields: new Set(fields.map((f) => f.name)),
  };
}

/** Flowise's reading of a text field: JSON text (an object or list LangChain wrote) read back as it was. */
function metadataValue(v: unknown): unknown {
  if (typeof v !== "string" || !/^\s*[[{]/.test(v)) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export interface MilvusSettings {
  textField: string;
  /** milvusPartition: where writes go (Flowise searches the whole collection). */
  partition?: string;
  /** milvusFilter: Milvus's boolean expression, used before the caller's filter (as Flowise does). */
  filter?: string;
}

export class MilvusVectorStore extends ServiceStore<MilvusClient, MilvusSettings> {
  readonly provider = MILVUS_PROVIDER;
  readonly maxTopK = MILVUS_MAX_TOP_K;
  protected readonly deleteBatch = MILVUS_ID_BATCH;
  private described: Layout | undefined;

  /** The collection's layout (it is loaded when it was not); null when it does not exist. */
  private async layout(client: MilvusClient): Promise<Layout | null> {
    if (this.described) return this.described;
    const c = await client.describe();
    if (!c) return null;
    if (c.load === "LoadStateNotLoad") await client.load();
    this.described = layoutOf(c);
    return this.described;
  }

  /** Creates the collection when missing (LangChain's field names, the vectors' dimension) and the partition. */
  private prepare(client: MilvusClient, dim: number): Promise<void> {
    return this.prepareOnce(async () => {
      if (!(await this.layout(client))) {
        const schema = {
          autoID: false,
          enableDynamicField: true,
          fields: [
            { fieldName: MILVUS_PRIMARY_FIELD, dataType: "VarChar", isPrimary: true, elementTypeParams: { max_length: VARCHAR_MAX } },
            { fieldName: this.s.textField, dataType: "VarChar", elementTypeParams: { max_length: VARCHAR_MAX } },
            { fieldName: MILVUS_VECTOR_FIELD, dataType: "FloatVector", elementTypeParams: { dim } },
          ],
        };
        const index = { fieldName: MILVUS_VECTOR_FIELD, indexName: MILVUS_VECTOR_FIELD, metricType: "L2" };
        await client.create(schema, [{ ...index, params: { index_type: "HNSW", M: 8, efConstruction: 64 } }]);
        const fields = [MILVUS_PRIMARY_FIELD, this.s.textField, MILVUS_VECTOR_FIELD];
        this.described = {
          primary: MILVUS_PRIMARY_FIELD,
          primaryType: "VarChar",
          autoId: false,
          vector: MILVUS_VECTOR_FIELD,
          metric: "L2",
          dynamic: true,
          fields: new Set(fields),
        };
      }
      const l = this.described as Layout;
      if (l.autoId || l.primaryType !== "VarChar")
        throw fail(
          "INVALID_FLOW",
          `milvus collection's primary key ${l.primary} is ${l.autoId ? "auto-generated" : l.primaryType}: vectors are written ` +
            "under their own ids, which need a VarChar primary key without autoID (as a collection made here has); " +
            "name a new milvusCollection to write to (searching this one works)",
        );
      if (this.s.partition && this.s.partition !== "_default") await client.ensurePartition(this.s.partition);
    });
  }

  protected async writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void> {
    // The text goes in a VarChar, which Milvus caps at 65,535 bytes ("Milvus Limits"): a longer chunk
    // would fail its whole batch, so it is a 400 before anything is written.
    for (const d of documents) {
      const bytes = utf8Length(d.pageContent);
      if (bytes > VARCHAR_MAX)
        throw fail(
          "NODE_FAILED",
          `milvus: a chunk ("${d.pageContent.slice(0, 40)}…") has ${bytes} bytes of text; Milvus keeps at most ${VARCHAR_MAX} ` +
            `bytes in its text field (${this.s.textField}): split the documents smaller (a text splitter's chunkSize)`,
        );
    }
    const client = await this.client();
    await this.prepare(client, vectors[0].length);
    const l = this.described as Layout;
    const rows = ids.map((id, i) => {
      const row: MilvusRow = {};
      for (const [k, v] of Object.entries(documents[i].metadata ?? {})) {
        if (v === undefined || v === null || k === "$meta" || (!l.dynamic && !l.fields.has(k))) continue;
        row[k] = typeof v === "object" ? JSON.stringify(v) : v;
      }
      return { ...row, [l.primary]: id, [this.s.textField]: documents[i].pageContent, [l.vector]: vectors[i] };
    });
    const partition = this.s.partition && this.s.partition !== "_default" ? this.s.partition : undefined;
    for (const part of chunk(rows, MILVUS_UPSERT_BATCH)) await client.upsert(part, partition);
  }

  private idFilter(l: Layout, ids: string[]): string {
    return `${l.primary} in ${JSON.stringify(l.primaryType === "Int64" ? ids.map(Number).filter(Number.isSafeInteger) : ids)}`;
  }

  protected async deleteRemote(ids: string[]): Promise<void> {
    const client = await this.client();
    const l = await this.layout(client);
    if (l) await client.delete(this.idFilter(l, ids));
  }

  /** Asks Milvus itself: rows written elsewhere (or removed there) count as they are. */
  async has(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    if (!ids.length) return found;
    const client = await this.client();
    const l = await this.layout(client);
    if (!l) return found;
    for (const part of chunk([...new Set(ids)], MILVUS_ID_BATCH))
      for (const row of await client.query(this.idFilter(l, part), [l.primary], part.length)) found.add(String(row[l.primary]));
    return found;
  }

  /** The nearest rows; a caller's filter is used when it is a Milvus expression (text) and milvusFilter is not set. */
  private async nearest(query: number[], k: number, filter: unknown, withVector: boolean): Promise<[MilvusRow, Layout][]> {
    const client = await this.client();
    const l = await this.layout(client);
    if (!l) return [];
    const rows = await client.search(
      query,
      this.topK(k),
      l.vector,
      withVector ? ["*", l.vector] : ["*"],
      this.s.filter ?? (typeof filter === "string" ? filter : undefined),
    );
    return (rows ?? []).map((r) => [r, l]);
  }

  async similaritySearchVectorWithScore(query: number[], k: number, filter?: object | string): Promise<[Document, number][]> {
    return (await this.nearest(query, k, filter, false)).map(([r, l]) => [this.documentOf(r, l), scoreOf(l.metric, Number(r.distance))]);
  }

  /** Flowise's searchType "mmr": fetchK nearest (with their vectors), then k of them picked for relevance and variety. */
  async maxMarginalRelevanceSearch(query: string, options: MaxMarginalRelevanceSearchOptions<object>): Promise<Document[]> {
    return this.mmrSearch(
      query,
      options,
      (vector, fetchK, filter) => this.nearest(vector, fetchK, filter, true),
      ([r, l]) => r[l.vector],
      ([r, l]) => this.documentOf(r, l),
    );
  }

  /** A row as Flowise reads it: the text field the page, every other field (dynamic ones too) metadata. */
  private documentOf(row: MilvusRow, l: Layout): Document {
    const metadata: Record<string, unknown> = {};
    const all = { ...row, ...(isObject(row.$meta) ? row.$meta : {}) };
    for (const [k, v] of Object.entries(all)) {
      if (k === l.primary || k === l.vector || k === this.s.textField || k === "distance" || k === "$meta") continue;
      metadata[k] = metadataValue(v);
    }
    const text = row[this.s.textField];
    const id = row[l.primary] ?? row.id;
    return new Document({ id: id === undefined ? undefined : String(id), pageContent: typeof text === "string" ? text : "", metadata });
  }
}
