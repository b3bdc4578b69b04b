// Momento Cache over its HTTP API, as the momentoCache LLM cache (LangChain's MomentoCache) uses the
// SDK's get and set: GET {base}/cache/{cache}?key=… (200 the value; 404 "Key Not Found" a miss,
// 404 "Cache Not Found" an error) and PUT {base}/cache/{cache}?key=…&ttl_seconds=… (204; at most
// a day, Momento's TTL limit), the API key in `Authorization`. The base is
// https://api.<cache endpoint>, the cache endpoint found as the SDK's CredentialProvider.fromString
// finds it: a v1 key (base64 JSON {api_key, endpoint}) → cache.<endpoint>; a legacy JWT → its `c`
// claim. A v2 key (a JWT with t = "g", which fromString refuses) takes the credential's
// momentoEndpoint → cache.<endpoint>. MOMENTO_BASE_URL replaces the base (tests, a proxy).
import { BaseCache, deserializeStoredGeneration, serializeGeneration } from "@langchain/core/caches";
import type { Generation } from "@langchain/core/outputs";
import { ApiError, fail } from "../../errors";
import { errorMessage } from "../../lib/error-message";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { redact } from "../../lib/redact";

/** LangChain's MomentoCache leaves the TTL to the client Flowise makes: one day. */
export const MOMENTO_DEFAULT_TTL_SECONDS = 86_400;
const TIMEOUT_MS = 10_000;

const fromBase64 = (s: string): string => {
  const b = s.replace(/-/g, "+").replace(/_/g, "/");
  return new TextDecoder().decode(Uint8Array.from(atob(b + "=".repeat((4 - (b.length % 4)) % 4)), (c) => c.charCodeAt(0)));
};

function jsonOf(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The token to send and the cache endpoint's host, from the key (and the credential's endpoint for a v2 key). */
export function momentoTarget(apiKey: string, endpoint: string | undefined): { token: string; cacheHost: string } {
  const parts = apiKey.split(".");
  if (parts.length !== 3) {
    let v1: Record<string, unknown> | undefined;
    try {
      v1 = jsonOf(fromBase64(apiKey));
    } catch {
      v1 = undefined;
    }
    if (typeof v1?.api_key === "string" && typeof v1.endpoint === "string") return { token: v1.api_key, cacheHost: `cache.${v1.endpoint}` };
    throw fail("INVALID_FLOW", "momentoCacheApi momentoApiKey is not a Momento API key (neither a v1 key nor a JWT)");
  }
  let claims: Record<string, unknown> | undefined;
  try {
    claims = jsonOf(fromBase64(parts[1]));
  } catch {
    claims = undefined;
  }
  if (!claims) throw fail("INVALID_FLOW", "momentoCacheApi momentoApiKey is not a Momento API key (its JWT claims do not read)");
  if (claims.t === "g") {
    const cell = endpoint
      ?.trim()
      .replace(/^https?:\/\//, "")
      .replace(/\/+$/, "");
    if (!cell)
      throw fail(
        "INVALID_FLOW",
        "momentoCacheApi: a v2 API key needs the credential's momentoEndpoint (e.g. cell-us-east-1-1.prod.a.momentohq.com)",
      );
    return { token: apiKey, cacheHost: cell.startsWith("cache.") ? cell : `cache.${cell}` };
  }
  if (typeof claims.c !== "string" || !claims.c)
    throw fail("INVALID_FLOW", "momentoCacheApi momentoApiKey names no cache endpoint (its `c` claim)");
  return { token: apiKey, cacheHost: claims.c };
}

/** One cache's get and set over Momento's HTTP API. */
export class MomentoRest {
  readonly label: string;
  constructor(
    private readonly base: string,
    private readonly cache: string,
    private readonly token: string,
    private readonly policy: EndpointPolicy,
  ) {
    this.label = `Momento at ${new URL(base).host}`;
  }

  private async call(method: "GET" | "PUT", query: Record<string, string>, body?: string): Promise<Response> {
    const url = `${this.base.replace(/\/+$/, "")}/cache/${encodeURIComponent(this.cache)}?${new URLSearchParams(query)}`;
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    try {
      return await endpointFetch(url, { method, headers: { authorization: this.token }, body, signal }, this.policy);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (signal.aborted) throw fail("TIMEOUT", `${this.label} did not answer within ${TIMEOUT_MS} ms`);
      throw fail("UPSTREAM_FAILED", `${this.label} is unreachable: ${redact(errorMessage(err), [this.token])}`);
    }
  }

  private async failure(res: Response, body?: string): Promise<ApiError> {
    const text = (body ?? (await res.text().catch(() => ""))).slice(0, 300).split("\n")[0];
    return fail("UPSTREAM_FAILED", `${this.label} answered ${res.status}: ${redact(text || res.statusText, [this.token])}`);
  }

  /** The value, or null on a miss. */
  async get(key: string): Promise<string | null> {
    const res = await this.call("GET", { key });
    if (res.status === 404) {
      // Momento answers 404 both for a miss ("Key Not Found") and for a cache that does not exist
      // ("Cache Not Found"): the latter is the credential's mistake, not a miss to answer around.
      const text = await res.text().catch(() => "");
      if (/cache not found/i.test(text)) throw await this.failure(res, text);
      return null;
    }
    if (!res.ok) throw await this.failure(res);
    return res.text();
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    const res = await this.call("PUT", { key, ttl_seconds: String(ttlSeconds) }, value);
    if (!res.ok) throw await this.failure(res);
    await res.body?.cancel();
  }
}

const keyOf = async (prompt: string, llmKey: string): Promise<string> => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${prompt}_${llmKey}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
};

/** LangChain's MomentoCache: one item per prompt and model settings (its default key, SHA-256 of both), the generations as JSON. */
export class MomentoLlmCache extends BaseCache {
  constructor(
    private readonly client: MomentoRest,
    private readonly ttlSeconds = MOMENTO_DEFAULT_TTL_SECONDS,
  ) {
    super();
  }
  async lookup(prompt: string, llmKey: string): Promise<Generation[] | null> {
    const value = await this.client.get(await keyOf(prompt, llmKey));
    if (value === null) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
    return Array.isArray(parsed) ? parsed.map(deserializeStoredGeneration) : null;
  }
  async update(prompt: string, llmKey: string, value: Generation[]): Promise<void> {
    await this.client.set(await keyOf(prompt, llmKey), JSON.stringify(value.map(serializeGeneration)), this.ttlSeconds);
  }
}
