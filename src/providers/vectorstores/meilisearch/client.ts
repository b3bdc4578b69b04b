// Meilisearch's REST API over fetch (no SDK), on one index: GET /indexes/{uid} (is it there), POST
// /indexes (create it), PATCH …/settings (the `ollama` user-provided embedder and `metadata` as
// filterable, as Flowise's node sets them), POST …/documents, POST …/documents/delete-batch and POST
// …/search (hybrid: `q`, `vector`, semanticRatio). Writes are tasks: each is awaited (GET
// /tasks/{uid}) until it succeeds, a failed one a 502 with Meilisearch's message. The key goes as
// `Authorization: Bearer`. Failures as remote.ts's serviceCall says (502, 504 naming Meilisearch,
// never the key); a missing index is "nothing there".
import { fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { type ServiceCall, serviceCall } from "../remote";

/** Flowise's node names its embedder `ollama`, whatever the embeddings are. */
export const MEILI_EMBEDDER = "ollama";
const TASK_POLL_MS = 50;

export interface MeiliHit {
  objectID?: unknown;
  pageContent?: unknown;
  metadata?: unknown;
  _rankingScore?: unknown;
}

export interface MeiliClientOptions {
  url: string;
  policy: EndpointPolicy;
  index: string;
  /** meilisearchSearchApiKey: searches. */
  searchKey?: string;
  /** meilisearchAdminApiKey: writes (else the search key). */
  adminKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class MeiliClient {
  private readonly base: string;

  constructor(private readonly o: MeiliClientOptions) {
    this.base = `${o.url}/indexes/${encodeURIComponent(o.index)}`;
  }

  private service(admin: boolean): ServiceCall {
    const key = admin ? (this.o.adminKey ?? this.o.searchKey) : this.o.searchKey;
    return {
      service: "Meilisearch",
      apiKey: key,
      headers: key ? { Authorization: `Bearer ${key}` } : {},
      timeoutMs: this.o.timeoutMs,
      signal: this.o.signal,
      notFoundHint: "check the host and indexUid inputs",
      refusedHint: "check the meilisearchApi credential",
    };
  }

  private call<T>(what: string, method: string, url: string, body?: unknown, allow?: number[], admin = true): Promise<T | null> {
    const init = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    return serviceCall<T>(this.service(admin), what, url, init, this.o.policy, allow);
  }

  /** Waits for a write's task; a failed one fails the write with Meilisearch's message. */
  private async task(what: string, enqueued: { taskUid?: unknown } | null): Promise<void> {
    if (typeof enqueued?.taskUid !== "number") return;
    for (;;) {
      const t = await this.call<{ status?: string; error?: { message?: unknown } | null }>(
        what,
        "GET",
        `${this.o.url}/tasks/${enqueued.taskUid}`,
      );
      if (t?.status === "succeeded") return;
      if (t?.status === "failed" || t?.status === "canceled")
        throw fail("UPSTREAM_FAILED", `Meilisearch ${what} failed: ${String(t.error?.message ?? t.status).slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, TASK_POLL_MS));
    }
  }

  async exists(): Promise<boolean> {
    return (await this.call("get index", "GET", this.base, undefined, [404])) !== null;
  }

  /** Creates the index (primary key objectID) and sets Flowise's settings for vectors of `dimensions`. */
  async prepare(create: boolean, dimensions: number): Promise<void> {
    if (create)
      await this.task(
        "create index",
        await this.call("create index", "POST", `${this.o.url}/indexes`, { uid: this.o.index, primaryKey: "objectID" }),
      );
    const settings = { filterableAttributes: ["metadata"], embedders: { [MEILI_EMBEDDER]: { source: "userProvided", dimensions } } };
    await this.task("update settings", await this.call("update settings", "PATCH", `${this.base}/settings`, settings));
  }

  async add(documents: Array<Record<string, unknown>>): Promise<void> {
    await this.task("add documents", await this.call("add documents", "POST", `${this.base}/documents`, documents));
  }

  async deleteIds(ids: string[]): Promise<void> {
    await this.task("delete documents", await this.call("delete documents", "POST", `${this.base}/documents/delete-batch`, ids, [404]));
  }

  /** A hybrid search (the query's text and vector), best first; [] when the index does not exist. */
  async search(q: string, vector: number[], limit: number, semanticRatio: number, filter?: string): Promise<MeiliHit[]> {
    const body = {
      q,
      vector,
      limit,
      ...(filter ? { filter } : {}),
      attributesToRetrieve: ["*"],
      hybrid: { semanticRatio, embedder: MEILI_EMBEDDER },
      showRankingScore: true,
    };
    const res = await this.call<{ hits?: MeiliHit[] }>("search", "POST", `${this.base}/search`, body, [404], false);
    return res?.hits ?? [];
  }
}
