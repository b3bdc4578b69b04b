// Upstash Vector's REST API over fetch (no SDK), as @upstash/vector calls it: POST {url}/upsert,
// /query, /fetch and /delete (the default namespace, Flowise's), each answering {result} or {error},
// with the token as `Authorization: Bearer`. Failures as remote.ts's serviceCall says (502, 504
// naming Upstash Vector, never the token).
import type { EndpointPolicy } from "../../../lib/outbound";
import { type ServiceCall, serviceCall } from "../remote";

export interface UpstashVector {
  id: string;
  vector: number[];
  metadata: Record<string, unknown>;
}

export interface UpstashHit {
  id: string | number;
  score?: number;
  metadata?: Record<string, unknown> | null;
  vector?: number[];
}

export interface UpstashClientOptions {
  /** The index's REST URL (the credential's UPSTASH_VECTOR_REST_URL), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  token: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class UpstashVectorClient {
  private readonly service: ServiceCall;

  constructor(private readonly o: UpstashClientOptions) {
    this.service = {
      service: "Upstash Vector",
      apiKey: o.token,
      headers: { Authorization: `Bearer ${o.token}` },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the upstashVectorApi credential's UPSTASH_VECTOR_REST_URL",
      refusedHint: "check the upstashVectorApi credential",
    };
  }

  /** The answer's `result`. */
  private async call<T>(what: string, path: string, body: unknown): Promise<T | undefined> {
    const init = { method: "POST", body: JSON.stringify(body) };
    const res = await serviceCall<{ result?: T }>(this.service, what, `${this.o.url}/${path}`, init, this.o.policy);
    return res?.result;
  }

  async upsert(vectors: UpstashVector[]): Promise<void> {
    await this.call("upsert", "upsert", vectors);
  }

  /** The nearest vectors, best first; `filter` is Upstash's filter language (SQL-like text). */
  async query(vector: number[], topK: number, filter?: string, includeVectors = false): Promise<UpstashHit[]> {
    const body = { vector, topK, includeMetadata: true, includeVectors, ...(filter ? { filter } : {}) };
    const hits = await this.call<UpstashHit[]>("query", "query", body);
    return Array.isArray(hits) ? hits : [];
  }

  /** The ids of `ids` the index holds (fetch answers null for a missing one). */
  async existing(ids: string[]): Promise<string[]> {
    const found = await this.call<Array<{ id?: unknown } | null>>("fetch", "fetch", { ids, includeMetadata: false });
    return Array.isArray(found) ? found.flatMap((v) => (v && v.id !== undefined ? [String(v.id)] : [])) : [];
  }

  async deleteIds(ids: string[]): Promise<void> {
    await this.call("delete", "delete", ids);
  }
}
