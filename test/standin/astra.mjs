// Astra DB Data API stand-in (one loopback server, one database) that really stores documents:
//   POST /api/json/v1/default_keyspace {createCollection: {name, options: {vector: {dimension, metric}, indexing}}}
//        → {status: {ok: 1}} (the same options again: ok; other options: EXISTING_COLLECTION_DIFFERENT_SETTINGS)
//   POST /api/json/v1/default_keyspace/NAME with one command:
//     {insertMany: {documents, options: {ordered: false}}} → {status: {insertedIds}, errors: [DOCUMENT_ALREADY_EXISTS …]}
//     {findOneAndReplace: {filter: {_id}, replacement, options: {upsert}}} → {status: {matchedCount, modifiedCount}}
//     {find: {filter, sort: {$vector}, projection, options: {limit, includeSimilarity}}} → {data: {documents, nextPageState}}
//     {deleteMany: {filter}} → {status: {deletedCount}}
// Similarity as Astra answers it (higher nearer): cosine (1 + cos) / 2, dot_product (1 + dot) / 2,
// euclidean 1 / (1 + squared distance). Filters: {field: value}, {field: {$in: [...]}}, {field: {$eq}}.
// As the Data API, most failures answer HTTP 200 with {errors: [{errorCode, message}]}: a missing
// collection COLLECTION_NOT_EXIST, a vector of another length VECTOR_SIZE_MISMATCH. The `Token`
// header must start "AstraCS:" (else HTTP 401, as Astra's gateway). Collection "down" answers
// HTTP 500, "hang" never answers. GET /dump/NAME → the collection; GET /requests lists what was received.
import { hang, serveStandin } from "./base.mjs";

const collections = new Map(); // name → {options, docs: Map(_id → doc)}

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v) => Math.sqrt(dot(v, v));
const SIMILARITY = {
  cosine: (a, b) => (1 + (norm(a) && norm(b) ? dot(a, b) / (norm(a) * norm(b)) : 0)) / 2,
  dot_product: (a, b) => (1 + dot(a, b)) / 2,
  euclidean: (a, b) => 1 / (1 + a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0)),
};

function matches(doc, filter) {
  return Object.entries(filter ?? {}).every(([k, cond]) => {
    const v = doc[k];
    if (cond && typeof cond === "object" && !Array.isArray(cond)) {
      if ("$in" in cond) return cond.$in.some((x) => String(x) === String(v));
      if ("$eq" in cond) return String(cond.$eq) === String(v);
      throw new Error(`unsupported filter ${JSON.stringify(cond)}`);
    }
    return String(cond) === String(v);
  });
}

function projected(doc, projection, similarity) {
  const out = {};
  const only = Object.entries(projection ?? {})
    .filter(([k, v]) => v && k !== "$vector")
    .map(([k]) => k);
  for (const [k, v] of Object.entries(doc)) {
    if (k === "$vector" && !projection?.$vector) continue;
    if (only.length && k !== "_id" && k !== "$vector" && !only.includes(k)) continue;
    out[k] = v;
  }
  if (similarity !== undefined) out.$similarity = similarity;
  return out;
}

const errors = (json, errorCode, message, extra = {}) => json(200, { errors: [{ errorCode, message, ...extra }] });

