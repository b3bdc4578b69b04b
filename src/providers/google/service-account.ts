// Google Cloud sign-in for Flowise's googleVertexAuth credential: the service account's JSON key
// (googleApplicationCredential) → a JWT signed RS256 with WebCrypto → an OAuth access token from the
// account's token_uri (grant type jwt-bearer), cached per isolate until shortly before it expires
// (token-cache.ts). The private key is imported only when a token has to be issued; it never leaves
// in a log line or error. A key file path (googleApplicationCredentialFilePath) and Application
// Default Credentials need a file system or a metadata server a Worker does not have: a 400 says so.
import { fail } from "../../errors";
import { isObject, str } from "../../lib/inputs";
import { type EndpointEnv, type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import type { Deadline } from "../../lib/run-control";
import { cachedToken, tokenKey, tokenRequest } from "../token-cache";

export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  keyId?: string;
  tokenUri: string;
  /** The token endpoint under the outbound policy (checked when the credential is read). */
  tokenPolicy: EndpointPolicy;
}

/** The service account and project a googleVertexAuth credential names; 400 saying what is missing. */
export function vertexAuthOf(
  credential: Record<string, unknown>,
  node: string,
  env: EndpointEnv,
): { account: ServiceAccount; projectId: string } {
  const json = str(credential.googleApplicationCredential);
  if (!json) {
    if (str(credential.googleApplicationCredentialFilePath))
      throw fail(
        "INVALID_FLOW",
        `${node}: googleVertexAuth's Google Application Credential File Path cannot be read here (a Worker has no file system): ` +
          "paste the service account's JSON key into Google Credential JSON Object instead",
      );
    throw fail(
      "INVALID_FLOW",
      `${node} needs a googleVertexAuth credential with the service account's JSON key (Google Credential JSON Object): ` +
        "Application Default Credentials do not exist in a Worker",
    );
  }
  let key: unknown;
  try {
    key = JSON.parse(json);
  } catch {
    throw fail("INVALID_FLOW", `${node}: googleVertexAuth's Google Credential JSON Object is not valid JSON`);
  }
  if (!isObject(key)) throw fail("INVALID_FLOW", `${node}: googleVertexAuth's Google Credential JSON Object must be a JSON object`);
  if (key.type !== undefined && key.type !== "service_account")
    throw fail(
      "INVALID_FLOW",
      `${node}: googleVertexAuth's JSON key is of type ${String(key.type)}; only service_account keys are supported`,
    );
  const clientEmail = str(key.client_email);
  const privateKey = str(key.private_key);
  if (!clientEmail || !privateKey)
    throw fail("INVALID_FLOW", `${node}: googleVertexAuth's JSON key lacks client_email or private_key (download a service account key)`);
  const projectId = str(credential.projectID) ?? str(key.project_id);
  if (!projectId) throw fail("INVALID_FLOW", `${node}: googleVertexAuth has no Project ID and its JSON key no project_id`);
  const tokenUri = str(key.token_uri) ?? GOOGLE_TOKEN_URL;
  const tokenPolicy = checkEndpoint(tokenUri, "googleVertexAuth token_uri", env);
  return { account: { clientEmail, privateKey, keyId: str(key.private_key_id), tokenUri, tokenPolicy }, projectId };
}

const b64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const b64urlJson = (value: unknown): string => b64url(new TextEncoder().encode(JSON.stringify(value)));

async function importKey(pem: string): Promise<CryptoKey> {
  const body = pem
    .replace(/\\n/g, "\n")
    .replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "")
    .replace(/\s+/g, "");
  try {
    const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
    return await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw fail("INVALID_FLOW", "googleVertexAuth's private_key is not a PKCS#8 RSA private key (-----BEGIN PRIVATE KEY-----)");
  }
}

/** The signed assertion Google's token endpoint exchanges: iss = the account, aud = its token_uri, one hour. */
export async function signedAssertion(account: ServiceAccount, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(account.keyId ? { kid: account.keyId } : {}) };
  const claims = { iss: account.clientEmail, scope: SCOPE, aud: account.tokenUri, iat, exp: iat + 3600 };
  const input = `${b64urlJson(header)}.${b64urlJson(claims)}`;
  const key = await importKey(account.privateKey);
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(input));
  return `${input}.${b64url(new Uint8Array(signature))}`;
}

/** An access token for the account (cached per isolate), issued under `deadline`. */
export async function googleAccessToken(account: ServiceAccount, deadline: Deadline): Promise<string> {
  const key = await tokenKey("google", account.clientEmail, account.keyId ?? "", account.tokenUri, account.privateKey);
  return cachedToken(key, async () => {
    const assertion = await signedAssertion(account);
    const answer = await tokenRequest(
      account.tokenUri,
      { grant_type: JWT_BEARER, assertion },
      { provider: "Google OAuth", policy: account.tokenPolicy, secrets: [assertion, account.privateKey] },
      deadline,
    );
    const token = str(answer.access_token);
    if (!token) throw fail("MODEL_FAILED", "Google OAuth answered without an access_token");
    return { token, expiresInSeconds: typeof answer.expires_in === "number" ? answer.expires_in : 3600 };
  });
}
