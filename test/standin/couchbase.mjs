// Couchbase stand-in: a Query service and a Search service (two loopback servers, as a cluster's
// 8093 and 8094) over one store of collections, HTTP Basic auth checked on both (user "edgeflow",
// password "couchbase-standin-Secret1"; else 401).
//   Query  POST /query/service {statement, args} — the statements the couchbase store sends, parsed
//          just enough: UPSERT INTO `b`.`s`.`c` (KEY, VALUE) VALUES ($1, $2), ($3, $4)…;
//          DELETE FROM `b`.`s`.`c` USE KEYS $1; SELECT RAW META().id FROM `b`.`s`.`c` USE KEYS $1.
//          → {requestID, signature, results, status: "success", metrics}; failures {errors: [{code, msg}],
//          status: "fatal"}: syntax 400 (3000), bucket "missing" 404 (12003 keyspace not found),
//          bucket "down" 503 (5000). A value pasted into a statement (not a $n) is a syntax error here.
//   Search POST /api/bucket/{b}/scope/{s}/index/{i}/query (scoped) or /api/index/{i}/query: an index
//          named idx_<collection> covers that collection (in the scope; any scope for a cluster index).
//          Body {query, knn: [{field, vector, k}], size, fields}: the k nearest by cosine similarity
//          (the score, as an index with similarity "cosine" answers it), at most `size`, each
//          {index, id, score, sort, fields} with the stored fields asked for ("*": all but the vector)
//          as dotted paths ("metadata.source"). Index "missing" → 400 index not found, "down" → 500.
// GET /dump/{b}/{s}/{c} (query server) → [{id, value}]; GET /log?contains=M → both services' requests
// whose path or body contains M.
//
// Requests are checked as Couchbase documents them, with a message naming the rule:
//   keys        a string of at most 246 bytes in a named collection, 250 in _default._default (Couchbase
//               Server "Data": Keys); a value at most 20 MiB of JSON ("Size Limits": max value size). A
//               refused document fails its statement (12009, DML error); the others are written.
//   statements  every $n has its value in `args` ("No value for positional parameter $n.", the Query
//               service's evaluation error); USE KEYS takes an array of strings
//   search      `query` given ("Search Request JSON Properties"); from + size at most 10,000
//               (bleveMaxResultWindow's default); each knn {field, vector: numbers, k ≥ 1}
import { serveStandin } from "./base.mjs";

export const COUCHBASE_USER = "edgeflow";
export const COUCHBASE_PASSWORD = "couchbase-standin-Secret1";
const collections = new Map(); // "b.s.c" → Map(id → value)
const log = [];

const authorized = (req) =>
  req.headers.authorization === `Basic ${Buffer.from(`${COUCHBASE_USER}:${COUCHBASE_PASSWORD}`).toString("base64")}`;
const collection = (b, s, c) => {
  const key = `${b}.${s}.${c}`;
  if (!collections.has(key)) collections.set(key, new Map());
  return collections.get(key);
};
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const cosine = (a, b) => {
  const n = Math.sqrt(dot(a, a)) * Math.sqrt(dot(b, b));
  return n ? dot(a, b) / n : 0;
};
function flatten(value, prefix, out) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out[prefix] = value;
  return out;
}

const MAX_KEY_BYTES = 246;
const MAX_DEFAULT_KEY_BYTES = 250;
const MAX_VALUE_BYTES = 20 * 1024 * 1024;
const MAX_RESULT_WINDOW = 10_000;

/** Why the Data service refuses to store `value` under `key` in collection b.s.c (Couchbase's size limits), or undefined. */
function documentError(key, value, s, c) {
  if (typeof key !== "string" || !key) return `a document key must be a non-empty string, not ${JSON.stringify(key)}`;
  const max = s === "_default" && c === "_default" ? MAX_DEFAULT_KEY_BYTES : MAX_KEY_BYTES;
  const keyBytes = Buffer.byteLength(key, "utf8");
  if (keyBytes > max) return `key ${key.slice(0, 40)}… is ${keyBytes} bytes; a key is at most ${max} bytes`;
  const valueBytes = Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
  if (valueBytes > MAX_VALUE_BYTES)
    return `value of key ${key} is ${valueBytes} bytes; a value is at most ${MAX_VALUE_BYTES} bytes (20 MiB)`;
  return undefined;
}

