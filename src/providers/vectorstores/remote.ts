// What the stores behind a REST service share (pinecone, qdrant). Their vectors, text and metadata
// live in the service, laid out as LangChain's store for it writes them (so what Flowise filled
// answers here, and back); D1 keeps only the bookkeeping rows a document store needs: which loader
// and chunk each vector came from. Calls are under the outbound policy's endpoint rule, each with a
// deadline and one retry of a network or 5xx failure (every call is idempotent: writes carry their
// ids); failures are 502 (504 when the service does not answer in time) naming the service, never its key.
import type { Document, DocumentInterface } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { maximalMarginalRelevance } from "@langchain/core/utils/math";
import type { MaxMarginalRelevanceSearchOptions } from "@langchain/core/vectorstores";
import { ApiError, fail } from "../../errors";
import { chunk } from "../../lib/chunk";
import { errorMessage } from "../../lib/error-message";
import { isUuid, stableId } from "../../lib/ids";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { utf8Length } from "../../lib/utf8";
import { Deadline, RetryableProviderError, RunAborted, withOneRetry } from "../../lib/run-control";
import { providerErrorMessage } from "../chat/http";
import { D1DocumentsStore } from "./d1-documents";
import { runBatchPaced } from "./d1-json";
import type { AddVectorsOptions } from "./types";

export const SERVICE_TIMEOUT_MS = 30_000;

export interface ServiceCall {
  /** Named in every failure ("Pinecone", "Qdrant"). */
  service: string;
  /** Redacted from every message. */
  apiKey?: string;
  headers: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** What a 404 points at ("check the pineconeIndex input"). */
  notFoundHint: string;
  /** What a 401/403 points at ("check the pineconeApi credential"). */
  refusedHint: string;
  /** The message of a failed answer (default: the usual error fields). */
  detail?: (res: Response) => Promise<string>;
}

/**
 * One JSON call: the parsed answer, or null for a status in `allow` (a 404 meaning "nothing there").
 * 5xx and network failures are tried once more, then 502; other failures 502, a 404 400.
 */
export async function serviceCall<T>(
  s: ServiceCall,
  what: string,
  url: string,
  init: RequestInit,
  policy: EndpointPolicy,
  allow: number[] = [],
): Promise<T | null> {
  const ms = s.timeoutMs ?? SERVICE_TIMEOUT_MS;
  const secrets = s.apiKey ? [s.apiKey] : [];
  const attempt = async (): Promise<T | null> => {
    const deadline = new Deadline(ms, s.signal);
    try {
      const headers = { ...s.headers, Accept: "application/json", ...(init.body ? { "Content-Type": "application/json" } : {}) };
      const res = await endpointFetch(url, { ...init, headers, signal: deadline.signal }, policy);
      if (allow.includes(res.status)) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) {
        const detail = redact(await deadline.race((s.detail ?? providerErrorMessage)(res)), secrets);
        const message = `${s.service} ${what} failed (${res.status}): ${detail}`;
        if (res.status >= 500) throw new RetryableProviderError(message);
        if (res.status === 404) throw fail("INVALID_FLOW", `${s.service} ${what}: not found (${detail}); ${s.notFoundHint}`);
        if (res.status === 401 || res.status === 403)
          throw fail("UPSTREAM_FAILED", `${s.service} ${what} was refused (${res.status}): ${s.refusedHint}`);
        throw fail("UPSTREAM_FAILED", message);
      }
      const text = await deadline.race(res.text());
      return (text ? JSON.parse(text) : {}) as T;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (deadline.aborted) throw new RunAborted();
      if (deadline.timedOut) throw fail("TIMEOUT", `${s.service} ${what} did not answer within ${Math.round(ms)} ms`);
      throw new RetryableProviderError(`${s.service} ${what} failed: ${redact(errorMessage(err), secrets)}`);
    } finally {
      deadline.done();
    }
  };
  try {
    return await withOneRetry(attempt, () => false, s.signal);
  } catch (err) {
    if (err instanceof RetryableProviderError) throw fail("UPSTREAM_FAILED", err.message);
    throw err;
  }
}

/** A JSON object input given as an object or JSON text (a metadata filter, a collection configuration). */
export function jsonObjectInput(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_FLOW", `${field} is not valid JSON`);
    }
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw fail("INVALID_FLOW", `${field} must be a JSON object`);
  return v as Record<string, unknown>;
}

/** `open` run on first use and kept; a failed open (a credential read) is tried again next time. */
export function lazily<T>(open: () => Promise<T>): () => Promise<T> {
  let opened: Promise<T> | undefined;
  return () => {
    opened ??= open();
    opened.catch(() => (opened = undefined));
    return opened;
  };
}

/** Flowise's searchType "mmr": `k` of the candidates (fetched with their vectors) picked for relevance and variety. */
export function pickMmr<T>(query: number[], candidates: T[], vectorOf: (c: T) => unknown, lambda: number, k: number): T[] {
  const usable = candidates.filter((c) => {
    const v = vectorOf(c);
    return Array.isArray(v) && v.length === query.length;
  });
  if (!usable.length) return [];
  const picked = maximalMarginalRelevance(
    query,
    usable.map((c) => vectorOf(c) as number[]),
    lambda,
    k,
  );
  return picked.map((i) => usable[i]);
}

