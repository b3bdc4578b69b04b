// Every fetch under the outbound policy follows its redirects here, by hand (fetch runs with
// redirect: "manual"): at most MAX_REDIRECTS hops, each hop's URL checked by the same rule as the
// first, never from https to http, and a hop to another origin (scheme, host and port) carries only
// headers that cannot hold a secret. Credentials live under many names (Authorization, api-key,
// x-api-key, x-goog-api-key, Pinecone's Api-Key, Brave's X-Subscription-Token, and whatever header
// an owner typed for an MCP server, an OTLP collector or an HTTP node), so the rule keeps a short
// list of harmless headers rather than guessing which ones are secret: a new provider's key header
// is dropped without anyone listing it. Once dropped, a header stays dropped for the later hops.
import { ApiError } from "../../errors";
import { type EndpointPolicy, type OutboundEnv, assertEndpointAllowed, assertOutboundAllowed } from "./policy";

export const MAX_REDIRECTS = 5;

/** A redirect the rule will not follow (too many, https → http): the remote server's doing (UPSTREAM_FAILED, a 502). */
export class RedirectRefused extends ApiError {
  constructor(message: string) {
    super("UPSTREAM_FAILED", message);
    this.name = "RedirectRefused";
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * What a hop to another origin still carries: content negotiation, and protocol headers that name
 * a version or a session the redirected-to server itself handed out, never a credential.
 */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-language",
  "content-language",
  "content-type",
  "user-agent",
  "anthropic-version",
  "anthropic-beta",
  "mcp-protocol-version",
  "mcp-session-id",
  "last-event-id",
  "x-github-api-version",
]);

/** Headers describing a body: gone with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-type", "content-language", "content-encoding", "content-length", "content-location"];

/** The headers without those `drop` names (a new object: the caller's headers are never changed). */
function without(headers: HeadersInit | undefined, drop: (name: string) => boolean): Headers {
  const kept = new Headers(headers);
  for (const name of [...kept.keys()]) if (drop(name)) kept.delete(name);
  return kept;
}

/**
 * fetch() with its redirects followed here: `check` answers a URL the rule allows (or throws), for
 * the first URL and every hop; `what` names the request in a refusal, which shows origins only (a
 * path or query may hold a key). A 303 (and a 301/302 after a POST) goes on as a GET without its
 * body, as fetch does; a 307/308 sends the method and body again, so a body given as a stream is
 * read into memory first (bodies here are small JSON). The policy is checked before the scheme, so
 * a hop to a refused address is named as such even when it also drops TLS.
 */
async function fetchFollowing(input: string | URL, init: RequestInit, check: (url: string | URL) => URL, what: string): Promise<Response> {
  const first = check(input);
  let url = first;
  let method = (init.method ?? "GET").toUpperCase();
  // The caller's headers go out as given until a hop changes them.
  let headers = init.headers;
  let body = init.body instanceof ReadableStream ? await new Response(init.body).arrayBuffer() : init.body;
  for (let hop = 0; ; hop++) {
    const res = await fetch(url.toString(), { ...init, method, headers, body, redirect: "manual" });
    const location = res.headers.get("location");
    if (!REDIRECTS.has(res.status) || location === null) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS)
      throw new RedirectRefused(
        `${what}: ${first.origin} redirected more than ${MAX_REDIRECTS} times (at most ${MAX_REDIRECTS} redirects are followed)`,
      );
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectRefused(`${what}: ${url.origin} redirected to a Location that is not a URL`);
    }
    next = check(next);
    if (url.protocol === "https:" && next.protocol === "http:")
      throw new RedirectRefused(`${what}: ${url.origin} redirected from https to http (${next.origin}); a redirect may not drop TLS`);
    if (next.origin !== url.origin) headers = without(headers, (name) => !CROSS_ORIGIN_HEADERS.has(name));
    if ((res.status === 303 && method !== "HEAD") || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers = without(headers, (name) => BODY_HEADERS.includes(name));
    }
    url = next;
  }
}

/**
 * fetch() of a URL that came with a request or a document, under the request rule: the URL and
 * every redirect hop checked, credentials kept from other origins (see the file's header). Throws
 * OutboundRefused (400) for a refused URL, RedirectRefused (502) for a redirect not followed.
 */
export function outboundFetch(input: string | URL, init: RequestInit, env: OutboundEnv): Promise<Response> {
  return fetchFollowing(input, init, (url) => assertOutboundAllowed(url, env), "Outbound request");
}

/** fetch() of a configured endpoint under the endpoint rule, redirects followed as outboundFetch follows them. */
export function endpointFetch(input: string | URL, init: RequestInit, policy: EndpointPolicy): Promise<Response> {
  return fetchFollowing(input, init, (url) => assertEndpointAllowed(url, policy), policy.field);
}
