// AWS Signature Version 4 over WebCrypto (no AWS SDK: too big for the Workers bundle). Signs a
// request's method, path, query, headers and body hash with a key derived from the secret, the
// day, the region and the service; adds x-amz-date (and x-amz-security-token for a session) and
// the Authorization header. Paths are encoded twice, as every AWS service but S3 expects.
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignInput {
  method: string;
  url: string;
  /** Headers sent (all of them are signed); `host` comes from the URL. */
  headers: Record<string, string>;
  body?: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  /** Signing time (tests); default now. */
  date?: Date;
  /** S3's rules: the path signed as sent (encoded once), the payload's hash sent as x-amz-content-sha256. */
  s3?: boolean;
}

const encoder = new TextEncoder();
const hex = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

export const sha256Hex = async (data: string): Promise<string> => hex(await crypto.subtle.digest("SHA-256", encoder.encode(data)));

async function hmac(key: ArrayBuffer | Uint8Array, data: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, encoder.encode(data));
}

/** RFC 3986 encoding: everything but unreserved characters. */
export const uriEncode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The URL's path as sent (already encoded), encoded once more segment by segment. */
const canonicalPath = (pathname: string): string => pathname.split("/").map(uriEncode).join("/") || "/";

function canonicalQuery(params: URLSearchParams): string {
  return [...params.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

/** `20150830T123600Z` */
export const amzDate = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** The headers to add to the request: x-amz-date, x-amz-security-token (a session), authorization. */
export async function signRequest(input: SignInput): Promise<Record<string, string>> {
  const url = new URL(input.url);
  const stamp = amzDate(input.date ?? new Date());
  const day = stamp.slice(0, 8);
  const added: Record<string, string> = { "x-amz-date": stamp };
  const payloadHash = await sha256Hex(input.body ?? "");
  if (input.s3) added["x-amz-content-sha256"] = payloadHash;
  if (input.credentials.sessionToken) added["x-amz-security-token"] = input.credentials.sessionToken;
  const all: Record<string, string> = { host: url.host };
  for (const [k, v] of Object.entries({ ...input.headers, ...added })) all[k.toLowerCase()] = String(v).trim().replace(/\s+/g, " ");
  const names = Object.keys(all).sort();
  const signedHeaders = names.join(";");
  const canonical = [
    input.method.toUpperCase(),
    input.s3 ? url.pathname || "/" : canonicalPath(url.pathname),
    canonicalQuery(url.searchParams),
    names.map((n) => `${n}:${all[n]}\n`).join(""),
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", stamp, scope, await sha256Hex(canonical)].join("\n");
  let key = await hmac(encoder.encode(`AWS4${input.credentials.secretAccessKey}`), day);
  for (const part of [input.region, input.service, "aws4_request"]) key = await hmac(key, part);
  const signature = hex(await hmac(key, toSign));
  const credential = `${input.credentials.accessKeyId}/${scope}`;
  added.authorization = `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return added;
}
