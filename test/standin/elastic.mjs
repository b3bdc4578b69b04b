// Elasticsearch and OpenSearch stand-in (one module, one server per flavour) that really stores
// documents, speaking the document API both share:
//   HEAD /INDEX                   → 200, or 404 when missing
//   PUT  /INDEX {settings, mappings} → {acknowledged} (400 resource_already_exists_exception when it exists)
//   POST /INDEX/_bulk (NDJSON: {index: {_id}} + source, or {delete: {_id}}) → {errors, items}
//   POST /INDEX/_search           → {hits: {hits: [{_id, _score, _source}]}}: Elasticsearch's top-level
//        {knn: {field, query_vector, k, filter}}, OpenSearch's {query: {bool: {filter, must: [{knn: {FIELD: {vector, k}}}]}}}
//   POST /INDEX/_mget {ids}       → {docs: [{_id, found}]};  POST /INDEX/_refresh → {_shards}
// Scores as the services give them for the mapping's similarity (l2_norm / l2: 1 / (1 + d²); cosine /
// cosinesimil: (1 + cos) / 2; dot_product: (1 + dot) / 2; innerproduct: dot + 1 or 1 / (1 - dot)).
// Filters: bool {must, must_not} of {term: {"a.b": v}} and {terms: {"a.b": [..]}}. Vectors must have the
// mapping's dimension (a per-item error). Errors as theirs: {error: {type, reason}, status}.
// Auth: Elasticsearch takes `ApiKey es-…` or Basic with a password starting "es-" (else 401
// security_exception); OpenSearch takes Basic with a password starting "os-" (else 401, plain
// "Unauthorized"); indexes named "open-…" need none. Index "down" answers 500, "hang" never
// answers. GET /dump/INDEX → {settings, mappings, docs} (for tests); GET /requests lists what was received.
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
      if (ix) return error(400, "resource_already_exists_exception", `index [${name}/abc] already exists`);
      indexes.set(name, { settings: body?.settings ?? {}, mappings: body?.mappings ?? {}, docs: new Map() });
      return json(200, { acknowledged: true, shards_acknowledged: true, index: name });
    }
    if (req.method !== "POST") return error(405, "method_not_allowed", `${req.method} not allowed`);
    const field = () => {
      const props = ix.mappings.properties ?? {};
      return Object.entries(props).find(([, p]) => p.type === "dense_vector" || p.type === "knn_vector");
    };
    if (op === "_bulk") {
      const target = ix ?? { settings: {}, mappings: {}, docs: new Map() };
      if (!ix) indexes.set(name, target);
      const items = [];
      for (let i = 0; i < body.length; i++) {
        const [action, meta] = Object.entries(body[i])[0];
        if (action === "delete") {
          const had = target.docs.delete(meta._id);
          items.push({ delete: { _id: meta._id, result: had ? "deleted" : "not_found", status: had ? 200 : 404 } });
          continue;
        }
        const source = body[++i];
        const vf = Object.entries(target.mappings.properties ?? {}).find(([, p]) => p.type === "dense_vector" || p.type === "knn_vector");
        const dims = vf && (vf[1].dims ?? vf[1].dimension);
        if (vf && source[vf[0]]?.length !== dims) {
          const got = source[vf[0]]?.length;
          const field = `The [${vf[1].type}] field [${vf[0]}] in doc [${meta._id}]`;
          const reason = `${field} has a different number of dimensions [${got}] than defined in the mapping [${dims}]`;
          items.push({ [action]: { _id: meta._id, status: 400, error: { type: "document_parsing_exception", reason } } });
          continue;
        }
        target.docs.set(meta._id, source);
        items.push({ [action]: { _id: meta._id, result: "created", status: 201 } });
      }
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
      if (flavor === "elasticsearch") {
        ({ query_vector: vector, k, filter } = body.knn ?? {});
        if (body.knn?.field !== fieldName)
          return error(400, "illegal_argument_exception", `[knn] field [${body.knn?.field}] is not a vector`);
      } else {
        const knn = body.query?.bool?.must?.[0]?.knn?.[fieldName];
        if (!knn) return error(400, "parsing_exception", "expected a knn query on the vector field");
        ({ vector, k } = knn);
        filter = body.query.bool.filter;
      }
      const dims = mapping.dims ?? mapping.dimension;
      if (vector.length !== dims)
        return error(
          400,
          "illegal_argument_exception",
          `the query vector has a different number of dimensions [${vector.length}] than the index vectors [${dims}]`,
        );
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
