// Qdrant's REST API over fetch (no SDK), on one collection: GET/PUT /collections/{name} (is it
// there, create it), PUT …/points (upsert), POST …/points (which ids it holds), …/points/search and
// …/points/delete. The key goes as `api-key`, as Qdrant's own client sends it. Failures as
// remote.ts's serviceCall says (502, 504 naming Qdrant, never the key); a missing collection is
// "nothing there" for reads and deletes.
import type { EndpointPolicy } from "../../../lib/outbound";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

/** Qdrant point ids: UUIDs or unsigned integers. */
export type QdrantId = string | number;

export interface QdrantPoint {
  id: QdrantId;
  vector: number[];
  payload: Record<string, unknown>;
}

export interface QdrantHit {
  id: QdrantId;
  score?: number;
  payload?: Record<string, unknown> | null;
  vector?: unknown;
}

export interface QdrantClientOptions {
  /** The server's origin (qdrantServerUrl), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  collection: string;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Qdrant answers errors as {status: {error}}; anything else as the other services do. */
async function qdrantErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const error = (JSON.parse(text) as { status?: { error?: unknown } })?.status?.error;
    if (typeof error === "string" && error) return error.slice(0, 300);
  } catch {
    // not JSON: read below as plain text
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

export class QdrantClient {
  private readonly service: ServiceCall;
  private readonly base: string;

  constructor(private readonly o: QdrantClientOptions) {
    this.service = {
      service: "Qdrant",
      apiKey: o.apiKey,
      headers: o.apiKey ? { "api-key": o.apiKey } : {},
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the qdrantServerUrl input",
      refusedHint: "check the qdrantApi credential",
      detail: qdrantErrorMessage,
    };
    this.base = `${o.url}/collections/${encodeURIComponent(o.collection)}`;
  }

  /** The answer's `result`; null when Qdrant answered a status of `allow`. */
  private async call<T>(what: string, method: string, path: string, body?: unknown, allow?: number[]): Promise<T | null> {
    const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const res = await serviceCall<{ result?: T }>(this.service, what, `${this.base}${path}`, init, this.o.policy, allow);
    return res && (res.result ?? null);
  }

  /** Whether the collection exists (GET answers 404 when it does not). */
  async exists(): Promise<boolean> {
    return (await this.call("get collection", "GET", "", undefined, [404])) !== null;
  }

  /** Creates the collection; one created meanwhile by another writer (409) is as good. */
  async create(config: Record<string, unknown>): Promise<void> {
    await this.call("create collection", "PUT", "", config, [409]);
  }

  async upsert(points: QdrantPoint[]): Promise<void> {
    await this.call("upsert", "PUT", "/points?wait=true", { points });
  }

  /** The nearest points, best first; null when the collection does not exist. */
  async search(vector: number[], limit: number, filter?: Record<string, unknown>, withVector = false): Promise<QdrantHit[] | null> {
    const body = { vector, limit, with_payload: true, with_vector: withVector, ...(filter ? { filter } : {}) };
    const hits = await this.call<QdrantHit[]>("search", "POST", "/points/search", body, [404]);
    return Array.isArray(hits) ? hits : hits === null ? null : [];
  }

  /** The ids of `ids` the collection holds. */
  async retrieveIds(ids: QdrantId[]): Promise<QdrantId[]> {
    const points = await this.call<QdrantHit[]>("retrieve", "POST", "/points", { ids, with_payload: false, with_vector: false }, [404]);
    return Array.isArray(points) ? points.map((p) => p.id) : [];
  }

  async deleteIds(ids: QdrantId[]): Promise<void> {
    await this.call("delete", "POST", "/points/delete?wait=true", { points: ids }, [404]);
  }
}
