// Milvus's RESTful API v2 over fetch (Flowise's client speaks gRPC, which a Worker cannot; the same
// server answers REST on the same port): POST /v2/vectordb/collections/describe|create|load,
// partitions/has|create, entities/upsert|search|query|delete. The milvusAuth credential goes as
// `Authorization: Bearer user:password`, as Milvus's own HTTP client sends it. Milvus answers most
// failures as HTTP 200 with a non-zero `code`: read here as the failed status would be (a refused
// credential, code 1800, a 502 naming milvusAuth; others a 502 with Milvus's message), never the secret.
import { fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { type ServiceCall, serviceCall } from "../remote";

/** Milvus's "user hasn't authenticated" / wrong password. */
const AUTH_CODE = 1800;
/** "collection not found". */
const NO_COLLECTION_CODE = 100;

export interface MilvusField {
  name: string;
  type: string;
  primaryKey?: boolean;
  autoId?: boolean;
}

export interface MilvusCollection {
  fields: MilvusField[];
  indexes?: Array<{ fieldName?: string; metricType?: string }>;
  /** LoadStateLoaded, LoadStateNotLoad, LoadStateLoading. */
  load?: string;
  enableDynamicField?: boolean;
}

export type MilvusRow = Record<string, unknown>;

export interface MilvusClientOptions {
  /** The server's origin (milvusServerUrl), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  collection: string;
  /** user:password (the milvusAuth credential). */
  token?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Answer<T> {
  code?: number;
  message?: string;
  data?: T;
}

export class MilvusClient {
  private readonly service: ServiceCall;

  constructor(private readonly o: MilvusClientOptions) {
    this.service = {
      service: "Milvus",
      apiKey: o.token,
      headers: o.token ? { Authorization: `Bearer ${o.token}` } : {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the milvusServerUrl input (Milvus 2.4 or later answers /v2/vectordb)",
      refusedHint: "check the milvusAuth credential",
    };
  }

  /** The answer's `data`; null for a code in `allow` (a missing collection: "nothing there"). */
  private async call<T>(what: string, path: string, body: Record<string, unknown>, allow: number[] = []): Promise<T | null> {
    const url = `${this.o.url}/v2/vectordb${path}`;
    const init = { method: "POST", body: JSON.stringify({ collectionName: this.o.collection, ...body }) };
    const res = await serviceCall<Answer<T>>(this.service, what, url, init, this.o.policy);
    const code = res?.code ?? 0;
    if (code === 0 || code === 200) return (res?.data ?? null) as T | null;
    if (allow.includes(code)) return null;
    if (code === AUTH_CODE) throw fail("UPSTREAM_FAILED", `Milvus ${what} was refused (${code}): ${this.service.refusedHint}`);
    const message = redact(String(res?.message ?? "no message").slice(0, 300), this.o.token ? [this.o.token] : []);
    throw fail("UPSTREAM_FAILED", `Milvus ${what} failed (${code}): ${message}`);
  }

  /** The collection's schema, indexes and load state; null when it does not exist. */
  describe(): Promise<MilvusCollection | null> {
    return this.call<MilvusCollection>("describe collection", "/collections/describe", {}, [NO_COLLECTION_CODE]);
  }

  /** Creates the collection (schema, vector index; Milvus loads a collection created with its index). */
  async create(schema: Record<string, unknown>, indexParams: Record<string, unknown>[]): Promise<void> {
    await this.call("create collection", "/collections/create", { schema, indexParams });
  }

  async load(): Promise<void> {
    await this.call("load collection", "/collections/load", {});
  }

  /** Creates the partition when missing. */
  async ensurePartition(partitionName: string): Promise<void> {
    const has = await this.call<{ has?: boolean }>("has partition", "/partitions/has", { partitionName });
    if (!has?.has) await this.call("create partition", "/partitions/create", { partitionName });
  }

  /** Writes rows by primary key (a rewrite replaces them). */
  async upsert(data: MilvusRow[], partitionName?: string): Promise<void> {
    await this.call("upsert", "/entities/upsert", { data, ...(partitionName ? { partitionName } : {}) });
  }

  /** The nearest rows (with `distance`), best first; null when the collection does not exist. */
  async search(vector: number[], limit: number, annsField: string, outputFields: string[], filter?: string): Promise<MilvusRow[] | null> {
    const body = { data: [vector], annsField, limit, outputFields, ...(filter ? { filter } : {}) };
    const rows = await this.call<MilvusRow[]>("search", "/entities/search", body, [NO_COLLECTION_CODE]);
    return Array.isArray(rows) ? rows : rows === null ? null : [];
  }

  /** Rows matching `filter` (at most `limit`), with `outputFields`. */
  async query(filter: string, outputFields: string[], limit: number): Promise<MilvusRow[]> {
    const rows = await this.call<MilvusRow[]>("query", "/entities/query", { filter, outputFields, limit }, [NO_COLLECTION_CODE]);
    return Array.isArray(rows) ? rows : [];
  }

  async delete(filter: string): Promise<void> {
    await this.call("delete", "/entities/delete", { filter }, [NO_COLLECTION_CODE]);
  }
}
