// Qdrant stand-in (REST API on one loopback server) that really stores points:
//   GET  /collections/NAME                      → {result: {status, config: {params: {vectors}}, points_count}} (404 when missing)
//   PUT  /collections/NAME {vectors: {size, distance}, …}    → {result: true} (409 when it exists)
//   PUT  /collections/NAME/points?wait=true {points: [{id, vector, payload}]} → {result: {status: "completed"}}
//   POST /collections/NAME/points {ids, with_payload, with_vector}           → {result: [{id, payload?, vector?}]}
//   POST /collections/NAME/points/search {vector, limit, filter, with_payload, with_vector} → {result: [{id, score, …}]}
//   POST /collections/NAME/points/delete?wait=true {points: [ids]} | {filter}  → {result: {status: "completed"}}
// Scores by the collection's distance (Cosine, Dot, Euclid, Manhattan; Euclid and Manhattan: smaller
// first). Filters: must / should / must_not of {key: "a.b", match: {value} | {any}} or {is_empty: {key}}.
// Ids must be unsigned integers or UUIDs (400 otherwise), and vectors the collection's size (400).
// Errors answer as Qdrant's do: {status: {error}}. Auth, as a server with an api key set: no
// `api-key` header → 401, one not starting "qd-" → 403 (plain text, as Qdrant's middleware);
// collections named "open-…" are on a server without auth. Collection "down" answers 500, "hang"
// never answers. GET /dump/NAME → {config, points} (for tests); GET /requests lists what was received.
import { hang, serveStandin } from "./base.mjs";

const collections = new Map(); // name → {config, points: Map(id → {id, vector, payload})}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const pointId = (id) =>
  typeof id === "number" && Number.isInteger(id) && id >= 0 ? id : UUID.test(String(id)) ? String(id).toLowerCase() : null;

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const SCORES = {
  Cosine: (a, b) => (norm(a) && norm(b) ? dot(a, b) / (norm(a) * norm(b)) : 0),
  Dot: dot,
  Euclid: (a, b) => Math.sqrt(a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0)),
  Manhattan: (a, b) => a.reduce((s, x, i) => s + Math.abs(x - b[i]), 0),
};
const ASCENDING = new Set(["Euclid", "Manhattan"]);

const valueAt = (payload, key) => key.split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), payload);

function condition(payload, c) {
  if (c.must || c.should || c.must_not) return matches(payload, c);
  if (c.is_empty) {
    const v = valueAt(payload, c.is_empty.key);
    return v === undefined || v === null || (Array.isArray(v) && !v.length);
  }
  const v = valueAt(payload, c.key);
  const has = (x) => (Array.isArray(v) ? v.includes(x) : v === x);
  if (c.match && "value" in c.match) return has(c.match.value);
  if (c.match && "any" in c.match) return c.match.any.some(has);
  throw new Error(`unsupported condition ${JSON.stringify(c)}`);
}

function matches(payload, filter) {
  const list = (x) => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
  return (
    list(filter.must).every((c) => condition(payload, c)) &&
    (!list(filter.should).length || list(filter.should).some((c) => condition(payload, c))) &&
    !list(filter.must_not).some((c) => condition(payload, c))
  );
}

const missing = (json, name) => json(404, { status: { error: `Not found: Collection \`${name}\` doesn't exist!` }, time: 0 });
const wrong = (json, message) => json(400, { status: { error: `Wrong input: ${message}` }, time: 0 });
const done = (json, result) => json(200, { result, status: "ok", time: 0 });

export function startQdrantStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const c = collections.get(decodeURIComponent(dump[1]));
      return c ? json(200, { config: c.config, points: [...c.points.values()] }) : json(404, { status: { error: "no such collection" } });
    }
    const route = /^\/collections\/([^/]+)(\/points(?:\/search|\/delete)?)?$/.exec(url.pathname);
    if (!route) return json(404, { status: { error: `no route ${req.method} ${url.pathname}` } });
    const name = decodeURIComponent(route[1]);
    const op = route[2] ?? "";
    if (!name.startsWith("open-")) {
      const key = req.headers["api-key"];
      const text = (status, message) => {
        res.writeHead(status, { "content-type": "text/plain" });
        res.end(message);
      };
      if (!key) return text(401, "Must provide an API key or an Authorization bearer token");
      if (!String(key).startsWith("qd-")) return text(403, "Invalid API key or JWT");
    }
    if (name === "down") return json(500, { status: { error: "Service internal error: the shard is having a bad day" }, time: 0 });
    if (name === "hang") return hang(res);
    const c = collections.get(name);
    if (op === "" && req.method === "GET") {
      if (!c) return missing(json, name);
      return done(json, { status: "green", config: { params: { vectors: c.config.vectors } }, points_count: c.points.size });
    }
    if (op === "" && req.method === "PUT") {
      if (c) return json(409, { status: { error: `Wrong input: Collection \`${name}\` already exists!` }, time: 0 });
      const { size, distance } = body?.vectors ?? {};
      if (!Number.isInteger(size) || size < 1 || !SCORES[distance]) return wrong(json, "vectors needs a size and a distance");
      collections.set(name, { config: body, points: new Map() });
      return done(json, true);
    }
    if (!c) return missing(json, name);
    const { size, distance } = c.config.vectors;
    if (op === "/points" && req.method === "PUT") {
      for (const p of body.points) {
        if (pointId(p.id) === null) return wrong(json, `Unable to parse UUID: ${p.id}`);
        if (p.vector.length !== size) return wrong(json, `Vector dimension error: expected dim: ${size}, got ${p.vector.length}`);
      }
      for (const p of body.points) c.points.set(pointId(p.id), { id: pointId(p.id), vector: p.vector, payload: p.payload ?? {} });
      return done(json, { operation_id: 1, status: "completed" });
    }
    const shape = (p, extra = {}) => ({
      id: p.id,
      ...extra,
      ...(body.with_payload ? { payload: p.payload } : {}),
      ...(body.with_vector ? { vector: p.vector } : {}),
    });
    if (op === "/points" && req.method === "POST") {
      const ids = body.ids.map(pointId);
      return done(
        json,
        ids.filter((id) => c.points.has(id)).map((id) => shape(c.points.get(id))),
      );
    }
    if (op === "/points/search" && req.method === "POST") {
      if (body.vector.length !== size) return wrong(json, `Vector dimension error: expected dim: ${size}, got ${body.vector.length}`);
      const scored = [...c.points.values()]
        .filter((p) => !body.filter || matches(p.payload, body.filter))
        .map((p) => ({ p, score: SCORES[distance](body.vector, p.vector) }))
        .sort((a, b) => (ASCENDING.has(distance) ? a.score - b.score : b.score - a.score))
        .slice(0, body.limit ?? 10);
      return done(
        json,
        scored.map(({ p, score }) => shape(p, { version: 1, score })),
      );
    }
    if (op === "/points/delete" && req.method === "POST") {
      if (!body.points && !body.filter) return wrong(json, "points or filter needed");
      for (const id of body.points ?? []) c.points.delete(pointId(id));
      if (body.filter) for (const [id, p] of c.points) if (matches(p.payload, body.filter)) c.points.delete(id);
      return done(json, { operation_id: 2, status: "completed" });
    }
    return json(404, { status: { error: `no route ${req.method} ${url.pathname}` } });
  });
}