/** JSON characters of one vector value at most ("-0.0012345678901234567,"). */
const NUMBER_BYTES = 24;

/**
 * About how many bytes a document takes in a write request (its vector's values as JSON text, its text
 * and metadata, its id): what a batch capped in bytes counts, estimated rather than encoded twice.
 */
export const documentBytes = (id: string, vector: number[], text: string, metadata: unknown): number =>
  NUMBER_BYTES * vector.length + utf8Length(text) + utf8Length(JSON.stringify(metadata ?? {})) + id.length;

/** The ids for a service that takes UUIDs only: any other id is replaced by a UUID made from it. */
export const uuidIds = (ids: string[]): Promise<string[]> => Promise.all(ids.map((id) => (isUuid(id) ? id.toLowerCase() : stableId(id))));

/** A store whose vectors (with their text) live in a service: D1 holds the bookkeeping rows only. */
export abstract class RemoteDocumentsStore extends D1DocumentsStore {
  /** Ids per delete request. */
  protected abstract readonly deleteBatch: number;
  /** Writes the vectors, with their documents' text and metadata, to the service. */
  protected abstract writeRemote(ids: string[], vectors: number[][], documents: DocumentInterface[]): Promise<void>;
  protected abstract deleteRemote(ids: string[]): Promise<void>;
  /** Its first write's preparation (a missing collection or index made), once it has succeeded. */
  private prepared: Promise<void> | undefined;

  /** The ids the service is given for `ids` (a service may take only some shapes). */
  protected async remoteIds(ids: string[]): Promise<string[]> {
    return ids;
  }

  async addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[]> {
    const ids = await this.remoteIds(this.idsFor(documents, options));
    if (!ids.length) return ids;
    // D1 keeps only which loader each vector came from: the text lives in the service.
    const bookkeeping = documents.map((d) => ({
      pageContent: "",
      metadata: typeof d.metadata?.docId === "string" ? { docId: d.metadata.docId } : {},
    }));
    await runBatchPaced(this.db, this.documentWrites(ids, bookkeeping, { chunkNos: options?.chunkNos }));
    try {
      await this.writeRemote(ids, vectors, documents);
    } catch (err) {
      await runBatchPaced(this.db, this.documentDeletes(ids)).catch(() => {});
      throw err;
    }
    return ids;
  }

  async delete(params?: { ids?: string[] }): Promise<void> {
    const ids = await this.remoteIds([...new Set(params?.ids ?? [])]);
    for (const part of chunk(ids, this.deleteBatch)) {
      await this.deleteRemote(part);
      await runBatchPaced(this.db, this.documentDeletes(part));
    }
  }

  /** Removes the vectors this store wrote (never the whole index or collection, which others may share). */
  async clear(): Promise<number> {
    const ids = await this.allIds();
    await this.delete({ ids });
    return ids.length;
  }

  /** Runs `prepare` once per store (asked before its first write); a failure is tried again next time. */
  protected prepareOnce(prepare: () => Promise<void>): Promise<void> {
    this.prepared ??= prepare();
    this.prepared.catch(() => (this.prepared = undefined));
    return this.prepared;
  }

  /**
   * Flowise's searchType "mmr", for a store that offers it: `nearest` answers the fetchK nearest to the
   * query's vector with their vectors (given the caller's filter, if any), and k of them are picked
   * for relevance and variety.
   */
  protected async mmrSearch<H, F = Record<string, unknown>>(
    query: string,
    options: MaxMarginalRelevanceSearchOptions<F>,
    nearest: (vector: number[], fetchK: number, filter: F | undefined) => Promise<H[]>,
    vectorOf: (hit: H) => unknown,
    documentOf: (hit: H) => Document,
  ): Promise<Document[]> {
    const vector = await this.embeddings.embedQuery(query);
    const hits = await nearest(vector, this.topK(options.fetchK ?? 20), options.filter);
    return pickMmr(vector, hits, vectorOf, options.lambda ?? 0.5, options.k).map((h) => documentOf(h));
  }

  protected topK(k: number): number {
    return Math.max(1, Math.min(this.maxTopK, k));
  }
}

/**
 * The embeddings of a store whose service embeds the text itself (zepCloud, vectara): empty vectors,
 * so an upsert or a query asks no model. `inIsolate`: nothing leaves the isolate to answer.
 */
export class ServiceEmbedsText extends Embeddings {
  readonly inIsolate = true;
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map(() => []);
  }
  async embedQuery(): Promise<number[]> {
    return [];
  }
}

/** A hosted store over its service's client (resolved on first use: the credential is read then) and its node's settings. */
export abstract class ServiceStore<C, S> extends RemoteDocumentsStore {
  constructor(
    embeddings: ConstructorParameters<typeof RemoteDocumentsStore>[0],
    db: ConstructorParameters<typeof RemoteDocumentsStore>[1],
    namespace: string,
    protected readonly client: () => Promise<C>,
    protected readonly s: S,
  ) {
    super(embeddings, db, namespace);
  }
}
