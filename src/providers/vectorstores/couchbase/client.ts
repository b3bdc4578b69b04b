// Couchbase over its HTTP services (a Worker cannot speak the SDK's binary KV protocol): documents are
// written, read by key and removed through the Query service (POST /query/service, N1QL with the
// values as positional `args`, never pasted into the statement), and searched through the Search
// service (POST /api/bucket/{b}/scope/{s}/index/{i}/query for a scoped index, /api/index/{i}/query
// otherwise), both with HTTP Basic auth. The SDK's connection string `couchbase[s]://h1,h2:p?…` names
// the cluster: its first host is asked, over https on 18093/18094 for couchbases://, http on
// 8093/8094 for couchbase:// (a port in the string is the SDK's KV port, not these, so it is not
// read; COUCHBASE_QUERY_PORT / COUCHBASE_SEARCH_PORT name others). DNS SRV records are not looked up.
import { fail } from "../../../errors";
import { type EndpointPolicy, checkEndpoint } from "../../../lib/outbound";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

const FIELD = "couchbaseApi credential connectionString";
const PORTS = { tls: { query: 18093, search: 18094 }, plain: { query: 8093, search: 8094 } };

export interface CouchbaseEnv {
  ENVIRONMENT?: string;
  OUTBOUND_ALLOW?: string;
  COUCHBASE_QUERY_PORT?: string;
  COUCHBASE_SEARCH_PORT?: string;
}

/** The Query and Search services' origins for an SDK connection string (400 when it names none). */
export function couchbaseOrigins(connectionString: string, env: CouchbaseEnv): { query: string; search: string } {
  const raw = connectionString.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (scheme && scheme !== "couchbase" && scheme !== "couchbases")
    throw fail("INVALID_FLOW", `${FIELD} must be couchbase://host or couchbases://host (the SDK's connection string), not ${scheme}://`);
  const hosts = raw.slice(scheme ? scheme.length + 3 : 0).split(/[/?]/)[0];
  const first = hosts.split(/[,;]/)[0].trim();
  // host, [v6], either with :port and the SDK's =protocol suffix (both the KV side's: not read)
  const host = /^(\[[0-9a-f:.]+\]|[^:=[\]\s]+)(?::\d+)?(?:=\w+)?$/i.exec(first)?.[1];
  if (!host) throw fail("INVALID_FLOW", `${FIELD} names no host (expected couchbases://cb.example.com or couchbase://host1,host2)`);
  const tls = scheme === "couchbases";
  const port = (v: string | undefined, fallback: number, name: string) => {
    if (v === undefined || v === "") return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw fail("INVALID_FLOW", `${name} must be a port number (1-65535)`);
    return n;
  };
  const ports = tls ? PORTS.tls : PORTS.plain;
  const origin = (p: number) => `${tls ? "https" : "http"}://${host}:${p}`;
  return {
    query: origin(port(env.COUCHBASE_QUERY_PORT, ports.query, "COUCHBASE_QUERY_PORT")),
    search: origin(port(env.COUCHBASE_SEARCH_PORT, ports.search, "COUCHBASE_SEARCH_PORT")),
  };
}

export interface CouchbaseTarget {
  bucket: string;
  scope: string;
  collection: string;
  index: string;
  scopedIndex: boolean;
}

