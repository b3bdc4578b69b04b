// Zep's REST APIs over fetch (no SDK), as Flowise's SDKs call them. Two flavours:
//   cloud  Zep Cloud API v2 (@getzep/zep-cloud) at ZEP_CLOUD_BASE_URL (https://api.getzep.com/api/v2),
//          `Authorization: Api-Key <key>`: sessions/{id}/memory (GET ?memoryType, POST), POST sessions,
//          collections/{name} (GET, POST), collections/{name}/documents (POST [{content, metadata}] → uuids),
//          …/documents/batchDelete (POST [uuids]), …/search?limit (POST {text, metadata}).
//   open   open-source Zep v1 (@getzep/zep-js) at the node's baseURL + /api/v1, `Authorization: Bearer
//          <key>` when a key is given: sessions/{id}/memory (GET ?lastn, POST), collection/{name} (GET,
//          POST {name, embedding_dimensions, is_auto_embedded}), collection/{name}/document (POST
//          [{content, metadata, embedding}] → uuids), …/document/uuid/{uuid} (DELETE), …/search?limit
//          (POST {embedding, metadata}).
// Every URL is under the outbound policy; failures as remote.ts's serviceCall says (502, 504 naming
// Zep, never the key).
import { fail } from "../../../errors";
import { chunkBy } from "../../../lib/chunk";
import { type EndpointEnv, checkEndpoint } from "../../../lib/outbound";
import { utf8Length } from "../../../lib/utf8";
import { httpUrl } from "../../chat/endpoints";
import { firstSet } from "../../config";
import { type ServiceCall, serviceCall } from "../remote";

export const ZEP_CLOUD_DEFAULT = "https://api.getzep.com/api/v2";

export interface ZepApi {
  cloud: boolean;
  base: string;
  policy: ReturnType<typeof checkEndpoint>;
  service: ServiceCall;
}

export interface ZepHit {
  uuid?: string;
  content?: string;
  metadata?: Record<string, unknown> | null;
  score?: number;
  embedding?: number[];
}

export interface ZepMemory {
  messages?: Array<{ role?: string; role_type?: string; content?: string }>;
  summary?: { content?: string } | null;
  facts?: string[];
}

interface ApiOptions {
  env: EndpointEnv & { ZEP_CLOUD_BASE_URL?: string };
  apiKey?: string;
  /** The open-source server's baseURL input (cloud: undefined). */
  baseURL?: string;
  /** Names the node in messages ("zepCloud", "ZepMemory"). */
  label: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A Zep API: Zep Cloud when `baseURL` is undefined, else the open-source server at baseURL. */
export function zepApi(o: ApiOptions): ZepApi {
  const cloud = o.baseURL === undefined;
  if (cloud && !o.apiKey)
    throw fail("MISSING_CREDENTIAL", `${o.label} is not configured: connect a zepMemoryApi credential with the Zep Cloud apiKey`);
  const at = cloud
    ? (firstSet([o.env.ZEP_CLOUD_BASE_URL, "ZEP_CLOUD_BASE_URL"]) ?? { value: ZEP_CLOUD_DEFAULT, field: `${o.label} Zep Cloud URL` })
    : { value: o.baseURL as string, field: `${o.label} baseURL` };
  const url = httpUrl(at.value, at.field);
  // zep-js replaces the baseURL's path with /api/v1.
  const base = cloud ? url : `${new URL(url).origin}/api/v1`;
  const auth: Record<string, string> = o.apiKey ? { Authorization: cloud ? `Api-Key ${o.apiKey}` : `Bearer ${o.apiKey}` } : {};
  return {
    cloud,
    base,
    policy: checkEndpoint(base, at.field, o.env),
    service: {
      service: cloud ? "Zep Cloud" : "Zep",
      apiKey: o.apiKey,
      headers: auth,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      notFoundHint: cloud ? "check the collection name" : `check ${o.label}'s baseURL and collection name`,
      refusedHint: "check the zepMemoryApi credential",
    },
  };
}

const enc = encodeURIComponent;

function call<T>(api: ZepApi, what: string, path: string, init: RequestInit = {}, allow: number[] = []): Promise<T | null> {
  return serviceCall<T>(api.service, what, `${api.base}/${path}`, init, api.policy, allow);
}

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });

// ---- memory ----

