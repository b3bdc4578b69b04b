// Supabase's PostgREST API over fetch (no SDK), as supabase-js calls it for LangChain's
// SupabaseVectorStore: POST {url}/rest/v1/{tableName} (rows {id, content, metadata, embedding},
// merged on id), POST …/rpc/{queryName} {query_embedding, match_count, filter} for the nearest rows
// ({id, content, metadata, similarity[, embedding]}), GET …?select=id&id=in.(…) and DELETE
// …?id=in.(…). The key goes as `apikey` and `Authorization: Bearer`, as supabase-js sends it.
// Failures as remote.ts's serviceCall says (502, 504 naming Supabase, never the key); a missing
// table or function is a 400 naming the inputs.
import { fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { type ServiceCall, serviceCall } from "../remote";

export interface SupabaseRow {
  /** A UUID, or a number for a bigint id column. */
  id: string | number;
  content: string;
  metadata: Record<string, unknown>;
  embedding: number[];
}

export interface SupabaseMatch {
  id?: string | number;
  content?: string | null;
  metadata?: Record<string, unknown> | null;
  similarity?: number;
  /** Present when the function answers it (LangChain's documented match_documents does, for MMR). */
  embedding?: unknown;
}

export interface SupabaseClientOptions {
  /** The project's URL (supabaseProjUrl, no trailing slash), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  apiKey: string;
  table: string;
  queryName: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The kinds of id column a documents table has here: `uuid` (or text: LangChain's rows with the
 * record manager's UUIDs) or `bigint` (Flowise's documented `id bigserial primary key`).
 */
export type SupabaseIdKind = "uuid" | "bigint";

const NIL_UUID = "00000000-0000-0000-0000-000000000000";
/** A bigint larger than any `integer` column holds: an int4 id column refuses it. */
const BIG_PROBE = String(2 ** 52);

/** A row filter in the query string: `id=in.(a,b)` (the ids are UUIDs or integers: nothing to quote). */
const idsIn = (ids: string[]) => `id=in.(${ids.map(encodeURIComponent).join(",")})`;

export class SupabaseClient {
  private readonly rest: string;

  constructor(private readonly o: SupabaseClientOptions) {
    this.rest = `${o.url}/rest/v1`;
  }

  private call<T>(what: string, url: string, init: RequestInit, prefer?: string, allow: number[] = []): Promise<T | null> {
    const service: ServiceCall = {
      service: "Supabase",
      apiKey: this.o.apiKey,
      headers: { apikey: this.o.apiKey, Authorization: `Bearer ${this.o.apiKey}`, ...(prefer ? { Prefer: prefer } : {}) },
      timeoutMs: this.o.timeoutMs,
      signal: this.o.signal,
      notFoundHint: "check the supabaseProjUrl, tableName and queryName inputs",
      refusedHint: "check the supabaseApi credential",
    };
    return serviceCall<T>(service, what, url, init, this.o.policy, allow);
  }

  /**
   * The table's id column kind: PostgreSQL refuses a filter value its column's type cannot read
   * (400, 22P02 or 22003), so a UUID that is read means uuid or text, a number past int4 bigint.
   */
  async idKind(): Promise<SupabaseIdKind> {
    const probe = (value: string) =>
      this.call<unknown[]>("table check", `${this.table}?select=id&id=eq.${value}&limit=1`, { method: "GET" }, undefined, [400]);
    if ((await probe(NIL_UUID)) !== null) return "uuid";
    if ((await probe(BIG_PROBE)) !== null) return "bigint";
    throw fail(
      "INVALID_FLOW",
      `supabase: the ${this.o.table} table needs an id column of type uuid, text or bigint (as Flowise's documented ` +
        "`id bigserial primary key`); check the tableName input",
    );
  }

  private get table(): string {
    return `${this.rest}/${encodeURIComponent(this.o.table)}`;
  }

  /** Inserts the rows, replacing those of the same id. */
  async upsert(rows: SupabaseRow[]): Promise<void> {
    const init = { method: "POST", body: JSON.stringify(rows) };
    await this.call("upsert", `${this.table}?on_conflict=id`, init, "resolution=merge-duplicates,return=minimal");
  }

  /**
   * The function's nearest rows: {query_embedding, match_count, filter} as LangChain sends them, or,
   * given `params` (supabaseRPCFilter's query-string filters), {query_embedding} with `limit`.
   */
  async match(vector: number[], count: number, filter: Record<string, unknown>, params?: URLSearchParams): Promise<SupabaseMatch[]> {
    const url = `${this.rest}/rpc/${encodeURIComponent(this.o.queryName)}`;
    const body = params ? { query_embedding: vector } : { query_embedding: vector, match_count: count, filter };
    const query = params ? `?${new URLSearchParams([...params, ["limit", String(count)]])}` : "";
    const rows = await this.call<SupabaseMatch[]>("match", `${url}${query}`, { method: "POST", body: JSON.stringify(body) });
    return Array.isArray(rows) ? rows : [];
  }

  /** The ids of `ids` the table holds. */
  async existing(ids: string[]): Promise<string[]> {
    const rows = await this.call<Array<{ id?: unknown }>>("select", `${this.table}?select=id&${idsIn(ids)}`, { method: "GET" });
    return Array.isArray(rows) ? rows.map((r) => String(r.id)) : [];
  }

  async deleteIds(ids: string[]): Promise<void> {
    await this.call("delete", `${this.table}?${idsIn(ids)}`, { method: "DELETE" }, "return=minimal");
  }
}
