// OAuth2 credentials (Flowise's /oauth2-credential endpoints and the tokens its Gmail, Google and
// Microsoft tools use): the authorization URL for a stored credential, the callback that trades the
// code for tokens and stores them, a refresh on request, and fresh tokens for a run (refreshed when
// they expire within 5 minutes, as Flowise's tools do). The credential's own fields drive it:
// clientId, clientSecret, authorizationUrl, accessTokenUrl, scope, additionalParameters, redirect_uri.
import { eq } from "drizzle-orm";
import { credential } from "../../db/schema";
import { ApiError, badRequest, fail, notFound } from "../../errors";
import { decryptText } from "../../lib/encryption";
import { fetchAsset } from "../../lib/assets";
import type { CredentialReadOptions } from "../../engine";
import type { Deps } from "../deps";
import type { OAuth2Outcome } from "./page";
import { signState, verifyState } from "./state";
import { type CredentialData, requestTokens, storeIfUnchanged, withTokens } from "./tokens";

export { outcomePage } from "./page";
export type { OAuth2Outcome } from "./page";

export const CALLBACK_PATH = "/api/v1/oauth2-credential/callback";
/** Flowise's margin: a token expiring within it is refreshed before use. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() ? value.trim() : undefined);

function secretOf(deps: Deps<"env">): string {
  const secret = deps.env.CREDENTIAL_ENCRYPTION_KEY;
  if (!secret) throw new ApiError(500, "Credential storage is not configured: set the CREDENTIAL_ENCRYPTION_KEY secret");
  return secret;
}

/** Defaults of the credential type's fields (Google's and Microsoft's URLs and scopes), for fields left empty. */
async function typeDefaults(credentialName: string): Promise<CredentialData> {
  // The credential type's file in the catalogue assets (services/catalogue serves the same files).
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(credentialName)) return {};
  try {
    const res = await fetchAsset(`catalogue/credential/${credentialName}.json`);
    if (!res.ok) return {};
    const type = (await res.json()) as { inputs?: { name: string; default?: unknown }[] };
    return Object.fromEntries((type.inputs ?? []).filter((i) => i.default !== undefined).map((i) => [i.name, i.default]));
  } catch {
    return {};
  }
}

interface Read {
  sealed: string;
  /** As stored: what a write builds on. */
  stored: CredentialData;
  /** With the type's defaults for empty fields: what the flow uses. */
  effective: CredentialData;
}

async function readCredential(deps: Deps<"db" | "env">, id: string): Promise<Read> {
  const row = await deps.db
    .select({ name: credential.credentialName, sealed: credential.encryptedData })
    .from(credential)
    .where(eq(credential.id, id))
    .get();
  if (!row) throw notFound(`Credential ${id} not found`);
  let stored: CredentialData;
  try {
    stored = JSON.parse(await decryptText(secretOf(deps), row.sealed)) as CredentialData;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(500, `Credential ${id} cannot be decrypted: was CREDENTIAL_ENCRYPTION_KEY changed?`);
  }
  const defaults = await typeDefaults(row.name);
  const effective = { ...stored };
  for (const [field, value] of Object.entries(defaults)) if (text(effective[field]) === undefined) effective[field] = value;
  return { sealed: row.sealed, stored, effective };
}

const redirectUriOf = (data: CredentialData, origin: string) => text(data.redirect_uri) ?? `${origin}${CALLBACK_PATH}`;

/** POST /oauth2-credential/authorize/{id}: the provider's authorization URL for the studio to open. */
export async function authorize(deps: Deps<"db" | "env">, id: string, origin: string) {
  const { effective: data } = await readCredential(deps, id);
  const clientId = text(data.clientId);
  if (!clientId) throw badRequest("Missing clientId in credential data");
  const authorizationUrl = text(data.authorizationUrl);
  if (!authorizationUrl) throw badRequest("No authorizationUrl specified in credential data");
  let url: URL;
  try {
    url = new URL(authorizationUrl);
  } catch {
    throw badRequest("authorizationUrl is not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw badRequest("authorizationUrl must be an http(s) URL");
  // Microsoft's defaults carry a placeholder the user must replace with their Azure tenant's id.
  for (const field of ["authorizationUrl", "accessTokenUrl"])
    if (/<[A-Za-z]+>|%3C[A-Za-z]+%3E/.test(String(data[field] ?? "")))
      throw badRequest(`${field} still holds a placeholder such as <tenantId>: replace it with your own value (e.g. your Azure tenant id)`);
  const redirectUri = redirectUriOf(data, origin);
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: text(data.response_type) ?? "code",
    response_mode: text(data.response_mode) ?? "query",
    state: await signState(secretOf(deps), id),
    redirect_uri: redirectUri,
  });
  const scope = text(data.scope);
  if (scope) params.set("scope", scope);
  // Extra parameters the type asks for (Google's access_type=offline&prompt=consent), never ours overridden.
  for (const [key, value] of new URLSearchParams(text(data.additionalParameters) ?? "")) if (!params.has(key)) params.set(key, value);
  for (const [key, value] of params) url.searchParams.set(key, value);
  return {
    success: true as const,
    message: "Authorization URL generated successfully",
    credentialId: id,
    authorizationUrl: url.toString(),
    redirectUri,
  };
}

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

