// Supabase stand-in (PostgREST under /rest/v1, as supabase-js calls it) holding LangChain's
// documents tables ({id uuid, content, metadata jsonb, embedding vector(n)}) and their match functions:
//   POST   /rest/v1/TABLE?on_conflict=id [rows]   (Prefer: resolution=merge-duplicates)  → 201
//   GET    /rest/v1/TABLE?select=id&id=in.(…)                                            → [{id}]
//   DELETE /rest/v1/TABLE?id=in.(…)                                                      → 204
//   POST   /rest/v1/rpc/FN {query_embedding, match_count, filter}  → [{id, content, metadata, embedding, similarity}]
// Any table exists (empty until written) except names starting "missing"; the function
// match_documents searches table `documents`, match_NAME table NAME, any other is missing (404,
// PGRST202). Each has the signature of LangChain's documented match_documents (query_embedding
// vector, match_count int default null, filter jsonb default '{}'): PostgREST picks a function by the
// names of the arguments sent (docs.postgrest.org, "Functions as RPC"), so an argument it does not
// have, or no query_embedding, is PGRST202 too. Text and jsonb cannot hold a NUL character
// (PostgreSQL's manual, "JSON Types"): a \u0000 in a row's content or metadata, or in the function's
// filter, is 400 22P05 "unsupported Unicode escape sequence".
// The function answers rows whose metadata contains `filter` (jsonb @>), by cosine
// similarity, best first, at most match_count; query-string filters on its rows as PostgREST reads
// them (`metadata->>k=eq.v`, `metadata->k::int=gt.5`; eq neq gt gte lt lte in) and `limit`. Ids
// must be UUIDs (400, 22P02) — except in tables named serial… (Flowise's documented `id bigserial
// primary key`: ids are integers, a row without one takes the sequence's next) and int4… (`serial`,
// int4: past 2^31 − 1 is 22003) — embeddings the dimension of a table's first write (400). Errors
// answer as PostgREST's do: {code, details, hint, message}. Auth: no `apikey` → 401, one not
// starting "sb-" → 401 "Invalid API key". Table "down" answers 500, "hang" never answers.
// A filter value the id column's type cannot read is refused the same way (`id=eq.x`, `id=in.(…)`).
// GET /dump/TABLE → {rows} (for tests); GET /requests lists what was received.
import { hang, serveStandin } from "./base.mjs";

const tables = new Map(); // name → {dimension, rows: Map(id → row)}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a, b) => (norm(a) && norm(b) ? a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b)) : 0);

/** jsonb containment: every key of `want` in `have`, objects recursively. */
function contains(have, want) {
  if (want && typeof want === "object" && !Array.isArray(want))
    return !!have && typeof have === "object" && Object.entries(want).every(([k, v]) => contains(have[k], v));
  if (Array.isArray(want)) return Array.isArray(have) && want.every((w) => have.some((h) => contains(h, w)));
  return have === want;
}

const MATCH_PARAMS = { required: ["query_embedding"], optional: ["match_count", "filter"] };
/** Whether a JSON value holds a NUL character in a string or a key (PostgreSQL's text and jsonb refuse it). */
const hasNul = (v) =>
  typeof v === "string"
    ? v.includes("\u0000")
    : Array.isArray(v)
      ? v.some(hasNul)
      : !!v && typeof v === "object" && Object.entries(v).some(([k, x]) => k.includes("\u0000") || hasNul(x));

const table = (name) => {
  let t = tables.get(name);
  const idType = name.startsWith("serial") ? "bigint" : name.startsWith("int4") ? "integer" : "uuid";
  if (!t) tables.set(name, (t = { dimension: undefined, rows: new Map(), idType, sequence: 0 }));
  return t;
};
const idList = (param) => {
  const one = /^eq\.(.*)$/.exec(param ?? "");
  if (one) return [one[1]];
  return (
    /^in\.\((.*)\)$/
      .exec(param ?? "")?.[1]
      .split(",")
      .filter(Boolean) ?? null
  );
};
const INT_MAX = { bigint: 2n ** 63n - 1n, integer: 2n ** 31n - 1n };
/** The column's value for `id` (lower-case UUID, or an integer's digits), or PostgreSQL's error for it: [value, code, message]. */
function readId(t, id) {
  const text = String(id);
  if (t.idType === "uuid") return UUID.test(text) ? [text.toLowerCase()] : [null, "22P02", `invalid input syntax for type uuid: "${text}"`];
  if (!/^-?\d+$/.test(text)) return [null, "22P02", `invalid input syntax for type ${t.idType}: "${text}"`];
  const n = BigInt(text);
  if (n > INT_MAX[t.idType] || n < -INT_MAX[t.idType] - 1n) return [null, "22003", `value "${text}" is out of range for type ${t.idType}`];
  return [n.toString()];
}

/** A row filter from the query string: column `metadata->>k`, `metadata->k::type` or a plain column. */
function rowFilter(column, expr) {
  const m = /^(\w+)(?:->>?(\w+))?(?:::(\w+))?$/.exec(column);
  const op = /^(eq|neq|gt|gte|lt|lte|in)\.(.*)$/.exec(expr);
  if (!m || !op) return null;
  const numeric = m[3] && /^(int|integer|float|numeric|bigint)$/.test(m[3]);
  const read = (row) => {
    const v = m[2] ? row[m[1]]?.[m[2]] : row[m[1]];
    return v === undefined || v === null ? v : numeric ? Number(v) : String(v);
  };
  const want = (x) => (numeric ? Number(x) : x);
  return (row) => {
    const v = read(row);
    if (op[1] === "in")
      return op[2]
        .replace(/^\(|\)$/g, "")
        .split(",")
        .map(want)
        .includes(v);
    if (v === undefined || v === null) return false;
    const x = want(op[2]);
    return { eq: v === x, neq: v !== x, gt: v > x, gte: v >= x, lt: v < x, lte: v <= x }[op[1]];
  };
}

