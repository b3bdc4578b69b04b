// Elasticsearch and OpenSearch stand-in (one module, one server per flavour) that really stores
// documents, speaking the document API both share:
//   HEAD /INDEX                   → 200, or 404 when missing
//   PUT  /INDEX {settings, mappings} → {acknowledged} (400 resource_already_exists_exception when it exists)
//   POST /INDEX/_bulk (NDJSON: {index: {_id}} + source, or {delete: {_id}}) → {errors, items}
//   POST /INDEX/_search           → {hits: {hits: [{_id, _score, _source}]}}: Elasticsearch's top-level
//        {knn: {field, query_vector, k, num_candidates, filter}}, OpenSearch's
//        {query: {bool: {filter, must: [{knn: {FIELD: {vector, k}}}]}}}
//   POST /INDEX/_mget {ids}       → {docs: [{_id, found}]};  POST /INDEX/_refresh → {_shards}
// Scores as the services give them for the mapping's similarity (l2_norm / l2: 1 / (1 + d²); cosine /
// cosinesimil: (1 + cos) / 2; dot_product: (1 + dot) / 2; innerproduct: dot + 1 or 1 / (1 - dot)).
// Filters: bool {must, must_not} of {term: {"a.b": v}} and {terms: {"a.b": [..]}}. Errors as theirs:
// {error: {type, reason}, status}.
// Auth: Elasticsearch takes `ApiKey es-…` or Basic with a password starting "es-" (else 401
// security_exception); OpenSearch takes Basic with a password starting "os-" (else 401, plain
// "Unauthorized"); indexes named "open-…" need none. Index "down" answers 500, "hang" never
// answers. GET /dump/INDEX → {settings, mappings, docs} (for tests); GET /requests lists what was received.
//
// Requests are checked as the services document them (elastic.co: Bulk API, dense_vector, kNN search,
// "Index name"; docs.opensearch.org: k-NN query), with their own error types:
//   index    a name in lowercase, without \ / * ? " < > | , # : or a space, not starting with - _ +, at
//            most 255 bytes (400 invalid_index_name_exception); a dense_vector's dims 1..4096
//   _bulk    NDJSON whose last line ends with a newline (400 otherwise, for the whole request); actions
//            index, create, update (each followed by its source line) or delete; an _id of at most 512
//            bytes (400 action_request_validation_exception). Per item (HTTP 200 with errors: true): a
//            vector of the mapping's dimension; under similarity dot_product, of unit length
//   _search  Elasticsearch: knn.k ≥ 1, num_candidates ≥ k and ≤ 10000, from + size ≤ 10000, a query vector
//            of the mapping's dimension (of unit length under dot_product); OpenSearch: knn k 1..10000
import { createServer } from "node:http";
import { hang } from "./base.mjs";

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v) => Math.sqrt(dot(v, v));
const SCORES = {
  l2_norm: (a, b) => 1 / (1 + a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0)),
  cosine: (a, b) => (1 + (norm(a) && norm(b) ? dot(a, b) / (norm(a) * norm(b)) : 0)) / 2,
  dot_product: (a, b) => (1 + dot(a, b)) / 2,
};
SCORES.l2 = SCORES.l2_norm;
SCORES.cosinesimil = SCORES.cosine;
SCORES.innerproduct = (a, b) => (dot(a, b) >= 0 ? dot(a, b) + 1 : 1 / (1 - dot(a, b)));

const MAX_NUM_CANDIDATES = 10_000;
const MAX_RESULT_WINDOW = 10_000;
const MAX_ES_DIMS = 4096;
const MAX_ID_BYTES = 512;
const ACTIONS = new Set(["index", "create", "update", "delete"]);

