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
// first upsert. Errors answer as Upstash's do: {error, status}. Auth: no bearer token, or one not
// starting "up-" → 401. Index "down" answers 500, "hang" never answers. GET /dump/INDEX → {vectors}
// (for tests); GET /requests lists what was received.
//
// Requests are checked as Upstash documents them (upstash.com/docs/vector: "Upsert Vectors" and
// "Query Vectors" API pages, the FAQ, the tutorials' batch note):
//   upsert  one vector or a list of 1..1000 ("a limit of 1000 vectors per batch"); each with an id
//           that is not empty ("ID field is required and cannot be an empty string"), a dense
//           `vector` of numbers (a dense index takes no sparseVector) and, if any, metadata that is
//           an object; a vector of another dimension than the index's → 422
//           "Invalid vector dimension: N, expected: M" (the upsert page's own example)
//   query   a `vector` of numbers, of the index's dimension (422 as above otherwise)
// (A rule the docs do not state is not checked: a largest topK, a metadata size per vector.)
import { hang, serveStandin } from "./base.mjs";

const indexes = new Map(); // name → {dimension, vectors: Map(id → {id, vector, metadata})}

const MAX_BATCH = 1000;
const isNumbers = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number" && Number.isFinite(x));
/** Upstash's 422 to a vector of another dimension than the index's (`dimension`: undefined while it is empty). */
const dimensionError = (vector, dimension) =>
  dimension !== undefined && vector.length !== dimension ? `Invalid vector dimension: ${vector.length}, expected: ${dimension}` : undefined;

/** Why Upstash refuses an upsert body: {status, error}, or undefined. */
function upsertError(body, dimension) {
  const list = Array.isArray(body) ? body : [body];
  if (!list.length) return { status: 400, error: "no vectors to upsert" };
  if (list.length > MAX_BATCH) return { status: 400, error: `${list.length} vectors in one upsert; the limit is ${MAX_BATCH} a batch` };
  for (const v of list) {
    if (!v || typeof v !== "object") return { status: 400, error: "a vector must be an object {id, vector, metadata}" };
    if ((typeof v.id !== "string" && typeof v.id !== "number") || v.id === "")
      return { status: 400, error: "ID field is required and cannot be an empty string" };
    if (v.sparseVector !== undefined) return { status: 400, error: "This index requires dense vectors: give `vector`, not `sparseVector`" };
    if (!isNumbers(v.vector)) return { status: 400, error: "This index requires dense vectors: `vector` must be a list of numbers" };
    if (v.metadata !== undefined && (v.metadata === null || typeof v.metadata !== "object" || Array.isArray(v.metadata)))
      return { status: 400, error: `metadata of vector ${v.id} must be an object` };
    const wrong = dimensionError(v.vector, dimension ?? list[0].vector.length);
    if (wrong) return { status: 422, error: wrong };
  }
  return undefined;
}

/** Why Upstash refuses a query body: {status, error}, or undefined. */
function queryError(body, dimension) {
  if (!isNumbers(body?.vector)) return { status: 400, error: "a query needs `vector`, a list of numbers" };
  const wrong = dimensionError(body.vector, dimension);
  return wrong ? { status: 422, error: wrong } : undefined;
}

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
    if (op === "upsert") {
      const wrong = upsertError(body, ix.dimension);
      if (wrong) return fail(wrong.status, wrong.error);
      const list = Array.isArray(body) ? body : [body];
      ix.dimension ??= list[0].vector.length;
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
      const wrong = queryError(body, ix.dimension);
      if (wrong) return fail(wrong.status, wrong.error);
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
