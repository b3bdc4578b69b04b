import { fromBase64, toBase64 } from "./crypto";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const keyCache = new Map<string, Promise<CryptoKey>>();

/** AES-256-GCM key derived (SHA-256) from the worker secret; derived once per isolate. */
function keyFor(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", encoder.encode(secret))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keyCache.set(secret, key);
  }
  return key;
}

/** base64(iv ‖ ciphertext+tag), a fresh 96-bit IV per message. */
export async function encryptText(secret: string, plain: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await keyFor(secret), encoder.encode(plain)));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64(out);
}

// Recently opened texts, keyed by secret and sealed text: a prediction opens its credentials on
// every request, and a sealed text never changes meaning (a new value is sealed with a new IV).
// Only what this isolate already decrypted is kept, for as long as it is in use.
const OPENED_MAX = 256;
const opened = new Map<string, Promise<string>>();

export function decryptText(secret: string, sealed: string): Promise<string> {
  const key = `${secret.length}:${secret}${sealed}`;
  const hit = opened.get(key);
  if (hit) {
    opened.delete(key); // most recently used last
    opened.set(key, hit);
    return hit;
  }
  const plain = openSealed(secret, sealed);
  opened.set(key, plain);
  plain.catch(() => opened.delete(key)); // a failure is not remembered
  if (opened.size > OPENED_MAX) opened.delete(opened.keys().next().value as string);
  return plain;
}

async function openSealed(secret: string, sealed: string): Promise<string> {
  const bytes = fromBase64(sealed);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, await keyFor(secret), bytes.slice(12));
  return decoder.decode(plain);
}