/** Why the service refuses an index name ("Index name" rules of the create index API), or undefined. */
function indexNameError(name) {
  if (name !== name.toLowerCase()) return `Invalid index name [${name}], must be lowercase`;
  if (/[\\/*?"<>| ,#:]/.test(name))
    return `Invalid index name [${name}], must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?, #, :]`;
  if (/^[-_+]/.test(name)) return `Invalid index name [${name}], must not start with '_', '-', or '+'`;
  if (name === "." || name === "..") return `Invalid index name [${name}], must not be '.' or '..'`;
  if (Buffer.byteLength(name) > 255) return `Invalid index name [${name}], index name is too long, (${Buffer.byteLength(name)} > 255)`;
  return undefined;
}

/** Elasticsearch's check of a vector under similarity dot_product (its float vectors must be unit length). */
const unitError = (v) =>
  Math.abs(v.reduce((s, x) => s + x * x, 0) - 1) > 1e-4
    ? `The [dot_product] similarity can only be used with unit-length vectors. Preview of invalid vector: [${v.slice(0, 5).join(", ")}]`
    : undefined;

/** The bulk body as [action, meta, source?] operations, or the 400 that refuses the whole request. */
function bulkOperations(raw, lines) {
  if (!raw.endsWith("\n"))
    return { status: 400, type: "illegal_argument_exception", reason: "The bulk request must be terminated by a newline [\\n]" };
  const ops = [];
  for (let i = 0; i < lines.length; i++) {
    const entries = Object.entries(lines[i] ?? {});
    const [action, meta] = entries[0] ?? [];
    if (entries.length !== 1 || !ACTIONS.has(action))
      return {
        status: 400,
        type: "illegal_argument_exception",
        reason: `Malformed action/metadata line [${i + 1}], expected one of [create, delete, index, update] but found [${action}]`,
      };
    const id = meta?._id;
    const idBytes = id === undefined ? 0 : Buffer.byteLength(String(id));
    if (idBytes > MAX_ID_BYTES)
      return {
        status: 400,
        type: "action_request_validation_exception",
        reason: `Validation Failed: 1: id [${id}] is too long, must be no longer than ${MAX_ID_BYTES} bytes but was: ${idBytes};`,
      };
    if (action === "delete") ops.push({ action, meta });
    else if (i + 1 >= lines.length)
      return { status: 400, type: "illegal_argument_exception", reason: `The ${action} action on line [${i + 1}] has no source line` };
    else ops.push({ action, meta, source: lines[++i] });
  }
  if (!ops.length) return { status: 400, type: "action_request_validation_exception", reason: "Validation Failed: 1: no requests added;" };
  return { ops };
}

const valueAt = (source, path) => path.split(".").reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), source);
function clause(source, c) {
  if (c.term) return Object.entries(c.term).every(([k, v]) => valueAt(source, k) === v);
  if (c.terms) return Object.entries(c.terms).every(([k, v]) => v.includes(valueAt(source, k)));
  if (c.bool) return matches(source, c.bool);
  throw new Error(`unsupported clause ${JSON.stringify(c)}`);
}
function matches(source, bool) {
  if (!bool) return true;
  const list = (x) => (x === undefined ? [] : Array.isArray(x) ? x : [x]);
  return list(bool.must).every((c) => clause(source, c)) && !list(bool.must_not).some((c) => clause(source, c));
}

export function startElasticStandin(flavor) {
  const indexes = new Map(); // name → {settings, mappings, docs: Map(id → source)}
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const json = (status, value) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      if (req.method === "DELETE") requests.length = 0;
      return json(
        200,
        requests.map(({ raw: _raw, ...r }) => r),
      );
    }
    const lines = raw.split("\n").filter((l) => l.trim());
    let body;
    try {
      body = url.pathname.endsWith("/_bulk") ? lines.map((l) => JSON.parse(l)) : raw ? JSON.parse(raw) : undefined;
    } catch {
      return json(400, { error: { type: "parse_exception", reason: "body is not JSON" }, status: 400 });
    }
    requests.push({ method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, raw });
    const error = (status, type, reason) => json(status, { error: { root_cause: [{ type, reason }], type, reason }, status });
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const ix = indexes.get(decodeURIComponent(dump[1]));
      if (!ix) return error(404, "index_not_found_exception", "no such index");
      return json(200, { settings: ix.settings, mappings: ix.mappings, docs: [...ix.docs].map(([_id, _source]) => ({ _id, _source })) });
    }
    const route = /^\/([^/_][^/]*)(?:\/(_bulk|_search|_mget|_refresh))?$/.exec(url.pathname);
    if (!route) return error(404, "no_route", `no route ${req.method} ${url.pathname}`);
    const name = decodeURIComponent(route[1]);
    const op = route[2] ?? "";
    if (!name.startsWith("open-")) {
      const auth = String(req.headers.authorization ?? "");
      const basic = auth.startsWith("Basic ") ? Buffer.from(auth.slice(6), "base64").toString("utf8") : "";
      const password = basic.slice(basic.indexOf(":") + 1);
      if (flavor === "elasticsearch") {
        if (!auth) return error(401, "security_exception", "missing authentication credentials for REST request");
        if (!auth.startsWith("ApiKey es-") && !(basic && password.startsWith("es-")))
          return error(401, "security_exception", "unable to authenticate with provided credentials and anonymous access is not allowed");
      } else if (!basic || !password.startsWith("os-")) {
        res.writeHead(401, { "content-type": "text/plain" });
        return res.end("Unauthorized");
      }
    }
    if (name === "down") return error(500, "internal_server_error", "the cluster is having a bad day");
    if (name === "hang") return hang(res);
    const ix = indexes.get(name);
    const missing = () => error(404, "index_not_found_exception", `no such index [${name}]`);
    if (!op && req.method === "HEAD") {
      res.writeHead(ix ? 200 : 404);
      return res.end();
    }
    if (!op && req.method === "PUT") {
      const badName = indexNameError(name);
      if (badName) return error(400, "invalid_index_name_exception", badName);
      if (ix) return error(400, "resource_already_exists_exception", `index [${name}/abc] already exists`);
      const dense = Object.values(body?.mappings?.properties ?? {}).find((p) => p?.type === "dense_vector");
      if (flavor === "elasticsearch" && dense && !(Number.isInteger(dense.dims) && dense.dims >= 1 && dense.dims <= MAX_ES_DIMS))
        return error(
          400,
          "mapper_parsing_exception",
          `The number of dimensions should be in the range [1, ${MAX_ES_DIMS}] but was [${dense.dims}]`,
        );
      indexes.set(name, { settings: body?.settings ?? {}, mappings: body?.mappings ?? {}, docs: new Map() });
      return json(200, { acknowledged: true, shards_acknowledged: true, index: name });
    }
    if (req.method !== "POST") return error(405, "method_not_allowed", `${req.method} not allowed`);
    const field = () => {
      const props = ix.mappings.properties ?? {};
      return Object.entries(props).find(([, p]) => p.type === "dense_vector" || p.type === "knn_vector");
    };
    if (op === "_bulk") {
      const parsed = bulkOperations(raw, body);
      if (!parsed.ops) return error(parsed.status, parsed.type, parsed.reason);
      const target = ix ?? { settings: {}, mappings: {}, docs: new Map() };
      if (!ix) indexes.set(name, target);
      const vf = Object.entries(target.mappings.properties ?? {}).find(([, p]) => p.type === "dense_vector" || p.type === "knn_vector");
      const dims = vf && (vf[1].dims ?? vf[1].dimension);
      const items = parsed.ops.map(({ action, meta, source }) => {
        if (action === "delete") {
          const had = target.docs.delete(meta._id);
          return { delete: { _id: meta._id, result: had ? "deleted" : "not_found", status: had ? 200 : 404 } };
        }
        const refuse = (reason) => ({ [action]: { _id: meta._id, status: 400, error: { type: "document_parsing_exception", reason } } });
        const vector = vf && source[vf[0]];
        if (vf && vector?.length !== dims) {
          const field = `The [${vf[1].type}] field [${vf[0]}] in doc [${meta._id}]`;
          return refuse(`${field} has a different number of dimensions [${vector?.length}] than defined in the mapping [${dims}]`);
        }
        const unit = vf?.[1].similarity === "dot_product" ? unitError(vector) : undefined;
        if (unit) return refuse(`[1:1] failed to parse: ${unit}`);
        target.docs.set(meta._id, source);
        return { [action]: { _id: meta._id, result: "created", status: 201 } };
      });
      return json(200, { took: 1, errors: items.some((x) => Object.values(x)[0].error), items });
    }
    if (!ix) return missing();
    if (op === "_refresh") return json(200, { _shards: { total: 1, successful: 1, failed: 0 } });
    if (op === "_mget") return json(200, { docs: body.ids.map((_id) => ({ _index: name, _id, found: ix.docs.has(_id) })) });
    if (op === "_search") {
      const [fieldName, mapping] = field() ?? [];
      let vector;
      let k;
      let filter;
      const window = (body.from ?? 0) + (body.size ?? 10);
      if (window > MAX_RESULT_WINDOW)
        return error(
          400,
          "illegal_argument_exception",
          `Result window is too large, from + size must be less than or equal to: [${MAX_RESULT_WINDOW}] but was [${window}]`,
        );
      if (flavor === "elasticsearch") {
        ({ query_vector: vector, k, filter } = body.knn ?? {});
        if (body.knn?.field !== fieldName)
          return error(400, "illegal_argument_exception", `[knn] field [${body.knn?.field}] is not a vector`);
        const candidates = body.knn.num_candidates ?? Math.min(Math.ceil(1.5 * (k ?? 10)), MAX_NUM_CANDIDATES);
        if (k !== undefined && !(Number.isInteger(k) && k >= 1))
          return error(400, "illegal_argument_exception", "[k] must be greater than 0");
        if (candidates > MAX_NUM_CANDIDATES)
          return error(400, "illegal_argument_exception", `[num_candidates] cannot exceed [${MAX_NUM_CANDIDATES}]`);
        if (k !== undefined && candidates < k) return error(400, "illegal_argument_exception", "[num_candidates] cannot be less than [k]");
      } else {
        const knn = body.query?.bool?.must?.[0]?.knn?.[fieldName];
        if (!knn) return error(400, "parsing_exception", "expected a knn query on the vector field");
        ({ vector, k } = knn);
        if (!(Number.isInteger(k) && k >= 1 && k <= MAX_NUM_CANDIDATES))
          return error(400, "illegal_argument_exception", `[knn] requires k to be in the range [1, ${MAX_NUM_CANDIDATES}] but was [${k}]`);
        filter = body.query.bool.filter;
      }
      const dims = mapping.dims ?? mapping.dimension;
      if (vector.length !== dims)
        return error(
          400,
          "illegal_argument_exception",
          `the query vector has a different number of dimensions [${vector.length}] than the index vectors [${dims}]`,
        );
      const unit = mapping.similarity === "dot_product" ? unitError(vector) : undefined;
      if (unit) return error(400, "illegal_argument_exception", unit);
      const score = SCORES[mapping.similarity ?? mapping.method?.space_type ?? "l2_norm"];
      const excludes = body._source?.excludes ?? [];
      const hits = [...ix.docs]
        .filter(([, s]) => matches(s, filter?.bool))
        .map(([_id, s]) => ({ _index: name, _id, _score: score(vector, s[fieldName]), _source: s }))
        .sort((a, b) => b._score - a._score)
        .slice(0, Math.min(k ?? 10, body.size ?? 10))
        .map((h) => ({ ...h, _source: Object.fromEntries(Object.entries(h._source).filter(([key]) => !excludes.includes(key))) }));
      return json(200, { took: 1, hits: { total: { value: hits.length, relation: "eq" }, max_score: hits[0]?._score ?? null, hits } });
    }
    return error(404, "no_route", `no route ${req.method} ${url.pathname}`);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
