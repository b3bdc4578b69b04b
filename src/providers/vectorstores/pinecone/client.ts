// Pinecone's REST API over fetch (no SDK): the control plane's describe_index gives the index
// host, the data plane answers upsert, query, fetch and delete. Failures are 502 (504 when it does
// not answer in time) naming Pinecone; the API key never appears in a message. Both planes are under
// the outbound policy's endpoint rule, the index host describe_index answers included.
import { fail } from "../../../errors";
import { sha256Hex } from "../../../lib/crypto";
import type { EndpointEnv, EndpointPolicy } from "../../../lib/outbound";
import { serviceCall } from "../remote";

export const PINECONE_CONTROL_PLANE = "https://api.pinecone.io";
const PINECONE_API_VERSION = "2025-01";

export interface PineconeVector {
  id: string;
  values: number[];
  metadata?: Record<string, unknown>;
}

export interface PineconeMatch {
  id: string;
  score?: number;
  values?: number[];
  metadata?: Record<string, unknown>;
}

export interface PineconeClientOptions {
  apiKey: string;
  /** Control plane base URL (PINECONE_BASE_URL; tests: a stand-in). */
  controlPlane: string;
  /** Where controlPlane came from, for a refusal ("PINECONE_BASE_URL"). */
  controlPlaneField: string;
  /** The outbound policy's settings (OUTBOUND_ALLOW, ENVIRONMENT). */
  env: EndpointEnv;
  index: string;
  /** The index host when known (an input), else asked from describe_index once per isolate. */
  host?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

// Index hosts do not change for an index's life: one describe_index per isolate, control plane,
// project (two projects may each have an index of one name: keyed by a hash of the API key) and index.
const hosts = new Map<string, string>();

/** The pineconeIndexHost input's field name, as a refusal names it. */
export const INDEX_HOST_FIELD = "pinecone pineconeIndexHost";

/** A host without a scheme takes the control plane's (https for Pinecone itself, http for a loopback stand-in). */
export function withScheme(host: string, controlPlane: string): string {
  if (/^https?:\/\//i.test(host)) return host.replace(/\/+$/, "");
  return `${new URL(controlPlane).protocol}//${host.replace(/\/+$/, "")}`;
}

export class PineconeClient {
  constructor(private readonly o: PineconeClientOptions) {}

  private async call<T>(what: string, url: string, init: RequestInit, policy: EndpointPolicy): Promise<T> {
    const service = {
      service: "Pinecone",
      apiKey: this.o.apiKey,
      headers: { "Api-Key": this.o.apiKey, "X-Pinecone-API-Version": PINECONE_API_VERSION },
      timeoutMs: this.o.timeoutMs,
      signal: this.o.signal,
      notFoundHint: "check the pineconeIndex input",
      refusedHint: "check the pineconeApi credential",
    };
    return (await serviceCall<T>(service, what, url, init, policy)) as T;
  }

  /** The data plane's base URL and its policy: the host input, else describe_index's `host` (an answer: checked like an input). */
  async host(): Promise<{ url: string; policy: EndpointPolicy }> {
    if (this.o.host) return { url: withScheme(this.o.host, this.o.controlPlane), policy: { field: INDEX_HOST_FIELD, env: this.o.env } };
    const policy = { field: "the index host Pinecone's describe_index answered", env: this.o.env };
    const key = `${this.o.controlPlane}|${(await sha256Hex(this.o.apiKey)).slice(0, 16)}|${this.o.index}`;
    const known = hosts.get(key);
    if (known) return { url: known, policy };
    const control = { field: this.o.controlPlaneField, env: this.o.env };
    const described = await this.call<{ host?: unknown }>(
      "describe_index",
      `${this.o.controlPlane}/indexes/${encodeURIComponent(this.o.index)}`,
      { method: "GET" },
      control,
    );
    if (typeof described.host !== "string" || !described.host)
      throw fail("UPSTREAM_FAILED", `Pinecone describe_index gave no host for index "${this.o.index}"`);
    const host = withScheme(described.host, this.o.controlPlane);
    hosts.set(key, host);
    return { url: host, policy };
  }

  /** A data-plane call: `path` under the index host. */
  private async data<T>(what: string, path: string, init: RequestInit): Promise<T> {
    const { url, policy } = await this.host();
    return this.call<T>(what, `${url}${path}`, init, policy);
  }

  async upsert(vectors: PineconeVector[], namespace: string): Promise<void> {
    await this.data("upsert", "/vectors/upsert", { method: "POST", body: JSON.stringify({ vectors, namespace }) });
  }

  async query(
    vector: number[],
    topK: number,
    namespace: string,
    filter?: Record<string, unknown>,
    includeValues = false,
  ): Promise<PineconeMatch[]> {
    const body = {
      vector,
      topK,
      namespace,
      includeMetadata: true,
      includeValues,
      ...(filter && Object.keys(filter).length ? { filter } : {}),
    };
    const res = await this.data<{ matches?: PineconeMatch[] }>("query", "/query", { method: "POST", body: JSON.stringify(body) });
    return Array.isArray(res.matches) ? res.matches : [];
  }

  /** The ids of `ids` the namespace holds. */
  async fetchIds(ids: string[], namespace: string): Promise<string[]> {
    const params = new URLSearchParams(ids.map((id) => ["ids", id]));
    params.set("namespace", namespace);
    const res = await this.data<{ vectors?: Record<string, unknown> }>("fetch", `/vectors/fetch?${params}`, { method: "GET" });
    return Object.keys(res.vectors ?? {});
  }

  async deleteIds(ids: string[], namespace: string): Promise<void> {
    await this.data("delete", "/vectors/delete", { method: "POST", body: JSON.stringify({ ids, namespace }) });
  }
}