/** Why the Search service refuses a request body (its `query`, result window, knn), or undefined. */
function searchError(body) {
  if (!body?.query || typeof body.query !== "object") return "rest_index: Query, err: query must be specified";
  const size = body.size ?? 10;
  const from = body.from ?? 0;
  if (from + size > MAX_RESULT_WINDOW)
    return `rest_index: Query, err: bleve: bleveMaxResultWindow exceeded, from: ${from}, size: ${size}, limit: ${MAX_RESULT_WINDOW}`;
  for (const knn of body.knn ?? []) {
    if (typeof knn?.field !== "string" || !knn.field) return "rest_index: Query, err: knn: field must be specified";
    if (!Array.isArray(knn.vector) || !knn.vector.length || knn.vector.some((x) => typeof x !== "number"))
      return "rest_index: Query, err: knn: vector must be a non-empty array of numbers";
    if (!Number.isInteger(knn.k) || knn.k < 1) return `rest_index: Query, err: knn: k must be a positive integer, not ${knn.k}`;
  }
  return undefined;
}

const KEYSPACE = "`([^`]+)`\\.`([^`]+)`\\.`([^`]+)`";
const STATEMENTS = [
  [new RegExp(`^UPSERT INTO ${KEYSPACE} \\(KEY, VALUE\\) VALUES ((?:\\(\\$\\d+, \\$\\d+\\)(?:, )?)+)$`), "upsert"],
  [new RegExp(`^DELETE FROM ${KEYSPACE} USE KEYS \\$1$`), "delete"],
  [new RegExp(`^SELECT RAW META\\(\\)\\.id FROM ${KEYSPACE} USE KEYS \\$1$`), "select"],
];

function runStatement(statement, args) {
  for (const [, n] of String(statement ?? "").matchAll(/\$(\d+)/g))
    if (args[Number(n) - 1] === undefined) return [400, { code: 5010, msg: `No value for positional parameter $${n}.` }];
  for (const [re, kind] of STATEMENTS) {
    const m = re.exec(statement ?? "");
    if (!m) continue;
    const [, b, s, c, values] = m;
    if (b === "missing") return [404, { code: 12003, msg: `Keyspace not found in CB datastore: default:${b}.${s}.${c}` }];
    if (b === "down") return [503, { code: 5000, msg: "Internal error: the cluster is having a bad day" }];
    const docs = collection(b, s, c);
    if (kind === "upsert") {
      const refused = [];
      for (const [, k, v] of values.matchAll(/\(\$(\d+), \$(\d+)\)/g)) {
        const wrong = documentError(args[k - 1], args[v - 1], s, c);
        if (wrong)
          refused.push({
            code: 12009,
            msg: `DML Error, possible causes include concurrent modification. Failed to perform UPSERT - cause: ${wrong}`,
          });
        else docs.set(args[k - 1], args[v - 1]);
      }
      return refused.length ? [200, [], refused] : [200, []];
    }
    const keys = args?.[0];
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== "string"))
      return [400, { code: 5010, msg: "USE KEYS expects an array of string keys" }];
    if (kind === "delete") {
      for (const k of keys) docs.delete(k);
      return [200, []];
    }
    return [200, keys.filter((k) => docs.has(k))];
  }
  return [400, { code: 3000, msg: `syntax error - the stand-in does not read ${String(statement).slice(0, 80)}` }];
}

