// Qdrant stand-in (REST API on one loopback server) that really stores points:
//   GET  /collections/NAME                      → {result: {status, config: {params: {vectors}}, points_count}} (404 when missing)
//   PUT  /collections/NAME {vectors: {size, distance}, …}    → {result: true} (409 when it exists)
//   PUT  /collections/NAME/points?wait=true {points: [{id, vector, payload}]} → {result: {status: "completed"}}
//   POST /collections/NAME/points {ids, with_payload, with_vector}           → {result: [{id, payload?, vector?}]}
//   POST /collections/NAME/points/search {vector, limit, filter, with_payload, with_vector} → {result: [{id, score, …}]}
//   POST /collections/NAME/points/delete?wait=true {points: [ids]} | {filter}  → {result: {status: "completed"}}
// Scores by the collection's distance (Cosine, Dot, Euclid, Manhattan; Euclid and Manhattan: smaller
// first). Filters (qdrant.tech/documentation/concepts/filtering) are read as Qdrant's serde types
// read them: a filter has only must / should / must_not (each one condition or a list) and
// min_should {conditions, min_count}, any other key a 400 ("unknown field"); a condition is a field
// condition {key, match: {value} | {any} | {except}, range: {gt, gte, lt, lte}, is_empty, is_null},
// {is_empty: {key}}, {is_null: {key}}, {has_id: [ids]}, {nested: {key, filter}} or a filter, anything
// else a 400 ("Expected some form of condition"). A search needs `vector` and `limit`.
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

const isObject = (v) => !!v && typeof v === "object" && !Array.isArray(v);
const list = (x) => (x === undefined || x === null ? [] : Array.isArray(x) ? x : [x]);
const FILTER_KEYS = ["should", "min_should", "must", "must_not"];
const FIELD_KEYS = new Set([
  "key",
  "match",
  "range",
  "geo_bounding_box",
  "geo_radius",
  "geo_polygon",
  "values_count",
  "is_empty",
  "is_null",
]);
const MATCH_KEYS = new Set(["value", "text", "phrase", "text_any", "any", "except"]);
const RANGE_KEYS = new Set(["gt", "gte", "lt", "lte"]);
const NOT_A_CONDITION =
  'Expected some form of condition, which can be a field condition (like {"key": ..., "match": ... }), or some other ' +
  "mentioned in the documentation: https://qdrant.tech/documentation/concepts/filtering/#filtering-conditions";

