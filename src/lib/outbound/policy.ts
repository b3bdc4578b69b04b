// The outbound URL policy of API.md ("Models and outbound requests"): every URL edgeflow fetches
// for a flow must be http(s) and must not point at loopback, private, link-local, metadata or
// otherwise non-public addresses (addresses.ts reads them), unless the OUTBOUND_ALLOW var lists its
// host. Two rules share it:
// - request URLs (a custom tool's fetch, a web loader's page, an HTTP node): the policy as it is;
// - endpoints (a model's base URL, a credential's basePath, a Pinecone host, a Redis or Postgres
//   address — whatever a flow's owner or a deployment var configured): the same, except that a
//   local environment (ENVIRONMENT=development, or test under the test runner) may reach loopback,
//   so local models and stand-ins keep working. Private model servers go in OUTBOUND_ALLOW.
import { ApiError } from "../../errors";
import { listVar } from "../../env";
import { refusalOf } from "./addresses";

/** A URL the policy refuses: an ApiError (OUTBOUND_REFUSED, a 400) so a route can answer it as it is. */
export class OutboundRefused extends ApiError {
  constructor(message: string) {
    super("OUTBOUND_REFUSED", message);
    this.name = "OutboundRefused";
  }
}

export interface OutboundEnv {
  OUTBOUND_ALLOW?: string;
}

/** What the endpoint rule reads: OUTBOUND_ALLOW, and ENVIRONMENT for the local-development exception. */
export interface EndpointEnv extends OutboundEnv {
  ENVIRONMENT?: string;
}

/** Environments where endpoints may be on loopback: `wrangler dev` (development) and the test runner (test). */
export const isLocalEnvironment = (env: EndpointEnv): boolean => env.ENVIRONMENT === "development" || env.ENVIRONMENT === "test";

/** `OUTBOUND_ALLOW` entries: `host`, `host:port`, `*.example.com`, or a URL (its host is used). */
function allowedByList(url: URL, env: OutboundEnv): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const hostPort = url.port ? `${host}:${url.port}` : host;
  for (const raw of listVar(env.OUTBOUND_ALLOW)) {
    let entry = raw.toLowerCase();
    if (entry.includes("://")) {
      try {
        entry = new URL(entry).host;
      } catch {
        continue;
      }
    }
    entry = entry.replace(/\/+$/, "").replace(/\.$/, "");
    if (entry === "*") return true;
    if (entry.startsWith("*.")) {
      const suffix = entry.slice(1);
      if (host.endsWith(suffix) && host.length > suffix.length) return true;
      continue;
    }
    if (entry === host || entry === hostPort) return true;
  }
  return false;
}

function parseHttpUrl(input: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundRefused(`${what}: ${String(input).slice(0, 200)} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefused(`${what}: only http and https URLs may be fetched, not ${url.protocol.replace(/:$/, "")}`);
  }
  if (url.username || url.password) {
    // Credentials in the URL are allowed by fetch but are a common smuggling trick; keep them out.
    throw new OutboundRefused(`${what}: URLs with credentials (user:pass@) may not be fetched`);
  }
  return url;
}

const ALLOW_HINT = "OUTBOUND_ALLOW can list hosts that may be reached";

/**
 * The parsed URL when the policy allows it; throws OutboundRefused (400) saying why not.
 * Use before fetching any URL that came with a request or a document.
 */
export function assertOutboundAllowed(input: string | URL, env: OutboundEnv): URL {
  const url = parseHttpUrl(input, "Outbound request refused");
  if (allowedByList(url, env)) return url;
  const refusal = refusalOf(url);
  if (refusal) throw new OutboundRefused(`Outbound request refused: ${refusal.why} (${ALLOW_HINT})`);
  return url;
}

/** True when the policy allows the URL. */
export function isOutboundAllowed(input: string | URL, env: OutboundEnv): boolean {
  try {
    assertOutboundAllowed(input, env);
    return true;
  } catch {
    return false;
  }
}

/**
 * A configured endpoint under the endpoint rule: where its URL came from (`field`: "chatOpenAI
 * basepath", "OPENAI_BASE_URL", …, named in a refusal) and the settings the rule reads. A provider
 * keeps one with each URL it calls and fetches through endpointFetch with it.
 */
export interface EndpointPolicy {
  field: string;
  env: EndpointEnv;
}

function endpointRefusal(url: URL, { field, env }: EndpointPolicy): OutboundRefused | undefined {
  if (allowedByList(url, env)) return undefined;
  const refusal = refusalOf(url);
  if (!refusal || (refusal.loopback && isLocalEnvironment(env))) return undefined;
  const hint = refusal.loopback ? `${ALLOW_HINT}; loopback is allowed only when ENVIRONMENT=development` : ALLOW_HINT;
  return new OutboundRefused(`${field} refused by the outbound policy: ${refusal.why} (${hint})`);
}

/**
 * An endpoint a flow's owner (or a deployment var) configured — a model's base URL, a credential's
 * basePath, a vector store's host — checked under the endpoint rule: the request rule, except that
 * a local environment may reach loopback. Answers the parsed URL; throws OutboundRefused (400).
 */
export function assertEndpointAllowed(input: string | URL, policy: EndpointPolicy): URL {
  const url = parseHttpUrl(input, `${policy.field} refused by the outbound policy`);
  const refused = endpointRefusal(url, policy);
  if (refused) throw refused;
  return url;
}

/** Checks a configured endpoint now (so a refusal is a 400 before anything runs); answers its policy for the calls. */
export function checkEndpoint(url: string, field: string, env: EndpointEnv): EndpointPolicy {
  const policy = { field, env };
  assertEndpointAllowed(url, policy);
  return policy;
}

/** A host and port read as fetch would read them (every IPv4 notation normalised). */
function hostUrl(host: string, port: string | number, what: string): URL {
  const bare = host.replace(/^\[|\]$/g, "");
  try {
    return new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}${port ? `:${port}` : ""}/`);
  } catch {
    throw new OutboundRefused(`${what}: ${host.slice(0, 200)} is not a valid host`);
  }
}

/**
 * The endpoint rule for a TCP connection (a database or Redis address): its host and port, whatever
 * the scheme. Throws OutboundRefused (400) naming the field and saying why not.
 */
export function assertEndpointHostAllowed(host: string, port: string | number, policy: EndpointPolicy): void {
  const refused = endpointRefusal(hostUrl(host, port, `${policy.field} refused by the outbound policy`), policy);
  if (refused) throw refused;
}