export interface CouchbaseClientOptions {
  connectionString: string;
  username: string;
  password: string;
  env: CouchbaseEnv;
  target: CouchbaseTarget;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** One search hit as the Search service answers it (`fields`: the stored fields asked for, dotted paths). */
export interface SearchHit {
  id: string;
  score: number;
  fields?: Record<string, unknown>;
}

interface QueryAnswer {
  status?: string;
  results?: unknown[];
  errors?: Array<{ code?: number; msg?: string }>;
}

interface SearchAnswer {
  status?: { failed?: number; successful?: number; errors?: Record<string, string> | string[] };
  hits?: SearchHit[];
}

/** The Query service's failures carry `errors: [{code, msg}]`. */
async function queryErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const e = (JSON.parse(text) as QueryAnswer).errors?.[0];
    if (e?.msg) return `${e.msg.slice(0, 300)}${e.code ? ` (${e.code})` : ""}`;
  } catch {
    // not JSON: read below
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

const quoted = (name: string) => `\`${name}\``;

export class CouchbaseClient {
  private readonly query: ServiceCall & { url: string; policy: EndpointPolicy };
  private readonly search: ServiceCall & { url: string; policy: EndpointPolicy };
  readonly keyspace: string;

  constructor(o: CouchbaseClientOptions) {
    const origins = couchbaseOrigins(o.connectionString, o.env);
    const t = o.target;
    const common = {
      apiKey: o.password,
      headers: { Authorization: `Basic ${btoa(`${o.username}:${o.password}`)}` },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      refusedHint: "check the couchbaseApi credential's username and password",
    };
    const searchPath = t.scopedIndex
      ? `/api/bucket/${encodeURIComponent(t.bucket)}/scope/${encodeURIComponent(t.scope)}/index/${encodeURIComponent(t.index)}/query`
      : `/api/index/${encodeURIComponent(t.index)}/query`;
    this.query = {
      ...common,
      service: "Couchbase Query",
      notFoundHint: "check the bucketName, scopeName and collectionName inputs",
      detail: queryErrorMessage,
      url: `${origins.query}/query/service`,
      policy: checkEndpoint(origins.query, FIELD, o.env),
    };
    this.search = {
      ...common,
      service: "Couchbase Search",
      notFoundHint: "check the indexName input (and whether the index is scoped to the bucket's scope)",
      url: `${origins.search}${searchPath}`,
      policy: checkEndpoint(origins.search, FIELD, o.env),
    };
    this.keyspace = [t.bucket, t.scope, t.collection].map(quoted).join(".");
  }

  /** Runs one N1QL statement with positional args; its results. */
  async n1ql(what: string, statement: string, args: unknown[]): Promise<unknown[]> {
    const q = this.query;
    const body = JSON.stringify({ statement, args });
    const res = (await serviceCall<QueryAnswer>(q, what, q.url, { method: "POST", body }, q.policy)) ?? {};
    const e = res.errors?.[0];
    if (e || (res.status && res.status !== "success"))
      throw fail(
        "UPSTREAM_FAILED",
        `Couchbase Query ${what} failed: ${e?.msg?.slice(0, 300) ?? res.status}${e?.code ? ` (${e.code})` : ""}`,
      );
    return res.results ?? [];
  }

  /** UPSERT of [key, document] pairs in one statement: VALUES ($1, $2), ($3, $4), … */
  async upsert(docs: Array<[string, Record<string, unknown>]>): Promise<void> {
    const values = docs.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(", ");
    await this.n1ql("upsert", `UPSERT INTO ${this.keyspace} (KEY, VALUE) VALUES ${values}`, docs.flat());
  }

  async remove(ids: string[]): Promise<void> {
    await this.n1ql("delete", `DELETE FROM ${this.keyspace} USE KEYS $1`, [ids]);
  }

  /** Which of `ids` the collection holds (read by key: no index needed). */
  async existing(ids: string[]): Promise<string[]> {
    return (await this.n1ql("read", `SELECT RAW META().id FROM ${this.keyspace} USE KEYS $1`, [ids])).map(String);
  }

  /** The search request as the SDK sends a vector-only SearchRequest: match_none, one knn query; `raw` merged in. */
  async knn(field: string, vector: number[], k: number, fields: string[], raw: Record<string, unknown> = {}): Promise<SearchHit[]> {
    const s = this.search;
    const request = { query: { match_none: {} }, knn: [{ field, vector, k }], size: k, fields, ...raw };
    const res = (await serviceCall<SearchAnswer>(s, "search", s.url, { method: "POST", body: JSON.stringify(request) }, s.policy)) ?? {};
    const errors = res.status?.errors;
    const first = errors && Object.values(errors)[0];
    if (first && !res.status?.successful) throw fail("UPSTREAM_FAILED", `Couchbase Search search failed: ${String(first).slice(0, 300)}`);
    return res.hits ?? [];
  }
}
