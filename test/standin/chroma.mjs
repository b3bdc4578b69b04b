// Chroma stand-in (REST API v2, as Flowise's chromadb 3 client speaks it) that really stores records:
//   POST /api/v2/tenants/T/databases/D/collections {name, get_or_create}  → {id, name, tenant, database, …}
//        (409 when it exists and get_or_create is not set)
//   GET  /api/v2/tenants/T/databases/D/collections/NAME_OR_ID             → the collection (404 when missing)
//   POST …/collections/ID/upsert|add {ids, embeddings, metadatas, documents} → {}
//   POST …/collections/ID/query {query_embeddings, n_results, where, include} → {ids: [[…]], distances: [[…]], …}
//   POST …/collections/ID/get {ids, where, include}                        → {ids, documents, metadatas, …}
//   POST …/collections/ID/delete {ids | where}                             → {}
// Distances are squared L2 (Chroma's default space), nearest first; embeddings must have the
// collection's dimension, fixed by its first write (400). Requests are checked as Chroma's server
// checks them (its Rust frontend: where_parsing.rs, validators.rs, the v2 upsert payload), a refusal
// a 400 InvalidArgumentError:
//   `where`  exactly one key at each level: {key: scalar}, {key: {op: operand}} with one operator
//            ($eq $ne on strings, numbers, booleans; $gt $gte $lt $lte on numbers; $in $nin on
//            non-empty lists of one type), {$and: […]} or {$or: […]}; two keys side by side are refused
//   upsert   ids, embeddings and (when given) metadatas and documents of one length; metadata keys
//            non-empty, not starting with # or $; values strings, numbers, booleans or null (null
//            removes a key on upsert), never objects or lists
// and within Chroma Cloud's quotas (docs.trychroma.com/cloud/quotas-limits; a self-hosted server's
// are looser, so a request within them suits both): 300 records a write, 300 results a query, ids of
// 128 bytes, documents of 16,384 bytes, 32 metadata keys of 36 bytes, metadata values of 4,096 bytes,
// 8 where predicates, 4,096 dimensions. Errors answer as Chroma's do: {error, message}. Auth (token
// auth on): no `x-chroma-token` → 401, one not starting "ck-" → 403, except for collections named
// "open-…". Tenant "nobody" does
// not exist (404). Collection "down" answers 500, "hang" never answers. GET /dump/T/D/NAME →
// {id, records} (for tests); GET /requests lists what was received.
import { randomUUID } from "node:crypto";
import { hang, serveStandin } from "./base.mjs";

const collections = new Map(); // "T/D/NAME" → {id, name, tenant, database, dimension, records: Map(id → record)}
const byId = new Map(); // id → collection

const l2 = (a, b) => a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0);
const CMP = {
  $eq: (v, x) => v === x,
  $ne: (v, x) => v !== x,
  $gt: (v, x) => v > x,
  $gte: (v, x) => v >= x,
  $lt: (v, x) => v < x,
  $lte: (v, x) => v <= x,
  $in: (v, x) => x.includes(v),
  $nin: (v, x) => !x.includes(v),
};

function matches(metadata, where) {
  return Object.entries(where).every(([key, cond]) => {
    if (key === "$and") return cond.every((c) => matches(metadata, c));
    if (key === "$or") return cond.some((c) => matches(metadata, c));
    const v = metadata?.[key];
    if (cond && typeof cond === "object" && !Array.isArray(cond))
      return Object.entries(cond).every(([op, x]) => {
        if (!CMP[op]) throw new Error(`unsupported operator ${op}`);
        return v !== undefined && CMP[op](v, x);
      });
    return v === cond;
  });
}

const isObject = (v) => !!v && typeof v === "object" && !Array.isArray(v);
const utf8Bytes = (text) => Buffer.byteLength(text, "utf8");
// Chroma Cloud's quotas (docs.trychroma.com/cloud/quotas-limits).
const QUOTA = {
  recordsPerWrite: 300,
  results: 300,
  idBytes: 128,
  documentBytes: 16_384,
  metadataKeys: 32,
  metadataKeyBytes: 36,
  metadataValueBytes: 4_096,
  wherePredicates: 8,
  dimensions: 4_096,
};
const SCALAR_OPS = new Set(["$eq", "$ne"]);
const NUMBER_OPS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);
const DOCUMENT_OPS = new Set(["$contains", "$not_contains", "$regex", "$not_regex"]);

