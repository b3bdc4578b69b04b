// Passwords of studio accounts: PBKDF2-SHA256 through WebCrypto (native in workerd) with a random
// 16-byte salt per password, stored as "pbkdf2-sha256$<iterations>$<salt>$<hash>" (base64), so the
// iteration count can rise later without invalidating stored hashes. 100,000 iterations is the most
// Cloudflare's WebCrypto accepts for PBKDF2 (deployed Workers refuse more), and the floor the
// contract sets.
import { fromBase64, toBase64 } from "./crypto";

export const PASSWORD_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const PREFIX = "pbkdf2-sha256";
const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PASSWORD_ITERATIONS);
  return `${PREFIX}$${PASSWORD_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** Equal length and every byte compared, with no early exit: timing does not reveal a matching prefix. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ (b[i] ?? 0);
  return diff === 0;
}

// Checked in place of a missing account's hash, so that an unknown email costs the same time as a
// wrong password (no way to tell which emails have accounts). Its password is unknowable: random.
const DECOY = `${PREFIX}$${PASSWORD_ITERATIONS}$${toBase64(new Uint8Array(SALT_BYTES))}$${toBase64(new Uint8Array(HASH_BITS / 8))}`;

/** Whether `password` matches `stored` (undefined: no such account, checked against a decoy for equal timing). */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [prefix, rounds, salt, hash] = (stored ?? DECOY).split("$");
  const iterations = Number(rounds);
  if (prefix !== PREFIX || !Number.isInteger(iterations) || iterations < 1 || !salt || !hash) return false;
  const derived = await derive(password, fromBase64(salt), iterations);
  return sameBytes(derived, fromBase64(hash)) && stored !== undefined;
}
