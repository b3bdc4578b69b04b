// Momento Cache's HTTP API (momentoCache), strict to Momento's "HTTP API reference for Momento Cache"
// (docs/cache/develop/api-reference/http-api.md) and its "service quotas" page (docs/cache/manage/limits.mdx):
//   the token as `Authorization: momento-token` or `?token=` (both documented); else 401 (the SDK's text)
//   GET /cache/<cache>?key=<key> | key_base64=<b64url>  200 the stored value (octet-stream); a miss: 404 "Key Not Found"
//   PUT /cache/<cache>?key=…&ttl_seconds=<n>  the body stored → 204; ttl_seconds is required, an integer
//     0…86,400 (the 24-hour TTL hard limit of on-demand caches) → else 400; key + value over 5 MB (the item size
//     hard limit, "includes both cache key and cache value") → 429, Momento's limit-exceeded status
//   a cache named "missing-…" does not exist: 404 "Cache not found" to both — told apart from a miss by its body.
// The 400/429 bodies are ours (the docs only say "see the body"). Requests are recorded with their path
// (the cache name in it; GET /requests, base.mjs).
import { serveStandin } from "./base.mjs";

const TOKEN = "momento-token";
const MAX_TTL_SECONDS = 24 * 60 * 60;
/** "5 MB": read as MiB (the docs do not say which). */
const MAX_ITEM_BYTES = 5 * 1024 * 1024;

/** The key of `key` (a string) or `key_base64` (base64url bytes), as bytes; undefined when neither is given. */
function keyOf(params) {
  const key = params.get("key");
  if (key) return Buffer.from(key);
  const b64 = params.get("key_base64");
  return b64 ? Buffer.from(b64, "base64url") : undefined;
}

/** ttl_seconds: required, an integer within the TTL hard limit; the refusal's text, or undefined. */
function validateTtl(raw) {
  if (raw === null) return "ttl_seconds is required";
  if (!/^\d+$/.test(raw)) return `ttl_seconds must be a non-negative integer, got ${raw}`;
  if (Number(raw) > MAX_TTL_SECONDS) return `ttl_seconds ${raw} exceeds the maximum TTL of ${MAX_TTL_SECONDS} seconds`;
  return undefined;
}

export function startMomentoStandin() {
  const items = new Map();
  return serveStandin(async ({ req, res, url, raw, bytes }) => {
    const text = (status, body) => {
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(body);
    };
    const m = /^\/cache\/([^/]+)$/.exec(url.pathname);
    if (!m) return text(404, `no route ${req.method} ${url.pathname}`);
    const token = req.headers.authorization ?? url.searchParams.get("token");
    if (token !== TOKEN) return text(401, "Invalid authentication credentials to connect to cache service");
    const cache = decodeURIComponent(m[1]);
    const key = keyOf(url.searchParams);
    if (!key?.length) return text(400, "Key is required");
    if (cache.startsWith("missing-")) return text(404, `Cache not found: ${cache}`);
    const id = `${cache}\0${key.toString("base64")}`;
    if (req.method === "GET") {
      if (!items.has(id)) return text(404, "Key Not Found");
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(items.get(id));
    }
    if (req.method === "PUT") {
      const refused = validateTtl(url.searchParams.get("ttl_seconds"));
      if (refused) return text(400, refused);
      const size = key.length + bytes.length;
      if (size > MAX_ITEM_BYTES) return text(429, `Item size limit exceeded: ${size} bytes, at most ${MAX_ITEM_BYTES}`);
      items.set(id, raw);
      res.writeHead(204);
      return res.end();
    }
    return text(405, "Method not allowed");
  });
}
