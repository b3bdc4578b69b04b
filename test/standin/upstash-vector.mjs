// Upstash Vector stand-in (REST API, as @upstash/vector calls it) that really stores vectors. Each
// index is a path prefix: a credential's UPSTASH_VECTOR_REST_URL is <standin>/<index>, then
//   POST /INDEX/upsert [{id, vector, metadata}]                        → {result: "Success"}
//   POST /INDEX/query {vector, topK, includeMetadata, includeVectors, filter} → {result: [{id, score, metadata?, vector?}]}
//   POST /INDEX/fetch {ids, includeMetadata, includeVectors}           → {result: [{id, …} | null]}
//   POST /INDEX/delete [ids]                                           → {result: {deleted}}
// Scores are cosine similarity normalised to 0…1 ((1 + cos) / 2, as Upstash answers), best first.
// Filters (Upstash's filter language, a subset): conditions joined by AND / OR (AND binds tighter,
// no parentheses): `a.b = 'text'`, `!=`, `<`, `<=`, `>`, `>=` with quoted text or numbers,
// `HAS FIELD a`, `HAS NOT FIELD a`; anything else is a 400. The dimension is fixed by an index's
// first upsert (400 after). Errors answer as Upstash's do: {error, status}. Auth: no bearer token,
// or one not starting "up-" → 401. Index "down" answers 500, "hang" never answers. GET /dump/INDEX
// → {vectors} (for tests); GET /requests lists what was received.
import { hang, serveStandin } from "./base.mjs";

const indexes = new Map(); // name → {dimension, vectors: Map(id → {id, vector, metadata})}

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a, b) => (norm(a) && norm(b) ? a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b)) : 0);
const valueAt = (m, path) => path.split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), m);

const VALUE = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false`;
const CONDITION = new RegExp(String.raw`^\s*(?:HAS\s+(NOT\s+)?FIELD\s+([\w.]+)|([\w.]+)\s*(=|!=|<=|>=|<|>)\s*(${VALUE}))\s*$`, "i");

/** The filter as a predicate over metadata; throws on what this subset cannot read. */
function compile(filter) {
  const ors = filter.split(/\s+OR\s+/i).map((part) =>
    part.split(/\s+AND\s+/i).map((c) => {
      const m = CONDITION.exec(c);
      if (!m) throw new Error(`Invalid filter: ${c.trim()}`);
      if (m[2]) return (meta) => (valueAt(meta, m[2]) !== undefined) !== Boolean(m[1]);
      const raw = m[5];
      const want = /^['"]/.test(raw) ? raw.slice(1, -1) : raw === "true" ? true : raw === "false" ? false : Number(raw);
      const op = m[4];
      return (meta) => {
        const v = valueAt(meta, m[3]);
        if (op === "=") return v === want;
        if (op === "!=") return v !== want;
        if (v === undefined) return false;
        return op === "<" ? v < want : op === "<=" ? v <= want : op === ">" ? v > want : v >= want;
      };
    }),
  );
  return (meta) => ors.some((ands) => ands.every((c) => c(meta)));
}

export function startUpstashVectorStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const fail = (status, error) => json(status, { error, status });
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const ix = indexes.get(decodeURIComponent(dump[1]));
      return json(200, { vectors: ix ? [...ix.vectors.values()] : [] });
    }
    const route = /^\/([^/]+)\/(upsert|query|fetch|delete)$/.exec(url.pathname);
    if (!route || req.method !== "POST") return fail(404, `Not Found: ${req.method} ${url.pathname}`);
    const auth = String(req.headers.authorization ?? "");
    if (!auth.startsWith("Bearer up-")) return fail(401, "Unauthorized: Invalid auth token");
    const [name, op] = [decodeURIComponent(route[1]), route[2]];
    if (name === "down") return fail(500, "Internal Server Error: the index is having a bad day");
    if (name === "hang") return hang(res);
    let ix = indexes.get(name);
    if (!ix) indexes.set(name, (ix = { dimension: undefined, vectors: new Map() }));
    const dimension = (v) =>
      ix.dimension !== undefined && v.length !== ix.dimension ? `Invalid vector dimension: ${v.length}, expected: ${ix.dimension}` : null;
    if (op === "upsert") {
      const list = Array.isArray(body) ? body : [body];
      for (const v of list) {
        if (!Array.isArray(v.vector)) return fail(400, "This index requires dense vectors");
        const wrong = dimension(v.vector);
        if (wrong) return fail(400, wrong);
      }
      ix.dimension ??= list[0]?.vector.length;
      for (const v of list) ix.vectors.set(String(v.id), { id: String(v.id), vector: v.vector, metadata: v.metadata });
      return json(200, { result: "Success" });
    }
    const shape = (v, extra = {}) => ({
      id: v.id,
      ...extra,
      ...(body.includeMetadata && v.metadata !== undefined ? { metadata: v.metadata } : {}),
      ...(body.includeVectors ? { vector: v.vector } : {}),
    });
    if (op === "query") {
      const wrong = dimension(body.vector);
      if (wrong) return fail(400, wrong);
      let keep = () => true;
      if (body.filter) {
        try {
          keep = compile(body.filter);
        } catch (err) {
          return fail(400, String(err.message));
        }
      }
      const hits = [...ix.vectors.values()]
        .filter((v) => keep(v.metadata ?? {}))
        .map((v) => ({ v, score: (1 + cosine(body.vector, v.vector)) / 2 }))
        .sort((a, b) => b.score - a.score)
        .slice(0, body.topK ?? 10);
      return json(200, { result: hits.map(({ v, score }) => shape(v, { score })) });
    }
    if (op === "fetch") return json(200, { result: body.ids.map((id) => (ix.vectors.has(id) ? shape(ix.vectors.get(id)) : null)) });
    let deleted = 0;
    for (const id of Array.isArray(body) ? body : [body]) if (ix.vectors.delete(String(id))) deleted++;
    return json(200, { result: { deleted } });
  });
}