/** GET /oauth2-credential/callback: the code traded for tokens, stored; answers the status and what the page says. */
export async function completeAuthorization(
  deps: Deps<"db" | "env">,
  query: CallbackQuery,
  origin: string,
): Promise<{ status: number; outcome: OAuth2Outcome }> {
  const refused = (status: number, title: string, message: string, credentialId?: string) => ({
    status,
    outcome: { ok: false, title, message, credentialId },
  });
  if (query.error)
    return refused(400, `Authorization failed: ${query.error.slice(0, 100)}`, (query.error_description ?? query.error).slice(0, 500));
  if (!query.code || !query.state) return refused(400, "Missing required parameters", "The callback needs both code and state");
  const verified = await verifyState(secretOf(deps), query.state);
  if ("refused" in verified) return refused(400, "Invalid state", verified.refused);
  const id = verified.credentialId;
  try {
    const read = await readCredential(deps, id);
    const data = read.effective;
    const clientId = text(data.clientId);
    const clientSecret = text(data.clientSecret);
    if (!clientId || !clientSecret)
      return refused(400, "Missing OAuth configuration", "The credential needs its clientId and clientSecret", id);
    const form: Record<string, string> = {
      client_id: clientId,
      client_secret: clientSecret,
      code: query.code,
      grant_type: "authorization_code",
      redirect_uri: redirectUriOf(data, origin),
    };
    const scope = text(data.scope);
    if (scope) form.scope = scope;
    const tokens = await requestTokens(deps, data, form);
    // The code was asked for by this credential's owner: its tokens win over an edit made meanwhile
    // only if that edit left the row as read; else they go on top of the edited row.
    if (!(await storeIfUnchanged(deps, id, read.sealed, withTokens(read.stored, tokens)))) {
      const again = await readCredential(deps, id);
      if (!(await storeIfUnchanged(deps, id, again.sealed, withTokens(again.stored, tokens))))
        throw fail("CONFLICT", "The credential changed while its tokens were stored: authorize again");
    }
    return {
      status: 200,
      outcome: { ok: true, title: "Authorization successful", message: "The credential is connected.", credentialId: id },
    };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return refused(err.status, "Authorization failed", err.message, id);
  }
}

const expiresSoon = (data: CredentialData, now: number) => {
  const at = Date.parse(String(data.expires_at ?? ""));
  return Number.isFinite(at) && now > at - REFRESH_MARGIN_MS;
};

/** The refresh itself: new tokens stored, or the tokens another writer stored meanwhile. */
async function refreshed(deps: Deps<"db" | "env">, id: string, read: Read): Promise<{ data: CredentialData; tokens: CredentialData }> {
  const data = read.effective;
  const clientId = text(data.clientId);
  const clientSecret = text(data.clientSecret);
  const refreshToken = text(data.refresh_token);
  if (!clientId || !clientSecret || !refreshToken)
    throw fail(
      "MISSING_CREDENTIAL",
      "Missing required OAuth configuration: clientId, clientSecret, or refresh_token (authorize the credential again)",
    );
  const form: Record<string, string> = {
    client_id: clientId,
    client_secret: clientSecret,
    grant_type: "refresh_token",
    refresh_token: refreshToken,
  };
  const scope = text(data.scope);
  if (scope) form.scope = scope;
  const tokens = await requestTokens(deps, data, form);
  const next = withTokens(read.stored, tokens);
  if (await storeIfUnchanged(deps, id, read.sealed, next)) return { data: { ...data, ...next }, tokens };
  // Someone wrote first. Another refresh: its tokens stand and serve. An edit: ours go on top of it.
  const again = await readCredential(deps, id);
  if (text(again.effective.access_token) !== text(data.access_token) && !expiresSoon(again.effective, Date.now()))
    return { data: again.effective, tokens };
  const onTop = withTokens(again.stored, tokens);
  await storeIfUnchanged(deps, id, again.sealed, onTop);
  return { data: { ...again.effective, ...onTop }, tokens };
}

/** POST /oauth2-credential/refresh/{id}. */
export async function refreshCredential(deps: Deps<"db" | "env">, id: string) {
  const { data, tokens } = await refreshed(deps, id, await readCredential(deps, id));
  return {
    success: true as const,
    message: "OAuth2 token refreshed successfully",
    credentialId: id,
    tokenInfo: {
      token_type: text(data.token_type),
      has_new_refresh_token: tokens.refresh_token !== undefined,
      expires_at: text(data.expires_at),
    },
  };
}

/** A run's view of an OAuth2 credential: its data with an access token good for 5 more minutes. */
export async function freshCredentialData(deps: Deps<"db" | "env">, id: string, data: CredentialData): Promise<CredentialData> {
  if (!text(data.access_token))
    throw fail("MISSING_CREDENTIAL", `Credential ${id} is not authorized yet: open it in the studio and press Authenticate`);
  if (!expiresSoon(data, Date.now())) return data;
  const read = await readCredential(deps, id);
  // Another run may have refreshed it since this run read it.
  if (text(read.effective.access_token) && !expiresSoon(read.effective, Date.now())) return read.effective;
  if (!text(read.effective.refresh_token))
    throw fail("MISSING_CREDENTIAL", `Credential ${id}'s access token has expired and it has no refresh token: authorize it again`);
  return (await refreshed(deps, id, read)).data;
}

/** A credential reader's answer, made fresh when the reader is asked for OAuth2 tokens. */
export async function withFreshTokens(
  deps: Deps<"db" | "env">,
  id: string,
  read: Promise<CredentialData>,
  options?: CredentialReadOptions,
): Promise<CredentialData> {
  const data = await read;
  return options?.oauth2 ? freshCredentialData(deps, id, data) : data;
}
