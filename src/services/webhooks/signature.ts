// A webhook's proof that its sender holds the flow's secret (Flowise's signatureVerification): an
// HMAC of the raw body — `sha256=<hex>` (GitHub X-Hub-Signature-256, Slack), `sha1=<hex>` (GitHub's
// legacy header) or bare hex (SHA-256) — or the secret itself (GitLab's X-Gitlab-Token). WebCrypto's
// verify compares the HMAC in constant time; a digest of the wrong length or not hex never matches.
import { constantTimeEqual } from "../../lib/crypto";

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Whether `provided` is the HMAC of `body` under `secret`, its algorithm named by a `sha1=` / `sha256=` prefix. */
export async function hmacMatches(secret: string, body: Uint8Array, provided: string): Promise<boolean> {
  let hash = "SHA-256";
  let hex = provided.trim();
  const eq = hex.indexOf("=");
  if (eq !== -1) {
    if (hex.slice(0, eq).toLowerCase() === "sha1") hash = "SHA-1";
    hex = hex.slice(eq + 1);
  }
  const bytes = hash === "SHA-1" ? 20 : 32;
  if (hex.length !== 2 * bytes || !/^[0-9a-fA-F]+$/.test(hex)) return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", key, hexBytes(hex), body);
}

export const tokenMatches = (secret: string, provided: string): boolean => constantTimeEqual(secret, provided);
