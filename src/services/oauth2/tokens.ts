// A credential's OAuth2 tokens: asked of its token endpoint (the authorization code's exchange, a
// refresh) and stored back into the credential. Only the token fields are kept from the answer (a
// token endpoint cannot write other credential fields); the write is conditional on the row's sealed
// text being the one read (each write seals with a fresh IV), so of two runs refreshing at once, or a
// refresh racing an edit, one write lands and the other reads it instead of overwriting it.
import { and, eq } from "drizzle-orm";
import { credential } from "../../db/schema";
import { ApiError, fail } from "../../errors";
import { encryptText } from "../../lib/encryption";
import { checkEndpoint, endpointFetch } from "../../lib/outbound";
import { nowIso } from "../../lib/time";
import type { Deps } from "../deps";

/** What a token endpoint may set (as Flowise keeps): everything else in its answer is dropped. */
const TOKEN_FIELDS = ["access_token", "refresh_token", "token_type", "expires_in", "scope", "id_token", "granted_scope"];
const TOKEN_TIMEOUT_MS = 15_000;

export type CredentialData = Record<string, unknown>;
const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/** POSTs a form to the credential's accessTokenUrl; answers the token fields, or throws a 400/502/504 saying why. */
export async function requestTokens(deps: Deps<"env">, data: CredentialData, form: Record<string, string>): Promise<CredentialData> {
  const tokenUrl = text(data.accessTokenUrl);
  if (!tokenUrl) throw fail("BAD_REQUEST", "The credential has no Access Token URL (accessTokenUrl)");
  const policy = checkEndpoint(tokenUrl, "accessTokenUrl", deps.env);
  let res: Response;
  try {
    res = await endpointFetch(
      tokenUrl,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams(form).toString(),
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      },
      policy,
    );
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof Error && err.name === "TimeoutError") throw fail("TIMEOUT", "The token endpoint did not answer within 15 s");
    throw fail("UPSTREAM_FAILED", `The token endpoint could not be reached: ${err instanceof Error ? err.message : String(err)}`);
  }
  const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!res.ok || !body || typeof body !== "object" || Array.isArray(body)) {
    const why = text(body?.error_description) ?? text(body?.error) ?? `status ${res.status}`;
    throw fail(
      res.status >= 400 && res.status < 500 ? "BAD_REQUEST" : "UPSTREAM_FAILED",
      `The token endpoint refused: ${why.slice(0, 300)}`,
    );
  }
  if (!text(body.access_token)) {
    // Slack refuses a code with 200 and {ok: false, error: "invalid_code"}: still the provider's refusal.
    const why = text(body.error_description) ?? text(body.error);
    if (why) throw fail("BAD_REQUEST", `The token endpoint refused: ${why.slice(0, 300)}`);
    throw fail("UPSTREAM_FAILED", "The token endpoint answered no access_token");
  }
  const tokens: CredentialData = {};
  for (const field of TOKEN_FIELDS) if (body[field] !== undefined) tokens[field] = body[field];
  return tokens;
}

/** The credential's data with new tokens: when they came, and when the access token expires. */
export function withTokens(data: CredentialData, tokens: CredentialData, now = Date.now()): CredentialData {
  const next: CredentialData = { ...data, ...tokens, token_received_at: new Date(now).toISOString() };
  const lifetime = Number(tokens.expires_in);
  if (Number.isFinite(lifetime) && lifetime > 0) next.expires_at = new Date(now + lifetime * 1000).toISOString();
  else delete next.expires_at;
  return next;
}

/** Stores the data if the row still holds the sealed text read; answers whether it did. */
export async function storeIfUnchanged(deps: Deps<"db" | "env">, id: string, sealed: string, data: CredentialData): Promise<boolean> {
  const secret = deps.env.CREDENTIAL_ENCRYPTION_KEY;
  if (!secret) throw new ApiError(500, "Credential storage is not configured: set the CREDENTIAL_ENCRYPTION_KEY secret");
  const encryptedData = await encryptText(secret, JSON.stringify(data));
  const done = await deps.db
    .update(credential)
    .set({ encryptedData, updatedDate: nowIso() })
    .where(and(eq(credential.id, id), eq(credential.encryptedData, sealed)))
    .returning({ id: credential.id });
  return done.length === 1;
}