/** The predicates of a `where` Chroma's server reads (counted), or a string saying why it refuses it. */
function wherePredicates(where) {
  if (!isObject(where) || Object.keys(where).length !== 1)
    return `Invalid where clause: expected exactly one key, got ${JSON.stringify(where)}`;
  const [[key, value]] = Object.entries(where);
  if (key === "$and" || key === "$or") {
    if (!Array.isArray(value)) return `Invalid where clause: ${key} takes a list`;
    let n = 0;
    for (const child of value) {
      const m = wherePredicates(child);
      if (typeof m === "string") return m;
      n += m;
    }
    return n;
  }
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "number") return 1;
  if (!isObject(value) || Object.keys(value).length !== 1) return `Invalid where clause: ${key} needs one value or one {operator: operand}`;
  const [[op, operand]] = Object.entries(value);
  const ok = Array.isArray(operand)
    ? (op === "$in" || op === "$nin") &&
      operand.length > 0 &&
      ["string", "number", "boolean"].includes(typeof operand[0]) &&
      operand.every((x) => typeof x === typeof operand[0])
    : typeof operand === "number"
      ? NUMBER_OPS.has(op)
      : typeof operand === "string"
        ? SCALAR_OPS.has(op) || DOCUMENT_OPS.has(op)
        : typeof operand === "boolean" && SCALAR_OPS.has(op);
  return ok ? 1 : `Invalid where clause: ${op} cannot take ${JSON.stringify(operand)} (for ${key})`;
}

/** Why Chroma refuses a `where`, or undefined. */
function whereError(where) {
  if (where === undefined || where === null) return undefined;
  const n = wherePredicates(where);
  if (typeof n === "string") return n;
  return n > QUOTA.wherePredicates ? `Quota exceeded: ${n} where predicates; the limit is ${QUOTA.wherePredicates}` : undefined;
}

/** Why Chroma refuses an upsert or add body, or undefined. */
function upsertError(body) {
  const { ids, embeddings, metadatas, documents } = body ?? {};
  if (!Array.isArray(ids) || !Array.isArray(embeddings)) return "ids and embeddings are required";
  for (const [name, list] of Object.entries({ embeddings, metadatas, documents }))
    if (list !== undefined && list !== null && list.length !== ids.length)
      return `Inconsistent number of records: ${ids.length} ids, ${list.length} ${name}`;
  if (ids.length > QUOTA.recordsPerWrite)
    return `Quota exceeded: ${ids.length} records in one write; the limit is ${QUOTA.recordsPerWrite}`;
  for (const [i, id] of ids.entries()) {
    if (typeof id !== "string" || !id) return "Expected ids to be non-empty strings";
    if (utf8Bytes(id) > QUOTA.idBytes) return `Quota exceeded: an id of ${utf8Bytes(id)} bytes; the limit is ${QUOTA.idBytes}`;
    const v = embeddings[i];
    if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === "number"))
      return `Expected embedding ${i} to be a non-empty list of numbers`;
    if (v.length > QUOTA.dimensions) return `Quota exceeded: ${v.length} dimensions; the limit is ${QUOTA.dimensions}`;
    const d = documents?.[i];
    if (typeof d === "string" && utf8Bytes(d) > QUOTA.documentBytes)
      return `Quota exceeded: a document of ${utf8Bytes(d)} bytes; the limit is ${QUOTA.documentBytes}`;
    const m = metadatas?.[i];
    if (m === undefined || m === null) continue;
    if (!isObject(m)) return `Invalid metadata at index ${i}`;
    const keys = Object.keys(m);
    if (keys.length > QUOTA.metadataKeys) return `Quota exceeded: ${keys.length} metadata keys; the limit is ${QUOTA.metadataKeys}`;
    for (const key of keys) {
      const value = m[key];
      if (!key || key.startsWith("#") || key.startsWith("$"))
        return `Invalid metadata at index ${i}: Metadata key cannot start with '#' or '$': ${key}`;
      if (utf8Bytes(key) > QUOTA.metadataKeyBytes)
        return `Quota exceeded: a metadata key of ${utf8Bytes(key)} bytes; the limit is ${QUOTA.metadataKeyBytes}`;
      if (value !== null && typeof value === "object") return "Expected metadata value to be a str, int, float, bool or None";
      if (typeof value === "string" && utf8Bytes(value) > QUOTA.metadataValueBytes)
        return `Quota exceeded: a metadata value of ${utf8Bytes(value)} bytes (${key}); the limit is ${QUOTA.metadataValueBytes}`;
    }
  }
  return undefined;
}

const shape = (c) => ({
  id: c.id,
  name: c.name,
  tenant: c.tenant,
  database: c.database,
  metadata: null,
  configuration_json: {},
  dimension: c.dimension ?? null,
});

