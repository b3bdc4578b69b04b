// Chroma's REST API v2 over fetch (no SDK), the API Flowise's bundled chromadb 3 client speaks, on
// one collection of one tenant and database: GET …/collections/{name} (its id, on reads) or POST
// …/collections {name, get_or_create: true} (before a write), then …/collections/{id}/upsert,
// /query, /get and /delete. The key goes as `x-chroma-token`, as LangChain's Chroma sends
// chromaCloudAPIKey. Failures as remote.ts's serviceCall says (502, 504 naming Chroma, never the key);
// a missing collection is "nothing there" for reads and deletes.
import { fail } from "../../../errors";
import { isObject } from "../../../lib/inputs";
import type { EndpointPolicy } from "../../../lib/outbound";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

export type ChromaMetadata = Record<string, string | number | boolean | null>;

export interface ChromaRecords {
  ids: string[];
  embeddings: number[][];
  metadatas: Array<ChromaMetadata | null>;
  documents: string[];
}

/** One query's answer (Chroma answers a list per query vector; this is the first). */
export interface ChromaHit {
  id: string;
  distance: number;
  document: string | null;
  metadata: ChromaMetadata | null;
  embedding?: number[];
}

export interface ChromaClientOptions {
  /** The server's origin (chromaURL, else Flowise's default), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  tenant: string;
  database: string;
  collection: string;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Chroma answers errors as {error: "NotFoundError", message}; anything else as the other services do. */
async function chromaErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.message === "string" && body.message)
      return (typeof body.error === "string" && body.error ? `${body.error}: ${body.message}` : body.message).slice(0, 300);
  } catch {
    // not JSON: read below as plain text
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

type Lists<T> = Array<Array<T> | null> | null | undefined;

/**
 * A metadata filter as Chroma's server reads it: one key at each level, one operator per field. A
 * filter written Pinecone- or Mongo-style ({a: 1, b: {$gte: 2, $lte: 5}}, as a chromaMetadataFilter
 * may be) is refused by Chroma ("Invalid where clause"); its clauses are joined with $and instead.
 */
export function chromaWhere(where: Record<string, unknown>): Record<string, unknown> {
  const clauses: Record<string, unknown>[] = [];
  for (const [key, value] of Object.entries(where)) {
    if ((key === "$and" || key === "$or") && Array.isArray(value))
      clauses.push({ [key]: value.map((w) => (isObject(w) ? chromaWhere(w) : w)) });
    else if (isObject(value) && Object.keys(value).length > 1)
      for (const [op, operand] of Object.entries(value)) clauses.push({ [key]: { [op]: operand } });
    else clauses.push({ [key]: value });
  }
  return clauses.length === 1 ? clauses[0] : { $and: clauses };
}

export class ChromaClient {
  private readonly service: ServiceCall;
  private readonly base: string;

  constructor(private readonly o: ChromaClientOptions) {
    this.service = {
      service: "Chroma",
      apiKey: o.apiKey,
      headers: o.apiKey ? { "x-chroma-token": o.apiKey } : {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the chromaURL input and the chromaApi credential's chromaTenant and chromaDatabase",
      refusedHint: "check the chromaApi credential",
      detail: chromaErrorMessage,
    };
    this.base = `${o.url}/api/v2/tenants/${encodeURIComponent(o.tenant)}/databases/${encodeURIComponent(o.database)}/collections`;
  }

  private call<T>(what: string, method: string, path: string, body?: unknown, allow?: number[]): Promise<T | null> {
    const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    return serviceCall<T>(this.service, what, `${this.base}${path}`, init, this.o.policy, allow);
  }

  /** The collection's id; null when it does not exist. */
  async find(): Promise<string | null> {
    const found = await this.call<{ id?: unknown }>("get collection", "GET", `/${encodeURIComponent(this.o.collection)}`, undefined, [404]);
    return typeof found?.id === "string" ? found.id : null;
  }

  /** The collection's id, created when missing (as LangChain's getOrCreateCollection, no embedding function). */
  async findOrCreate(): Promise<string> {
    const made = await this.call<{ id?: unknown }>("get or create collection", "POST", "", {
      name: this.o.collection,
      get_or_create: true,
    });
    if (typeof made?.id !== "string") throw fail("UPSTREAM_FAILED", `Chroma gave no id for collection "${this.o.collection}"`);
    return made.id;
  }

  async upsert(id: string, records: ChromaRecords): Promise<void> {
    await this.call("upsert", "POST", `/${id}/upsert`, records);
  }

  /** The nearest records, nearest first (Chroma's distances: smaller is nearer). */
  async query(id: string, vector: number[], n: number, where?: Record<string, unknown>, withEmbeddings = false): Promise<ChromaHit[]> {
    const include = ["documents", "metadatas", "distances", ...(withEmbeddings ? ["embeddings"] : [])];
    const body = {
      query_embeddings: [vector],
      n_results: n,
      include,
      ...(where && Object.keys(where).length ? { where: chromaWhere(where) } : {}),
    };
    const res = await this.call<{
      ids?: Lists<string>;
      distances?: Lists<number | null>;
      documents?: Lists<string | null>;
      metadatas?: Lists<ChromaMetadata | null>;
      embeddings?: Lists<number[]>;
    }>("query", "POST", `/${id}/query`, body, [404]);
    const ids = res?.ids?.[0] ?? [];
    const distances = res?.distances?.[0] ?? [];
    if (distances.some((d) => d === null)) return [];
    return ids.map((hitId, i) => ({
      id: hitId,
      distance: distances[i] ?? 0,
      document: res?.documents?.[0]?.[i] ?? null,
      metadata: res?.metadatas?.[0]?.[i] ?? null,
      embedding: res?.embeddings?.[0]?.[i],
    }));
  }

  /** The ids of `ids` the collection holds. */
  async existing(id: string, ids: string[]): Promise<string[]> {
    const res = await this.call<{ ids?: unknown }>("get", "POST", `/${id}/get`, { ids, include: [] }, [404]);
    return Array.isArray(res?.ids) ? res.ids.map(String) : [];
  }

  async deleteIds(id: string, ids: string[]): Promise<void> {
    await this.call("delete", "POST", `/${id}/delete`, { ids }, [404]);
  }
}
