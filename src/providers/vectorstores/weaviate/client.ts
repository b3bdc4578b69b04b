// Weaviate's REST and GraphQL API over fetch (no SDK), on one collection (class). Flowise's
// weaviate-client v3 sends searches and batch writes over gRPC, which a Worker cannot speak; the
// same operations have REST twins, used here: GET /v1/schema/{class} (is it there, its
// properties), POST /v1/schema (create it), POST /v1/batch/objects (write), DELETE
// /v1/batch/objects (delete by id) and POST /v1/graphql (Get with nearVector, or by id). The key goes
// as `Authorization: Bearer`, as Weaviate's client sends an ApiKey. Failures as remote.ts's
// serviceCall says (502, 504 naming Weaviate, never the key); a missing class is "nothing there".
import { fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

export interface WeaviateObject {
  id: string;
  vector: number[];
  properties: Record<string, unknown>;
}

export interface WeaviateHit {
  id: string;
  distance: number;
  properties: Record<string, unknown>;
  vector?: number[];
}

export interface WeaviateClientOptions {
  /** The server's origin, checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  /** The class name, first letter capitalised as Weaviate names it. */
  className: string;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Property types a GraphQL Get can select as they are (objects and references need sub-selections). */
const SCALAR_TYPES = /^(text|string|int|number|boolean|date|uuid)(\[\])?$/;

/** Weaviate answers errors as {error: [{message}]}; anything else as the other services do. */
async function weaviateErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const error = (JSON.parse(text) as { error?: Array<{ message?: unknown }> })?.error?.[0]?.message;
    if (typeof error === "string" && error) return error.slice(0, 300);
  } catch {
    // not JSON: read below as plain text
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

/** A JSON value as a GraphQL literal: keys bare, `operator` values as enums (Weaviate's `where` language). */
export function graphqlValue(v: unknown, key = ""): string {
  if (Array.isArray(v)) return `[${v.map((x) => graphqlValue(x)).join(", ")}]`;
  if (v && typeof v === "object") {
    const fields = Object.entries(v).map(([k, x]) => {
      if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(k)) throw fail("INVALID_FLOW", `weaviateFilter: "${k}" is not a filter field`);
      return `${k}: ${graphqlValue(x, k)}`;
    });
    return `{${fields.join(", ")}}`;
  }
  if (key === "operator") {
    if (typeof v !== "string" || !/^[A-Za-z]+$/.test(v))
      throw fail("INVALID_FLOW", "weaviateFilter: operator must be a name (Equal, And, …)");
    return v;
  }
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  return JSON.stringify(String(v));
}

/** One object of a GraphQL Get: its selected properties and `_additional`. */
type GraphqlObject = Record<string, unknown> & { _additional?: { id?: unknown; distance?: unknown; vector?: unknown } };

export class WeaviateClient {
  private readonly service: ServiceCall;

  constructor(private readonly o: WeaviateClientOptions) {
    this.service = {
      service: "Weaviate",
      apiKey: o.apiKey,
      headers: o.apiKey ? { Authorization: `Bearer ${o.apiKey}` } : {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the weaviateHost input",
      refusedHint: "check the weaviateApi credential",
      detail: weaviateErrorMessage,
    };
  }

  private call<T>(what: string, method: string, path: string, body?: unknown, allow?: number[]): Promise<T | null> {
    const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    return serviceCall<T>(this.service, what, `${this.o.url}${path}`, init, this.o.policy, allow);
  }

  /** The class's selectable property names; null when the class does not exist. */
  async properties(): Promise<string[] | null> {
    const schema = await this.call<{ properties?: Array<{ name?: unknown; dataType?: unknown }> }>(
      "get schema",
      "GET",
      `/v1/schema/${encodeURIComponent(this.o.className)}`,
      undefined,
      [404],
    );
    if (!schema) return null;
    return (schema.properties ?? [])
      .filter((p) => typeof p.name === "string" && Array.isArray(p.dataType) && SCALAR_TYPES.test(String(p.dataType[0])))
      .map((p) => p.name as string);
  }

  /** Creates the class as LangChain's WeaviateStore does ({name} only); one created meanwhile (422) is as good. */
  async create(): Promise<void> {
    await this.call("create collection", "POST", "/v1/schema", { class: this.o.className }, [422]);
  }

  /** Writes the objects; an object Weaviate refuses fails the write with its message. */
  async insert(objects: WeaviateObject[]): Promise<void> {
    const body = { objects: objects.map((o) => ({ class: this.o.className, ...o })) };
    const res = await this.call<Array<{ result?: { errors?: { error?: Array<{ message?: unknown }> } } }>>(
      "batch import",
      "POST",
      "/v1/batch/objects",
      body,
    );
    for (const o of Array.isArray(res) ? res : []) {
      const message = o.result?.errors?.error?.[0]?.message;
      if (message) throw fail("UPSTREAM_FAILED", `Weaviate batch import failed: ${String(message).slice(0, 300)}`);
    }
  }

  private idsWhere(ids: string[]) {
    return { path: ["id"], operator: "ContainsAny", valueTextArray: ids };
  }

  async deleteIds(ids: string[]): Promise<void> {
    const body = { match: { class: this.o.className, where: this.idsWhere(ids) }, output: "minimal" };
    await this.call("delete", "DELETE", "/v1/batch/objects", body, [404]);
  }

  /** A GraphQL Get on the class: its objects, or the first GraphQL error as a 502. */
  private async get(what: string, args: string, selection: string): Promise<GraphqlObject[]> {
    const query = `{ Get { ${this.o.className}(${args}) { ${selection} } } }`;
    const res = await this.call<{ data?: { Get?: Record<string, unknown> }; errors?: Array<{ message?: unknown }> }>(
      what,
      "POST",
      "/v1/graphql",
      { query },
    );
    const error = res?.errors?.[0]?.message;
    if (error) throw fail("UPSTREAM_FAILED", `Weaviate ${what} failed: ${String(error).slice(0, 300)}`);
    const list = res?.data?.Get?.[this.o.className];
    return Array.isArray(list) ? list : [];
  }

  /** The nearest objects (cosine distance: smaller is nearer), with `properties` selected. */
  async nearVector(
    vector: number[],
    limit: number,
    properties: string[],
    where?: Record<string, unknown>,
    withVector = false,
  ): Promise<WeaviateHit[]> {
    const args = [
      `nearVector: {vector: ${JSON.stringify(vector)}}`,
      `limit: ${limit}`,
      ...(where ? [`where: ${graphqlValue(where)}`] : []),
    ];
    const additional = `_additional { id distance${withVector ? " vector" : ""} }`;
    const found = await this.get("search", args.join(", "), [...properties, additional].join(" "));
    return found.map(({ _additional, ...props }) => ({
      id: String(_additional?.id ?? ""),
      distance: Number(_additional?.distance ?? 0),
      properties: props,
      vector: Array.isArray(_additional?.vector) ? (_additional.vector as number[]) : undefined,
    }));
  }

  /** The ids of `ids` the class holds. */
  async existing(ids: string[]): Promise<string[]> {
    const found = await this.get("get", `where: ${graphqlValue(this.idsWhere(ids))}, limit: ${ids.length}`, "_additional { id }");
    return found.map((o) => String(o._additional?.id ?? ""));
  }
}
