// The OAuth2 `state` parameter: the credential id, an expiry and a nonce, signed (HMAC-SHA256 with a
// key derived from CREDENTIAL_ENCRYPTION_KEY). Flowise sends the bare credential id, so anyone who
// learns an id can complete a flow into it; here only a state the authorize endpoint made, for a
// caller allowed to edit that credential, within its lifetime, is accepted by the callback.
import { fromBase64, toBase64 } from "../../lib/crypto";

const LIFETIME_MS = 15 * 60 * 1000;
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", encoder.encode(`edgeflow oauth2 state\0${secret}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    keys.set(secret, key);
  }
  return key;
}

const base64url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64url = (text: string) => fromBase64(text.replace(/-/g, "+").replace(/_/g, "/"));

/** A state for this credential, valid for 15 minutes. */
export async function signState(secret: string, credentialId: string, now = Date.now()): Promise<string> {
  const nonce = base64url(crypto.getRandomValues(new Uint8Array(12)));
  const payload = base64url(encoder.encode(JSON.stringify({ c: credentialId, e: now + LIFETIME_MS, n: nonce })));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyFor(secret), encoder.encode(payload)));
  return `${payload}.${base64url(mac)}`;
}

/** The credential id a state names, or why it is not accepted. */
export async function verifyState(
  secret: string,
  state: string,
  now = Date.now(),
): Promise<{ credentialId: string } | { refused: string }> {
  const [payload, mac, extra] = state.split(".");
  if (!payload || !mac || extra !== undefined || state.length > 1000)
    return { refused: "The state parameter is not one this server issued" };
  let valid = false;
  try {
    valid = await crypto.subtle.verify("HMAC", await keyFor(secret), fromBase64url(mac), encoder.encode(payload));
  } catch {
    valid = false;
  }
  if (!valid) return { refused: "The state parameter is not one this server issued" };
  const claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as { c?: unknown; e?: unknown };
  if (typeof claims.c !== "string" || typeof claims.e !== "number") return { refused: "The state parameter is malformed" };
  if (claims.e < now) return { refused: "The authorization took too long (over 15 minutes): start it again" };
  return { credentialId: claims.c };
}