function search(index, bucket, scope, body) {
  const name = /^idx_(.+)$/.exec(index)?.[1];
  const docs = [];
  for (const [key, map] of collections) {
    const [b, s, c] = key.split(".");
    if (c === name && (bucket === undefined || (b === bucket && s === scope))) for (const [id, v] of map) docs.push([id, v]);
  }
  const { field, vector, k } = body.knn?.[0] ?? {};
  const fields = body.fields ?? [];
  const ranked = docs
    .filter(([, v]) => Array.isArray(v?.[field]) && v[field].length === vector?.length)
    .map(([id, v]) => ({ id, v, score: cosine(v[field], vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, Math.min(k ?? 3, body.size ?? 10));
  const hits = ranked.map(({ id, v, score }) => {
    const { [field]: _vector, ...stored } = v;
    const all = flatten(stored, "", {});
    const picked = fields.includes("*") ? all : Object.fromEntries(Object.entries(all).filter(([f]) => fields.includes(f)));
    return { index: `${index}_6a1c3d_4c1c5584`, id, score, sort: ["_score"], fields: picked };
  });
  return {
    status: { total: 1, failed: 0, successful: 1 },
    request: body,
    hits,
    total_hits: hits.length,
    max_score: hits[0]?.score ?? 0,
    took: 1234,
  };
}

export async function startCouchbaseStandin() {
  const query = await serveStandin(async ({ req, url, body, raw, json }) => {
    const dump = /^\/dump\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const docs = collections.get(dump.slice(1).map(decodeURIComponent).join(".")) ?? new Map();
      return json(
        200,
        [...docs].map(([id, value]) => ({ id, value })),
      );
    }
    if (url.pathname === "/log") {
      const m = url.searchParams.get("contains") ?? "";
      return json(
        200,
        log.filter((r) => r.path.includes(m) || r.raw.includes(m)).map(({ raw: _raw, ...r }) => r),
      );
    }
    log.push({ service: "query", method: req.method, path: url.pathname, headers: { ...req.headers }, body, raw });
    if (req.method !== "POST" || url.pathname !== "/query/service") return json(404, { errors: [{ code: 0, msg: "no such path" }] });
    if (!authorized(req)) return json(401, { errors: [{ code: 10000, msg: "Authentication Failure" }], status: "fatal" });
    const [status, result, refused] = runStatement(body?.statement, body?.args ?? []);
    const answer = { requestID: crypto.randomUUID(), signature: { $1: "json" } };
    if (status !== 200) return json(status, { ...answer, errors: [result], status: "fatal", metrics: { errorCount: 1 } });
    if (refused) return json(200, { ...answer, results: [], errors: refused, status: "errors", metrics: { errorCount: refused.length } });
    return json(200, { ...answer, results: result, status: "success", metrics: { resultCount: result.length } });
  });
  const searchServer = await serveStandin(async ({ req, url, body, raw, json }) => {
    log.push({ service: "search", method: req.method, path: url.pathname, headers: { ...req.headers }, body, raw });
    const scoped = /^\/api\/bucket\/([^/]+)\/scope\/([^/]+)\/index\/([^/]+)\/query$/.exec(url.pathname);
    const cluster = /^\/api\/index\/([^/]+)\/query$/.exec(url.pathname);
    if (req.method !== "POST" || (!scoped && !cluster)) return json(404, { error: "page not found", status: "fail" });
    if (!authorized(req)) return json(401, { error: "rest_auth: preparePerms, err: Authentication failure", status: "fail" });
    const [b, s, index] = scoped ? scoped.slice(1).map(decodeURIComponent) : [undefined, undefined, decodeURIComponent(cluster[1])];
    if (index === "missing") return json(400, { error: `rest_index: Query, indexName: ${index}, err: index not found`, status: "fail" });
    if (index === "down") return json(500, { error: "rest_index: Query, err: the search pindexes are having a bad day", status: "fail" });
    const wrong = searchError(body);
    if (wrong) return json(400, { error: wrong, status: "fail" });
    return json(200, search(index, b, s, body));
  });
  return {
    url: query.url,
    searchUrl: searchServer.url,
    queryPort: new URL(query.url).port,
    searchPort: new URL(searchServer.url).port,
    close: async () => {
      await query.close();
      await searchServer.close();
    },
  };
}
