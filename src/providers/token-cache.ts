// Access tokens a provider exchanged a long-lived secret for (a Google service account's signed JWT,
// an IBM Cloud API key): cached per isolate, in memory only, until shortly before they expire. The
// cache key is a SHA-256 of what identifies the secret (never the secret itself), so a credential
// naming another's account without its key never gets that account's token.
import { fail } from "../errors";
import { type EndpointPolicy, endpointFetch } from "../lib/outbound";
import { redact } from "../lib/redact";
import { type Deadline, RetryableProviderError } from "../lib/run-control";

const MAX_TOKENS = 64;
const cache = new Map<string, { token: string; until: number }>();

/** A token and how long it lives, as a token endpoint answers it. */
export interface IssuedToken {
  token: string;
  expiresInSeconds: number;
}

/** Hex SHA-256 of the parts (joined by a NUL): a cache key that holds no secret. */
export async function tokenKey(...parts: string[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("\0")));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The cached token for `key`, else a new one from `issue` (kept until 5 minutes, or half its life, before it expires). */
export async function cachedToken(key: string, issue: () => Promise<IssuedToken>): Promise<string> {
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.token;
  const { token, expiresInSeconds } = await issue();
  const lifeMs = Math.max(0, expiresInSeconds) * 1000;
  cache.delete(key);
  if (cache.size >= MAX_TOKENS) cache.delete(cache.keys().next().value as string);
  cache.set(key, { token, until: Date.now() + lifeMs - Math.min(300_000, lifeMs / 2) });
  return token;
}

/** Drops a token the service refused (revoked early): the next call exchanges again. */
export const forgetToken = (key: string): boolean => cache.delete(key);

/**
 * POSTs a form to a token endpoint under `deadline` and the outbound policy: its JSON answer, or a
 * 502 with the endpoint's own error (OAuth's error / error_description) scrubbed of `secrets`.
 */
export async function tokenRequest(
  url: string,
  form: Record<string, string>,
  opts: { provider: string; policy: EndpointPolicy; secrets: string[] },
  deadline: Deadline,
): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await endpointFetch(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams(form).toString(),
        signal: deadline.signal,
      },
      opts.policy,
    );
  } catch (err) {
    throw deadline.failure(err, opts.provider);
  }
  const text = await deadline.race(res.text()).catch(() => "");
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  if (!res.ok) {
    const said = [body.error ?? body.errorCode, body.error_description ?? body.errorMessage]
      .filter((v) => typeof v === "string" && v)
      .join(": ");
    const detail = redact((said || res.statusText || "no details").slice(0, 300), opts.secrets);
    const message = `${opts.provider} answered ${res.status}: ${detail}`;
    throw res.status >= 500 ? new RetryableProviderError(message) : fail("MODEL_FAILED", message);
  }
  return body;
}
