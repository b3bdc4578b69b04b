const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

// Uint8Array.fromBase64 / toBase64 (TC39 base64, in workerd's V8) are native: ~30x faster than a
// string built byte by byte, which matters where every embedding vector passes through here.
// The loops remain for runtimes without them.
const native = Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array };
const nativeTo = (Uint8Array.prototype as unknown as { toBase64?: unknown }).toBase64 !== undefined;

function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function toBase64(bytes: Uint8Array): string {
  if (nativeTo) return (bytes as unknown as { toBase64(): string }).toBase64();
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Throws on text that is not base64 (as atob does). */
export function fromBase64(text: string): Uint8Array {
  if (native.fromBase64) return native.fromBase64(text);
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** Compares two strings without an early exit, so timing does not reveal a shared prefix. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  // Compare against itself when lengths differ so the work done does not depend on b.
  const other = ab.length === bb.length ? bb : ab;
  let diff = ab.length ^ bb.length;
  for (let i = 0; i < ab.length; i++) diff |= ab[i] ^ other[i];
  return diff === 0;
}

export function randomToken(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** cyrb53: a fast, synchronous 53-bit hash of a string (an integer below 2^53), never for security. */
export function cyrb53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** cyrb53 in base 36: a key for deduplicating text (a detached run's frames). */
export const quickHash = (text: string): string => cyrb53(text).toString(36);
