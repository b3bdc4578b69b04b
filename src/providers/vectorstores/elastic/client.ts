// Elasticsearch's and OpenSearch's REST APIs over fetch (no SDK): the two speak the same document
// API, so one client serves both, on one index: HEAD /{index} (is it there), PUT /{index} (create
// it with LangChain's mapping), POST /{index}/_bulk (index and delete, NDJSON), POST /{index}/_search (k-NN:
// Elasticsearch's top-level `knn`, OpenSearch's `knn` query), POST /{index}/_mget (which ids it
// holds) and, for OpenSearch, POST /{index}/_refresh after writes. Failures as remote.ts's
// serviceCall says (502, 504 naming the service, never the key); a missing index is "nothing there".
import { ApiError, fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

export type SearchFlavor = "elasticsearch" | "opensearch";

export interface SearchHit {
  id: string;
  score: number;
  source: Record<string, unknown>;
}

export interface SearchClientOptions {
  flavor: SearchFlavor;
  /** The server's origin and path prefix, checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  index: string;
  /** The Authorization header's value (ApiKey …, Basic …), if any. */
  authorization?: string;
  /** Redacted from every message. */
  secret?: string;
  /** The credential named when the service refuses it. */
  credentialHint: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Elasticsearch and OpenSearch answer errors as {error: {type, reason}}; anything else as the other services do. */
async function searchErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const error = (JSON.parse(text) as { error?: unknown })?.error;
    if (typeof error === "string" && error) return error.slice(0, 300);
    if (error && typeof error === "object") {
      const { type, reason } = error as { type?: unknown; reason?: unknown };
      if (typeof reason === "string") return (typeof type === "string" ? `${type}: ${reason}` : reason).slice(0, 300);
    }
  } catch {
    // not JSON: read below as plain text
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

export class SearchClient {
  private readonly service: ServiceCall;
  readonly name: string;

  constructor(private readonly o: SearchClientOptions) {
    this.name = o.flavor === "elasticsearch" ? "Elasticsearch" : "OpenSearch";
    this.service = {
      service: this.name,
      apiKey: o.secret,
      headers: o.authorization ? { Authorization: o.authorization } : {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: `check the ${o.credentialHint} credential's URL`,
      refusedHint: `check the ${o.credentialHint} credential`,
      detail: searchErrorMessage,
    };
  }

  private call<T>(what: string, method: string, path: string, body?: unknown, allow?: number[]): Promise<T | null> {
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const init = { method, ...(text === undefined ? {} : { body: text }) };
    return serviceCall<T>(this.service, what, `${this.o.url}${path}`, init, this.o.policy, allow);
  }

  private get indexPath(): string {
    return `/${encodeURIComponent(this.o.index)}`;
  }

  async exists(): Promise<boolean> {
    return (await this.call("get index", "HEAD", this.indexPath, undefined, [404])) !== null;
  }

  /** Creates the index; one created meanwhile by another writer is as good. */
  async create(body: Record<string, unknown>): Promise<void> {
    try {
      await this.call("create index", "PUT", this.indexPath, body);
    } catch (err) {
      if (!(err instanceof ApiError && err.message.includes("resource_already_exists_exception"))) throw err;
    }
  }

  /** One bulk request (index or delete lines); an item the service refuses fails it with its reason. */
  async bulk(lines: unknown[]): Promise<void> {
    const refresh = this.o.flavor === "elasticsearch" ? "?refresh=true" : "";
    const ndjson = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
    const res = await this.call<{ errors?: boolean; items?: Array<Record<string, { status?: number; error?: { reason?: unknown } }>> }>(
      "bulk",
      "POST",
      `${this.indexPath}/_bulk${refresh}`,
      ndjson,
    );
    if (res?.errors) {
      const reasons = (res.items ?? [])
        .map((item) => Object.values(item)[0])
        .filter((r) => r?.error && !(r.status === 404))
        .map((r) => String(r.error?.reason ?? "refused"));
      if (reasons.length) throw fail("UPSTREAM_FAILED", `${this.name} bulk failed: ${[...new Set(reasons)].join("; ").slice(0, 300)}`);
    }
    // OpenSearch's client refreshes after a write, as LangChain's OpenSearchVectorStore does.
    if (this.o.flavor === "opensearch") await this.call("refresh", "POST", `${this.indexPath}/_refresh`, undefined, [404]);
  }

  /** The k nearest documents by the index's similarity, best first; [] when the index does not exist. */
  async knn(vector: number[], k: number, filter: Record<string, unknown>, field: string, withVector: boolean): Promise<SearchHit[]> {
    const source = withVector ? {} : { _source: { excludes: [field] } };
    const body =
      this.o.flavor === "elasticsearch"
        ? { size: k, knn: { field, query_vector: vector, filter: { bool: filter }, k, num_candidates: Math.max(200, k) }, ...source }
        : { size: k, query: { bool: { filter: { bool: filter }, must: [{ knn: { [field]: { vector, k } } }] } }, ...source };
    const res = await this.call<{ hits?: { hits?: Array<{ _id?: unknown; _score?: unknown; _source?: Record<string, unknown> }> } }>(
      "search",
      "POST",
      `${this.indexPath}/_search`,
      body,
      [404],
    );
    return (res?.hits?.hits ?? []).map((h) => ({ id: String(h._id), score: Number(h._score ?? 0), source: h._source ?? {} }));
  }

  /** The ids of `ids` the index holds. */
  async existing(ids: string[]): Promise<string[]> {
    const res = await this.call<{ docs?: Array<{ _id?: unknown; found?: boolean }> }>(
      "get",
      "POST",
      `${this.indexPath}/_mget?_source=false`,
      { ids },
      [404],
    );
    return (res?.docs ?? []).filter((d) => d.found).map((d) => String(d._id));
  }
}
