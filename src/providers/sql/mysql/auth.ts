// MySQL's two common authentication plugins, over WebCrypto:
// - mysql_native_password: SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password))).
// - caching_sha2_password: SHA256(password) XOR SHA256(SHA256(SHA256(password)) + scramble) (the fast
//   path); when the server asks for full authentication, the password itself goes over TLS, or, on a
//   plain connection, encrypted with the server's RSA public key (RSA-OAEP, SHA-1) after being XORed
//   with the scramble.
import { concat, utf8 } from "./packets";

export const NATIVE = "mysql_native_password";
export const CACHING_SHA2 = "caching_sha2_password";
export const PLUGINS = new Set([NATIVE, CACHING_SHA2]);

const digest = async (algorithm: string, ...parts: Uint8Array[]) => new Uint8Array(await crypto.subtle.digest(algorithm, concat(parts)));

const xor = (a: Uint8Array, b: Uint8Array) => a.map((v, i) => v ^ b[i % b.length]);

/** The 20 bytes of scramble a server sends (a trailing NUL dropped). */
export const scrambleOf = (data: Uint8Array): Uint8Array => (data.length > 20 && data[data.length - 1] === 0 ? data.subarray(0, -1) : data);

/** The plugin's first answer to the scramble; empty for an empty password. */
export async function scramblePassword(plugin: string, password: string, scramble: Uint8Array): Promise<Uint8Array> {
  if (!password) return new Uint8Array();
  const pw = utf8(password);
  if (plugin === NATIVE) {
    const stage1 = await digest("SHA-1", pw);
    const stage2 = await digest("SHA-1", stage1);
    return xor(stage1, await digest("SHA-1", scramble, stage2));
  }
  const stage1 = await digest("SHA-256", pw);
  const stage2 = await digest("SHA-256", stage1);
  return xor(stage1, await digest("SHA-256", stage2, scramble));
}

/** The password as caching_sha2_password's full authentication sends it over TLS: NUL-ended. */
export const clearPassword = (password: string): Uint8Array => concat([utf8(password), new Uint8Array([0])]);

/** The password (NUL-ended, XORed with the scramble) encrypted with the server's PEM public key. */
export async function rsaPassword(password: string, scramble: Uint8Array, pem: string): Promise<Uint8Array> {
  const body = /-----BEGIN PUBLIC KEY-----([\s\S]+?)-----END PUBLIC KEY-----/.exec(pem)?.[1];
  if (!body) throw new Error("the server sent no usable RSA public key for caching_sha2_password");
  const der = Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("spki", der, { name: "RSA-OAEP", hash: "SHA-1" }, false, ["encrypt"]);
  return new Uint8Array(await crypto.subtle.encrypt({ name: "RSA-OAEP" }, key, xor(clearPassword(password), scramble)));
}