export function startAstraStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const c = collections.get(decodeURIComponent(dump[1]));
      return c ? json(200, { options: c.options, docs: [...c.docs.values()] }) : json(404, { message: "no such collection" });
    }
    const route = /^\/api\/json\/v1\/default_keyspace(?:\/([^/]+))?$/.exec(url.pathname);
    if (!route || req.method !== "POST") return json(404, { errors: [{ message: `no route ${req.method} ${url.pathname}` }] });
    if (!String(req.headers.token ?? "").startsWith("AstraCS:"))
      return json(401, {
        errors: [
          {
            message: "Role unauthorized for operation: Missing token, expecting one in the Token header.",
            errorCode: "UNAUTHENTICATED_REQUEST",
          },
        ],
      });
    const name = route[1] ? decodeURIComponent(route[1]) : body?.createCollection?.name;
    if (name === "down")
      return json(500, {
        errors: [{ message: "Server failed: the coordinator is having a bad day", errorCode: "SERVER_UNHANDLED_ERROR" }],
      });
    if (name === "hang") return hang(res);
    if (!route[1]) {
      const { vector } = body?.createCollection?.options ?? {};
      if (!body?.createCollection?.name || !(vector?.dimension > 0) || !SIMILARITY[vector.metric ?? "cosine"])
        return errors(json, "INVALID_REQUEST", "createCollection needs a name and vector options");
      const c = collections.get(name);
      if (c && JSON.stringify(c.options.vector) !== JSON.stringify({ metric: "cosine", ...vector }))
        return errors(
          json,
          "EXISTING_COLLECTION_DIFFERENT_SETTINGS",
          `Collection '${name}' already exists but with settings different from ones passed with 'createCollection' command.`,
        );
      if (!c)
        collections.set(name, { options: { ...body.createCollection.options, vector: { metric: "cosine", ...vector } }, docs: new Map() });
      return json(200, { status: { ok: 1 } });
    }
    const c = collections.get(name);
    if (!c) return errors(json, "COLLECTION_NOT_EXIST", `Collection does not exist, collection name: ${name}`);
    const { dimension, metric } = c.options.vector;
    const sizeOk = (d) => !d.$vector || (Array.isArray(d.$vector) && d.$vector.length === dimension);
    const mismatch = (d) =>
      errors(
        json,
        "VECTOR_SIZE_MISMATCH",
        `Length of vector parameter different from declared '$vector' dimension: root cause = (InvalidInputException) expected ${dimension}, got ${d.$vector?.length}`,
      );
    if (body.insertMany) {
      const insertedIds = [];
      const failed = [];
      for (const d of body.insertMany.documents ?? []) {
        if (!sizeOk(d)) return mismatch(d);
        const id = d._id ?? crypto.randomUUID();
        if (c.docs.has(String(id)))
          failed.push({ errorCode: "DOCUMENT_ALREADY_EXISTS", message: `Document already exists with the given _id`, id });
        else {
          c.docs.set(String(id), { ...d, _id: id });
          insertedIds.push(id);
        }
      }
      return json(200, { status: { insertedIds }, ...(failed.length ? { errors: failed } : {}) });
    }
    if (body.findOneAndReplace) {
      const { filter, replacement, options } = body.findOneAndReplace;
      if (!sizeOk(replacement)) return mismatch(replacement);
      const found = [...c.docs.values()].find((d) => matches(d, filter));
      if (!found && !options?.upsert) return json(200, { data: { document: null }, status: { matchedCount: 0, modifiedCount: 0 } });
      const id = found?._id ?? replacement._id ?? filter._id;
      c.docs.set(String(id), { ...replacement, _id: id });
      return json(200, { data: { document: null }, status: { matchedCount: found ? 1 : 0, modifiedCount: found ? 1 : 0 } });
    }
    if (body.find) {
      const { filter, sort, projection, options } = body.find;
      let docs = [...c.docs.values()].filter((d) => matches(d, filter));
      if (sort?.$vector) {
        if (sort.$vector.length !== dimension) return mismatch({ $vector: sort.$vector });
        const scored = docs.map((d) => ({ d, s: SIMILARITY[metric](sort.$vector, d.$vector) })).sort((a, b) => b.s - a.s);
        const limit = Math.min(options?.limit ?? 1000, 1000);
        return json(200, {
          data: {
            documents: scored.slice(0, limit).map(({ d, s }) => projected(d, projection, options?.includeSimilarity ? s : undefined)),
            nextPageState: null,
          },
        });
      }
      docs = docs.slice(0, Math.min(options?.limit ?? 20, 20));
      return json(200, { data: { documents: docs.map((d) => projected(d, projection)), nextPageState: null } });
    }
    if (body.deleteMany) {
      let deletedCount = 0;
      for (const [id, d] of c.docs) if (matches(d, body.deleteMany.filter)) c.docs.delete(id) && deletedCount++;
      return json(200, { status: { deletedCount } });
    }
    return errors(json, "UNKNOWN_COMMAND", `No "${Object.keys(body ?? {})[0]}" command found`);
  });
}
