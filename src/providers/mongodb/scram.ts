// SCRAM-SHA-256 (RFC 5802, RFC 7677) as MongoDB runs it over saslStart / saslContinue, with
// WebCrypto: PBKDF2 for the salted password (kept per isolate for a password, salt and iteration
// count, as the drivers cache it), HMAC-SHA-256 for the proof, and the server's signature checked
// before the conversation is trusted. SCRAM-SHA-1 would need MongoDB's MD5 password digest, which
// WebCrypto does not offer: it and the other mechanisms are a 400 saying so.
import { fail } from "../../errors";
import { Binary, type BsonDocument } from "./bson";

export const SCRAM_SHA_256 = "SCRAM-SHA-256";
/** The least iteration count accepted from a server (RFC 7677's minimum). */
const MIN_ITERATIONS = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function hmac(key: Uint8Array, data: string | Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, typeof data === "string" ? encoder.encode(data) : data));
}

const salted = new Map<string, Promise<Uint8Array>>();
const SALTED_CACHE = 64;

/** Hi(password, salt, i) of RFC 5802: PBKDF2-HMAC-SHA-256, 32 bytes. */
async function saltedPassword(password: string, salt: string, iterations: number): Promise<Uint8Array> {
  const key = `${iterations}:${salt}:${password}`;
  let p = salted.get(key);
  if (!p) {
    p = (async () => {
      const base = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
      const params = { name: "PBKDF2", hash: "SHA-256", salt: unb64(salt), iterations };
      return new Uint8Array(await crypto.subtle.deriveBits(params, base, 256));
    })();
    if (salted.size >= SALTED_CACHE) salted.delete(salted.keys().next().value as string);
    salted.set(key, p);
    p.catch(() => salted.delete(key));
  }
  return p;
}

/** A SCRAM username: `=` and `,` escaped (RFC 5802 5.1). */
const saslName = (user: string) => user.replaceAll("=", "=3D").replaceAll(",", "=2C");

/** The attributes of a SCRAM message (`r=…,s=…,i=…`). */
function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

const payloadText = (reply: BsonDocument): string => {
  const p = reply.payload;
  return p instanceof Binary ? decoder.decode(p.bytes) : p instanceof Uint8Array ? decoder.decode(p) : "";
};

/** The mechanism a URL (authMechanism) and the server's saslSupportedMechs leave: SCRAM-SHA-256, else a 400. */
export function chooseMechanism(asked: string | undefined, supported: unknown, label: string): string {
  if (asked && asked !== SCRAM_SHA_256) {
    const why =
      asked === "SCRAM-SHA-1"
        ? "SCRAM-SHA-1 needs an MD5 digest, which a Worker's WebCrypto does not have"
        : `${asked} is not offered here`;
    throw fail("INVALID_FLOW", `${label}: authMechanism ${asked} is not supported (${why}); use SCRAM-SHA-256`);
  }
  if (Array.isArray(supported) && supported.length && !supported.includes(SCRAM_SHA_256))
    throw fail(
      "INVALID_FLOW",
      `${label}: this user can only authenticate with ${supported.join(", ")}; SCRAM-SHA-1 needs an MD5 digest, which a ` +
        "Worker's WebCrypto does not have: give the user SCRAM-SHA-256 credentials (MongoDB 4.0+ does by default)",
    );
  return SCRAM_SHA_256;
}

/** Runs a command on the connection being authenticated (its reply; a command error throws). */
export type Run = (cmd: BsonDocument) => Promise<BsonDocument>;

/** Authenticates `user` against `db` (the authSource). A forged or missing server signature fails. */
export async function scramSha256(run: Run, db: string, user: string, password: string, label: string): Promise<void> {
  const nonce = b64(crypto.getRandomValues(new Uint8Array(24)));
  const firstBare = `n=${saslName(user)},r=${nonce}`;
  const start = await run({
    saslStart: 1,
    mechanism: SCRAM_SHA_256,
    payload: new Binary(encoder.encode(`n,,${firstBare}`)),
    autoAuthorize: 1,
    options: { skipEmptyExchange: true },
    $db: db,
  });
  const serverFirst = payloadText(start);
  const a = attributes(serverFirst);
  const serverNonce = a.get("r") ?? "";
  const salt = a.get("s") ?? "";
  const iterations = Number(a.get("i"));
  const broken = (why: string) => fail("UPSTREAM_FAILED", `${label} authentication failed: ${why}`);
  if (!serverNonce.startsWith(nonce) || serverNonce.length <= nonce.length) throw broken("the server's nonce does not extend ours");
  if (!salt || !Number.isInteger(iterations) || iterations < MIN_ITERATIONS)
    throw broken("the server's salt or iteration count is unusable");

  const key = await saltedPassword(password.normalize("NFKC"), salt, iterations);
  const clientKey = await hmac(key, "Client Key");
  const storedKey = new Uint8Array(await crypto.subtle.digest("SHA-256", clientKey));
  const finalBare = `c=biws,r=${serverNonce}`;
  const authMessage = `${firstBare},${serverFirst},${finalBare}`;
  const signature = await hmac(storedKey, authMessage);
  const proof = clientKey.map((b, i) => b ^ signature[i]);
  const serverSignature = b64(await hmac(await hmac(key, "Server Key"), authMessage));

  let reply = await run({
    saslContinue: 1,
    conversationId: start.conversationId,
    payload: new Binary(encoder.encode(`${finalBare},p=${b64(proof)}`)),
    $db: db,
  });
  const final = attributes(payloadText(reply));
  if (final.has("e")) throw broken(final.get("e") ?? "refused");
  if (final.get("v") !== serverSignature) throw broken("the server's signature does not match (not the server the password belongs to)");
  // Servers before 4.4 (no skipEmptyExchange) want one more, empty, round.
  for (let round = 0; reply.done !== true; round++) {
    if (round >= 2) throw broken("the conversation did not end");
    reply = await run({ saslContinue: 1, conversationId: reply.conversationId, payload: new Binary(new Uint8Array(0)), $db: db });
  }
}