export function startChromaStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const error = (status, name, message) => json(status, { error: name, message });
    const dump = /^\/dump\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const c = collections.get(dump.slice(1, 4).map(decodeURIComponent).join("/"));
      return c ? json(200, { id: c.id, records: [...c.records.values()] }) : error(404, "NotFoundError", "no such collection");
    }
    const route = /^\/api\/v2\/tenants\/([^/]+)\/databases\/([^/]+)\/collections(?:\/([^/]+)(?:\/(upsert|add|query|get|delete))?)?$/.exec(
      url.pathname,
    );
    if (!route) return error(404, "NotFoundError", `no route ${req.method} ${url.pathname}`);
    const [tenant, database, target, op] = [decodeURIComponent(route[1]), decodeURIComponent(route[2]), route[3], route[4]];
    const known = target ? (byId.get(target) ?? collections.get(`${tenant}/${database}/${decodeURIComponent(target)}`)) : undefined;
    const name = target ? (known?.name ?? decodeURIComponent(target)) : String(body?.name ?? "");
    if (!name.startsWith("open-")) {
      const token = req.headers["x-chroma-token"];
      if (!token) return error(401, "AuthError", "Unauthorized");
      if (!String(token).startsWith("ck-")) return error(403, "AuthError", "Forbidden");
    }
    if (tenant === "nobody") return error(404, "NotFoundError", `Tenant [${tenant}] not found`);
    if (name === "down") return error(500, "InternalError", "the segment is having a bad day");
    if (name === "hang") return hang(res);
    if (!target && req.method === "POST") {
      if (!name) return error(400, "InvalidArgumentError", "name is required");
      const key = `${tenant}/${database}/${name}`;
      const c = collections.get(key);
      if (c && !body.get_or_create) return error(409, "UniqueConstraintError", `Collection [${name}] already exists`);
      if (c) return json(200, shape(c));
      const made = { id: randomUUID(), name, tenant, database, dimension: undefined, records: new Map() };
      collections.set(key, made);
      byId.set(made.id, made);
      return json(200, shape(made));
    }
    if (!known || known.tenant !== tenant || known.database !== database)
      return error(404, "NotFoundError", `Collection [${decodeURIComponent(target ?? "")}] does not exist`);
    const c = known;
    if (!op && req.method === "GET") return json(200, shape(c));
    if (req.method !== "POST") return error(405, "MethodNotAllowed", "method not allowed");
    const dimensionError = (v) =>
      error(400, "InvalidArgumentError", `Collection expecting embedding with dimension of ${c.dimension}, got ${v.length}`);
    const refuse = (message) => error(400, "InvalidArgumentError", message);
    if (op === "upsert" || op === "add") {
      const wrong = upsertError(body);
      if (wrong) return refuse(wrong);
      for (const v of body.embeddings) if (c.dimension !== undefined && v.length !== c.dimension) return dimensionError(v);
      c.dimension ??= body.embeddings[0]?.length;
      for (const [i, id] of body.ids.entries())
        c.records.set(id, {
          id,
          embedding: body.embeddings[i],
          metadata: body.metadatas?.[i] ?? null,
          document: body.documents?.[i] ?? null,
        });
      return json(200, {});
    }
    const include = body.include ?? ["documents", "metadatas"];
    const pick = (list, field) => (include.includes(field) ? list : null);
    const wrongWhere = whereError(body?.where);
    if (wrongWhere) return refuse(wrongWhere);
    if (op === "query") {
      const n = body.n_results ?? 10;
      if (!Number.isInteger(n) || n < 1) return refuse(`Number of requested results ${n}, cannot be negative, or zero.`);
      if (n > QUOTA.results) return refuse(`Quota exceeded: ${n} results requested; the limit is ${QUOTA.results}`);
      const v = body.query_embeddings[0];
      if (c.dimension !== undefined && v.length !== c.dimension) return dimensionError(v);
      const found = [...c.records.values()]
        .filter((r) => !body.where || matches(r.metadata, body.where))
        .map((r) => ({ r, d: l2(v, r.embedding) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, n);
      return json(200, {
        ids: [found.map((f) => f.r.id)],
        distances: pick([found.map((f) => f.d)], "distances"),
        documents: pick([found.map((f) => f.r.document)], "documents"),
        metadatas: pick([found.map((f) => f.r.metadata)], "metadatas"),
        embeddings: pick([found.map((f) => f.r.embedding)], "embeddings"),
        include,
      });
    }
    const selected = [...c.records.values()].filter(
      (r) => (!body.ids || body.ids.includes(r.id)) && (!body.where || matches(r.metadata, body.where)),
    );
    if (op === "get")
      return json(200, {
        ids: selected.map((r) => r.id),
        documents: pick(
          selected.map((r) => r.document),
          "documents",
        ),
        metadatas: pick(
          selected.map((r) => r.metadata),
          "metadatas",
        ),
        include,
      });
    if (op === "delete") {
      if (!body.ids && !body.where) return error(400, "InvalidArgumentError", "ids or where is required");
      for (const r of selected) c.records.delete(r.id);
      return json(200, {});
    }
    return error(404, "NotFoundError", `no route ${req.method} ${url.pathname}`);
  });
}
