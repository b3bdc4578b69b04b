// Momento Cache's HTTP API (momentoCache): `Authorization: momento-token` required (401 text, as
// Momento answers), else:
//   GET /cache/<cache>?key=<key>  200 the stored value (application/octet-stream), 404 a miss
//   PUT /cache/<cache>?key=<key>&ttl_seconds=<n>  the body stored → 204; no ttl_seconds or a bad one → 400
//   a cache named "missing-…" does not exist: 404 "Cache not found" to both.
// Requests are recorded with their path (the cache name in it; GET /requests, base.mjs).
import { serveStandin } from "./base.mjs";

const TOKEN = "momento-token";

export function startMomentoStandin() {
  const items = new Map();
  return serveStandin(async ({ req, res, url, raw }) => {
    const text = (status, body) => {
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(body);
    };
    const m = /^\/cache\/([^/]+)$/.exec(url.pathname);
    if (!m) return text(404, `no route ${req.method} ${url.pathname}`);
    if (req.headers.authorization !== TOKEN) return text(401, "Invalid authentication credentials to connect to cache service");
    const cache = decodeURIComponent(m[1]);
    const key = url.searchParams.get("key");
    if (!key) return text(400, "Key is required");
    if (cache.startsWith("missing-")) return text(404, `Cache not found: ${cache}`);
    const id = `${cache}\0${key}`;
    if (req.method === "GET") {
      if (!items.has(id)) return text(404, "");
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(items.get(id));
    }
    if (req.method === "PUT") {
      const ttl = Number(url.searchParams.get("ttl_seconds"));
      if (!Number.isInteger(ttl) || ttl <= 0) return text(400, "ttl_seconds must be a positive integer");
      items.set(id, raw);
      res.writeHead(204);
      return res.end();
    }
    return text(405, "Method not allowed");
  });
}
