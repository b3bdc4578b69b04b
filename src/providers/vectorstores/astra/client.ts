// DataStax Astra DB's Data API (JSON over HTTPS, as the astra-db-ts client Flowise's node uses speaks
// it): POST {dbEndPoint}/api/json/v1/{keyspace} {createCollection}, and on the collection
// POST …/{collection} {insertMany | findOneAndReplace | find | deleteMany}. The application token goes
// as `Token`. The Data API answers most failures as HTTP 200 with `errors: [{errorCode, message}]`:
// read here as a failed status would be (a 502 with Astra's message, never the token); a collection
// that does not exist is "nothing there" for reads and deletes.
import { fail } from "../../../errors";
import type { EndpointPolicy } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { providerErrorMessage } from "../../chat/http";
import { type ServiceCall, serviceCall } from "../remote";

export const ASTRA_KEYSPACE = "default_keyspace";
/** A missing collection: UNKNOWN_COLLECTION_OR_TABLE since the Data API's v1.0.41, COLLECTION_NOT_EXIST before (HCD, DSE). */
const NO_COLLECTION = ["UNKNOWN_COLLECTION_OR_TABLE", "COLLECTION_NOT_EXIST"];
const DIFFERENT_SETTINGS = "EXISTING_COLLECTION_DIFFERENT_SETTINGS";

export type AstraDoc = Record<string, unknown>;

/** A collection's options as the Data API describes them (findCollections with explain). */
export interface AstraCollectionOptions {
  vector?: { dimension?: number; metric?: string };
  /** Which paths are indexed (filterable, and held to the indexed-value limits): all when absent. */
  indexing?: { allow?: string[]; deny?: string[] };
}

interface Answer {
  status?: Record<string, unknown> & { collections?: Array<{ name?: string; options?: AstraCollectionOptions }> };
  data?: { documents?: AstraDoc[]; document?: AstraDoc | null };
  errors?: Array<{ errorCode?: string; message?: string; id?: unknown }>;
}

export interface AstraClientOptions {
  /** The database's API endpoint (the credential's dbEndPoint), checked by the outbound policy. */
  url: string;
  policy: EndpointPolicy;
  collection: string;
  token: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The Data API's failed answers carry `errors: [{message}]`. */
async function astraErrorMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const message = (JSON.parse(text) as Answer).errors?.[0]?.message;
    if (typeof message === "string" && message) return message.slice(0, 300);
  } catch {
    // not JSON: read below as plain text
  }
  return providerErrorMessage(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
}

export class AstraClient {
  private readonly service: ServiceCall;
  private readonly base: string;

  constructor(private readonly o: AstraClientOptions) {
    this.service = {
      service: "Astra DB",
      apiKey: o.token,
      headers: { Token: o.token },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: "check the AstraDBApi credential's dbEndPoint",
      refusedHint: "check the AstraDBApi credential's applicationToken",
      detail: astraErrorMessage,
    };
    this.base = `${o.url}/api/json/v1/${ASTRA_KEYSPACE}`;
  }

  /** The answer; null when its error is in `allow` (errorCode). Errors other than `tolerate` fail the call. */
  private async call(what: string, path: string, command: Record<string, unknown>, allow: string[] = [], tolerate: string[] = []) {
    const res =
      (await serviceCall<Answer>(
        this.service,
        what,
        `${this.base}${path}`,
        { method: "POST", body: JSON.stringify(command) },
        this.o.policy,
      )) ?? {};
    const errors = (res.errors ?? []).filter((e) => !tolerate.includes(String(e.errorCode)));
    if (!errors.length) return res;
    if (errors.some((e) => allow.includes(String(e.errorCode)))) return null;
    const e = errors[0];
    const message = redact(String(e.message ?? "no message").slice(0, 300), [this.o.token]);
    throw fail("UPSTREAM_FAILED", `Astra DB ${what} failed${e.errorCode ? ` (${e.errorCode})` : ""}: ${message}`);
  }

  private get collectionPath(): string {
    return `/${encodeURIComponent(this.o.collection)}`;
  }

  /**
   * Creates the vector collection; its options are answered. One that exists with the same options is as
   * good (as the Data API answers). One made with other options — Flowise's, made without `indexing` —
   * is refused by createCollection: it is written as it is when its vectors have this dimension, and
   * its own options are answered (its indexing decides which values Astra limits).
   */
  async create(dimension: number, metric: string): Promise<AstraCollectionOptions> {
    const options = { vector: { dimension, metric }, indexing: { allow: ["metadata"] } };
    if (await this.call("create collection", "", { createCollection: { name: this.o.collection, options } }, [DIFFERENT_SETTINGS]))
      return options;
    const res = await this.call("find collections", "", { findCollections: { options: { explain: true } } });
    const existing = res?.status?.collections?.find((c) => c.name === this.o.collection)?.options ?? {};
    const has = existing.vector?.dimension;
    if (has === dimension) return existing;
    throw fail(
      "UPSTREAM_FAILED",
      `Astra DB create collection failed (${DIFFERENT_SETTINGS}): collection '${this.o.collection}' already exists with ` +
        `${has ? `vectors of ${has} dimensions` : "no vectors"}; these embeddings have ${dimension}: use the embeddings it was ` +
        "filled with, or another astraCollection",
    );
  }

  /** Inserts the documents; the ids that were there already (left as they were) are answered. */
  async insertMany(documents: AstraDoc[]): Promise<unknown[]> {
    const res = await this.call(
      "insert",
      this.collectionPath,
      { insertMany: { documents, options: { ordered: false } } },
      [],
      ["DOCUMENT_ALREADY_EXISTS"],
    );
    const inserted = new Set(((res?.status?.insertedIds as unknown[]) ?? []).map(String));
    return documents.map((d) => d._id).filter((id) => !inserted.has(String(id)));
  }

  async replace(document: AstraDoc): Promise<void> {
    const command = { findOneAndReplace: { filter: { _id: document._id }, replacement: document, options: { upsert: true } } };
    await this.call("replace", this.collectionPath, command);
  }

  /** Documents nearest `vector` (with `$similarity`), best first; null when the collection does not exist. */
  async nearest(vector: number[], limit: number, filter: Record<string, unknown>, withVector: boolean): Promise<AstraDoc[] | null> {
    const find = {
      filter,
      sort: { $vector: vector },
      projection: { $vector: withVector ? 1 : 0 },
      options: { limit, includeSimilarity: true },
    };
    const res = await this.call("find", this.collectionPath, { find }, NO_COLLECTION);
    return res ? (res.data?.documents ?? []) : null;
  }

  /** Which of `ids` the collection holds (one page: at most 20 ids a call). */
  async existing(ids: string[]): Promise<string[]> {
    const find = { filter: { _id: { $in: ids } }, projection: { _id: 1 } };
    const res = await this.call("find", this.collectionPath, { find }, NO_COLLECTION);
    return (res?.data?.documents ?? []).map((d) => String(d._id));
  }

  async deleteIds(ids: string[]): Promise<void> {
    for (;;) {
      const res = await this.call("delete", this.collectionPath, { deleteMany: { filter: { _id: { $in: ids } } } }, NO_COLLECTION);
      if (!res?.status?.moreData) return;
    }
  }
}