/** A session's memory, null when Zep has no such session. */
export function getMemory(api: ZepApi, sessionId: string, query: Record<string, string | undefined>): Promise<ZepMemory | null> {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  const qs = params.size ? `?${params}` : "";
  return call<ZepMemory>(api, "memory read", `sessions/${enc(sessionId)}/memory${qs}`, {}, [404]);
}

/** Adds messages to a session's memory (Zep Cloud: the session is created first when it does not exist). */
export async function addMemory(api: ZepApi, sessionId: string, messages: Array<Record<string, string>>): Promise<void> {
  const path = `sessions/${enc(sessionId)}/memory`;
  const added = await call(api, "memory write", path, post({ messages }), api.cloud ? [404] : []);
  if (added) return;
  await call(api, "session create", "sessions", post({ session_id: sessionId }));
  await call(api, "memory write", path, post({ messages }));
}

// ---- documents ----

const collectionPath = (api: ZepApi, name: string) => `${api.cloud ? "collections" : "collection"}/${enc(name)}`;

/** Creates the collection when Zep does not have it (open source: with the embeddings' dimension). */
export async function ensureCollection(api: ZepApi, name: string, dimensions?: number): Promise<void> {
  const path = collectionPath(api, name);
  if (await call(api, "collection read", path, {}, [404])) return;
  // Open-source Zep validates a new collection (name alphanum 3–40, embedding_dimensions 8–2000): a clear 400 here.
  if (!api.cloud && !/^[A-Za-z0-9]{3,40}$/.test(name))
    throw fail("INVALID_FLOW", `zep cannot create collection ${JSON.stringify(name)}: Zep takes 3 to 40 letters and digits only`);
  if (!api.cloud && (!dimensions || dimensions < 8 || dimensions > 2000))
    throw fail("INVALID_FLOW", `zep cannot create collection ${name} for ${dimensions} dimensions: Zep takes 8 to 2000`);
  const body = api.cloud ? {} : { name, embedding_dimensions: dimensions, is_auto_embedded: false };
  await call(api, "collection create", path, post(body));
}

/** Documents per add request (zep-js's batch). */
const ZEP_ADD_BATCH = 500;
/** Bytes per add request: open-source Zep's server.max_request_size (default 5 MiB) answers 413 past it. */
const ZEP_MAX_BODY = 5 * 1024 * 1024 - 2;

/** Adds documents (open source: with their vectors) in requests Zep takes; answers Zep's uuids, in order. */
export async function addDocuments(
  api: ZepApi,
  name: string,
  docs: Array<{ content: string; document_id?: string; metadata: Record<string, unknown>; embedding?: number[] }>,
): Promise<string[]> {
  const path = `${collectionPath(api, name)}/${api.cloud ? "documents" : "document"}`;
  const uuids: string[] = [];
  try {
    for (const part of chunkBy(docs, ZEP_ADD_BATCH, ZEP_MAX_BODY, (d) => utf8Length(JSON.stringify(d)) + 1)) {
      const answer = await call<unknown>(api, "document add", path, post(part));
      if (!Array.isArray(answer) || answer.length !== part.length || answer.some((u) => typeof u !== "string"))
        throw fail("UPSTREAM_FAILED", `${api.service.service} document add answered no uuid list`);
      uuids.push(...(answer as string[]));
    }
  } catch (err) {
    // The batches written before the failure are taken back: nothing of a failed upsert stays in Zep.
    if (uuids.length) await deleteDocuments(api, name, uuids).catch(() => {});
    throw err;
  }
  return uuids;
}

export async function deleteDocuments(api: ZepApi, name: string, uuids: string[]): Promise<void> {
  const path = collectionPath(api, name);
  if (api.cloud) await call(api, "document delete", `${path}/documents/batchDelete`, post(uuids));
  else for (const uuid of uuids) await call(api, "document delete", `${path}/document/uuid/${enc(uuid)}`, { method: "DELETE" }, [404]);
}

/** The nearest documents to `query` (Zep Cloud: text it embeds; open source: a vector); [] when the collection is missing. */
export async function searchDocuments(
  api: ZepApi,
  name: string,
  query: { text?: string; embedding?: number[]; metadata?: unknown },
  limit: number,
): Promise<{ results: ZepHit[]; queryVector?: number[] }> {
  const found = await call<{ results?: ZepHit[] | null; query_vector?: number[] }>(
    api,
    "search",
    `${collectionPath(api, name)}/search?limit=${limit}`,
    post(query),
    [404],
  );
  return { results: found?.results ?? [], queryVector: found?.query_vector };
}