/** Why Qdrant refuses a filter (its JSON body's format error), or undefined. */
function filterError(filter) {
  if (!isObject(filter)) return "invalid type: expected struct Filter";
  for (const key of Object.keys(filter))
    if (!FILTER_KEYS.includes(key)) return `unknown field \`${key}\`, expected one of ${FILTER_KEYS.map((k) => `\`${k}\``).join(", ")}`;
  if (filter.min_should !== undefined && !(isObject(filter.min_should) && Number.isInteger(filter.min_should.min_count)))
    return "min_should needs conditions and min_count";
  const conditions = [...list(filter.must), ...list(filter.should), ...list(filter.must_not), ...list(filter.min_should?.conditions)];
  for (const c of conditions) {
    const wrong = conditionError(c);
    if (wrong) return wrong;
  }
  return undefined;
}

function conditionError(c) {
  if (!isObject(c)) return NOT_A_CONDITION;
  if ("key" in c) {
    const keys = Object.keys(c);
    if (typeof c.key !== "string" || keys.length < 2 || !keys.every((k) => FIELD_KEYS.has(k))) return NOT_A_CONDITION;
    if (c.match !== undefined) {
      const m = Object.keys(isObject(c.match) ? c.match : {});
      if (m.length !== 1 || !MATCH_KEYS.has(m[0])) return NOT_A_CONDITION;
      if ((m[0] === "any" || m[0] === "except") && !Array.isArray(c.match[m[0]])) return NOT_A_CONDITION;
    }
    if (c.range !== undefined && !(isObject(c.range) && Object.keys(c.range).every((k) => RANGE_KEYS.has(k)))) return NOT_A_CONDITION;
    return undefined;
  }
  if ("is_empty" in c || "is_null" in c) {
    const inner = c.is_empty ?? c.is_null;
    return Object.keys(c).length === 1 && isObject(inner) && typeof inner.key === "string" ? undefined : NOT_A_CONDITION;
  }
  if ("has_id" in c) return Object.keys(c).length === 1 && Array.isArray(c.has_id) ? undefined : NOT_A_CONDITION;
  if ("nested" in c)
    return Object.keys(c).length === 1 && isObject(c.nested) && typeof c.nested.key === "string"
      ? filterError(c.nested.filter)
      : NOT_A_CONDITION;
  // A filter as a condition (nested boolean logic).
  return Object.keys(c).length && Object.keys(c).every((k) => FILTER_KEYS.includes(k)) ? filterError(c) : NOT_A_CONDITION;
}

const isEmpty = (v) => v === undefined || v === null || (Array.isArray(v) && !v.length);

function condition(point, c) {
  const payload = point.payload;
  if (!("key" in c)) {
    if (c.is_empty) return isEmpty(valueAt(payload, c.is_empty.key));
    if (c.is_null) return valueAt(payload, c.is_null.key) === null;
    if (c.has_id) return c.has_id.map(pointId).includes(point.id);
    if (Object.keys(c).every((k) => FILTER_KEYS.includes(k))) return matches(point, c);
  }
  const v = valueAt(payload, c.key);
  if (c.is_empty !== undefined) return isEmpty(v) === c.is_empty;
  if (c.is_null !== undefined) return (v === null) === c.is_null;
  const has = (x) => (Array.isArray(v) ? v.includes(x) : v === x);
  if (c.match && "value" in c.match) return has(c.match.value);
  if (c.match && "any" in c.match) return c.match.any.some(has);
  if (c.match && "except" in c.match) return v !== undefined && !c.match.except.some(has);
  if (c.range) {
    const ok = (x) =>
      typeof x === "number" &&
      (c.range.gt === undefined || x > c.range.gt) &&
      (c.range.gte === undefined || x >= c.range.gte) &&
      (c.range.lt === undefined || x < c.range.lt) &&
      (c.range.lte === undefined || x <= c.range.lte);
    return list(v).some(ok);
  }
  throw new Error(`the stand-in does not evaluate ${JSON.stringify(c)}`);
}

/** Whether a point passes a filter (min_should: at least min_count of its conditions). */
function matches(point, filter) {
  const min = filter.min_should;
  return (
    list(filter.must).every((c) => condition(point, c)) &&
    (!list(filter.should).length || list(filter.should).some((c) => condition(point, c))) &&
    !list(filter.must_not).some((c) => condition(point, c)) &&
    (!min || min.conditions.filter((c) => condition(point, c)).length >= min.min_count)
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
    // Qdrant's JSON body errors, as its REST API words them.
    const format = (message) => json(400, { status: { error: `Format error in JSON body: ${message}` }, time: 0 });
    if (op === "/points/search" && req.method === "POST") {
      if (!Array.isArray(body?.vector)) return format("missing field `vector`");
      if (!Number.isInteger(body.limit)) return format("missing field `limit`");
      const wrongFilter = body.filter === undefined || body.filter === null ? undefined : filterError(body.filter);
      if (wrongFilter) return format(wrongFilter);
      if (body.vector.length !== size) return wrong(json, `Vector dimension error: expected dim: ${size}, got ${body.vector.length}`);
      const scored = [...c.points.values()]
        .filter((p) => !body.filter || matches(p, body.filter))
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
      const wrongFilter = body.filter ? filterError(body.filter) : undefined;
      if (wrongFilter) return format(wrongFilter);
      for (const id of body.points ?? []) c.points.delete(pointId(id));
      if (body.filter) for (const [id, p] of c.points) if (matches(p, body.filter)) c.points.delete(id);
      return done(json, { operation_id: 2, status: "completed" });
    }
    return json(404, { status: { error: `no route ${req.method} ${url.pathname}` } });
  });
}