export function startSupabaseStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const pgError = (status, code, message, details = null, hint = null) => json(status, { code, details, hint, message });
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) return json(200, { rows: [...(tables.get(decodeURIComponent(dump[1]))?.rows.values() ?? [])] });
    const route = /^\/rest\/v1\/(rpc\/)?([^/]+)$/.exec(url.pathname);
    if (!route) return pgError(404, "PGRST125", `Invalid path specified in request URL`);
    const key = req.headers.apikey;
    if (!key) return json(401, { message: "No API key found in request", hint: "No `apikey` request header or url param was found." });
    if (!String(key).startsWith("sb-") || req.headers.authorization !== `Bearer ${key}`) return json(401, { message: "Invalid API key" });
    const name = decodeURIComponent(route[2]);
    if (route[1]) {
      const tableName = name === "match_documents" ? "documents" : name.startsWith("match_") ? name.slice(6) : null;
      const args = Object.keys(body ?? {}).sort();
      const known = [...MATCH_PARAMS.required, ...MATCH_PARAMS.optional];
      const fits = MATCH_PARAMS.required.every((a) => args.includes(a)) && args.every((a) => known.includes(a));
      if (!tableName || req.method !== "POST" || !fits)
        return pgError(
          404,
          "PGRST202",
          `Could not find the function public.${name}(${args.join(", ")}) in the schema cache`,
          `Searched for the function public.${name} with parameters ${args.join(", ")} or with a single unnamed json/jsonb ` +
            "parameter, but no matches were found in the schema cache.",
        );
      if (hasNul(body.filter)) return pgError(400, "22P05", "unsupported Unicode escape sequence", "\\u0000 cannot be converted to text.");
      if (tableName === "down") return pgError(500, "XX000", "the database is having a bad day");
      if (tableName === "hang") return hang(res);
      const t = table(tableName);
      const v = body?.query_embedding;
      if (t.dimension !== undefined && v.length !== t.dimension)
        return pgError(400, "22000", `different vector dimensions ${t.dimension} and ${v.length}`);
      const filters = [];
      for (const [column, expr] of url.searchParams) {
        if (column === "limit") continue;
        const f = rowFilter(column, expr);
        if (!f) return pgError(400, "PGRST100", `"failed to parse filter (${expr})" (line 1, column 1)`);
        filters.push(f);
      }
      const limit = Number(url.searchParams.get("limit") ?? body.match_count ?? Number.POSITIVE_INFINITY);
      const found = [...t.rows.values()]
        .filter((r) => contains(r.metadata, body.filter ?? {}) && filters.every((f) => f(r)))
        .map((r) => ({ ...r, embedding: JSON.stringify(r.embedding), similarity: cosine(v, r.embedding) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, limit);
      return json(200, found);
    }
    if (name.startsWith("missing")) return pgError(404, "PGRST205", `Could not find the table 'public.${name}' in the schema cache`);
    if (name === "down") return pgError(500, "XX000", "the database is having a bad day");
    if (name === "hang") return hang(res);
    const t = table(name);
    if (req.method === "POST") {
      const rows = Array.isArray(body) ? body : [body];
      for (const r of rows) {
        if (r.id === undefined && t.idType !== "uuid") r.id = String(++t.sequence);
        const [, code, message] = readId(t, r.id);
        if (code) return pgError(400, code, message);
        if (hasNul(r.content) || hasNul(r.metadata))
          return pgError(400, "22P05", "unsupported Unicode escape sequence", "\\u0000 cannot be converted to text.");
        if (t.dimension !== undefined && r.embedding.length !== t.dimension)
          return pgError(400, "22000", `expected ${t.dimension} dimensions, not ${r.embedding.length}`);
      }
      const merge = String(req.headers.prefer ?? "").includes("resolution=merge-duplicates");
      for (const r of rows)
        if (!merge && t.rows.has(readId(t, r.id)[0]))
          return pgError(409, "23505", 'duplicate key value violates unique constraint "documents_pkey"');
      t.dimension ??= rows[0]?.embedding.length;
      for (const r of rows) {
        const id = readId(t, r.id)[0];
        t.rows.set(id, { id: t.idType === "uuid" ? id : Number(id), content: r.content, metadata: r.metadata, embedding: r.embedding });
      }
      res.writeHead(201);
      return res.end();
    }
    const ids = idList(url.searchParams.get("id"));
    if (!ids) return pgError(400, "21000", "DELETE requires a WHERE clause");
    const keys = [];
    for (const id of ids) {
      const [key, code, message] = readId(t, decodeURIComponent(id));
      if (code) return pgError(400, code, message);
      keys.push(key);
    }
    if (req.method === "GET") {
      const limit = Number(url.searchParams.get("limit") ?? Number.POSITIVE_INFINITY);
      return json(
        200,
        keys
          .filter((k) => t.rows.has(k))
          .slice(0, limit)
          .map((k) => ({ id: t.rows.get(k).id })),
      );
    }
    if (req.method === "DELETE") {
      for (const k of keys) t.rows.delete(k);
      res.writeHead(204);
      return res.end();
    }
    return pgError(405, "PGRST117", `Unsupported HTTP method: ${req.method}`);
  });
}
