// Pinecone stand-in (control plane + data plane in one loopback server) that really stores vectors:
//   GET  /indexes/NAME                        describe_index → {name, dimension, metric, host: "127.0.0.1:PORT/idx/NAME"}
//   POST /idx/NAME/vectors/upsert {vectors, namespace}           → {upsertedCount}
//   POST /idx/NAME/query {vector, topK, namespace, filter, includeMetadata} → {matches} by cosine, filtered
//   GET  /idx/NAME/vectors/fetch?ids=…&namespace=…               → {vectors: {id: {id, values, metadata}}}
//   POST /idx/NAME/vectors/delete {ids | deleteAll, namespace}   → {}
// Every call needs an Api-Key header (401 otherwise). Index "missing" → 404; index "down" answers 500
// on the data plane; index "hang" never answers there; index "metadata" is described with the cloud
// metadata address as its host (an answer the outbound policy must refuse). GET /requests lists
// what was received.
//
// Requests are checked as Pinecone's data plane documents them (docs.pinecone.io: "Upsert limits",
// "Known limitations", "Filter by metadata"; the 2025-01 data plane OpenAPI spec), a refusal answering
// 400 with Pinecone's own shape {code: 3, message, details: []}:
//   upsert  1..1000 vectors; at most 2 MB as the docs' batch table counts it (4 bytes a dimension plus
//           the metadata: 1536 dimensions with 2000 bytes of metadata fit 245 to a batch); ids
//           non-empty strings of at most 512 characters; values numbers, as many as the namespace's
//           vectors have; metadata a flat object of strings, finite numbers, booleans and lists of
//           strings (no null, no nested object), at most 40960 bytes a vector
//   query   topK a whole number 1..10000; the vector as long as the namespace's; a filter in
//           Pinecone's language ($eq $ne on strings, numbers, booleans; $gt $gte $lt $lte on numbers;
//           $in $nin on lists of strings or numbers; $exists on booleans; $and $or on lists of filters)
//   fetch, delete  at most 1000 ids (delete: 1..1000 unless deleteAll)
// (The stand-in keeps a dimension per namespace, fixed by its first upsert.)
import { hang, serveStandin } from "./base.mjs";

const MAX_BATCH = 1000;
const MAX_REQUEST_BYTES = 2_000_000;
const MAX_METADATA_BYTES = 40_960;
const MAX_ID_CHARS = 512;
const MAX_TOP_K = 10_000;
const bytes = (value) => Buffer.byteLength(JSON.stringify(value), "utf8");
const isPlainObject = (v) => !!v && typeof v === "object" && !Array.isArray(v);

/** Why Pinecone refuses one vector's metadata, or undefined. */
function metadataError(metadata) {
  if (metadata === undefined) return undefined;
  if (!isPlainObject(metadata)) return "Metadata must be a JSON object";
  for (const [key, value] of Object.entries(metadata)) {
    const scalar = typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
    const strings = Array.isArray(value) && value.every((x) => typeof x === "string");
    if (!scalar && !strings)
      return `Metadata value must be a string, number, boolean or list of strings, got '${JSON.stringify(value)}' for field '${key}'`;
  }
  const size = bytes(metadata);
  if (size > MAX_METADATA_BYTES) return `Metadata size is ${size} bytes, which exceeds the limit of ${MAX_METADATA_BYTES} bytes per vector`;
  return undefined;
}

/** Why Pinecone refuses an upsert body (`dimension`: the namespace's, when it has vectors), or undefined. */
function upsertError(body, dimension) {
  const vectors = body?.vectors;
  if (!Array.isArray(vectors) || !vectors.length) return "vectors must be a non-empty list";
  if (vectors.length > MAX_BATCH) return `Request contains ${vectors.length} vectors; the limit is ${MAX_BATCH} vectors per upsert`;
  let size = 0;
  for (const v of vectors) {
    if (typeof v?.id !== "string" || !v.id) return "Vector ID must be a non-empty string";
    if (v.id.length > MAX_ID_CHARS) return `Vector ID ${v.id.slice(0, 20)}… is ${v.id.length} characters; the limit is ${MAX_ID_CHARS}`;
    if (!Array.isArray(v.values) || !v.values.length || !v.values.every((x) => typeof x === "number" && Number.isFinite(x)))
      return `Vector ${v.id} must have dense values: a non-empty list of numbers`;
    const want = dimension ?? vectors[0].values.length;
    if (v.values.length !== want) return `Vector dimension ${v.values.length} does not match the dimension of the index ${want}`;
    const wrong = metadataError(v.metadata);
    if (wrong) return wrong;
    size += 4 * v.values.length + (v.metadata === undefined ? 0 : bytes(v.metadata));
  }
  if (size > MAX_REQUEST_BYTES) return `Request size ${size} bytes exceeds the limit of ${MAX_REQUEST_BYTES} bytes per upsert`;
  return undefined;
}

const COMPARISONS = new Set(["$gt", "$gte", "$lt", "$lte"]);
const EQUALITIES = new Set(["$eq", "$ne"]);
const SETS = new Set(["$in", "$nin"]);

/** Why Pinecone refuses a metadata filter, or undefined. */
function filterError(filter) {
  if (!isPlainObject(filter)) return "filter must be a JSON object";
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(cond) || !cond.length) return `${key} takes a non-empty list of filters`;
      for (const f of cond) {
        const wrong = filterError(f);
        if (wrong) return wrong;
      }
      continue;
    }
    if (key.startsWith("$")) return `illegal condition: unknown operator ${key} at the top of a filter`;
    // A bare value is $eq.
    const ops = isPlainObject(cond) ? cond : { $eq: cond };
    for (const [op, arg] of Object.entries(ops)) {
      const scalar = typeof arg === "string" || typeof arg === "boolean" || typeof arg === "number";
      if (EQUALITIES.has(op) && !scalar) return `illegal condition for field ${key}: ${op} takes a string, number or boolean`;
      else if (COMPARISONS.has(op) && typeof arg !== "number") return `illegal condition for field ${key}: ${op} takes a number`;
      else if (SETS.has(op) && !(Array.isArray(arg) && arg.every((x) => typeof x === "string" || typeof x === "number")))
        return `illegal condition for field ${key}: ${op} takes a list of strings or numbers`;
      else if (op === "$exists" && typeof arg !== "boolean") return `illegal condition for field ${key}: $exists takes a boolean`;
      else if (!EQUALITIES.has(op) && !COMPARISONS.has(op) && !SETS.has(op) && op !== "$exists")
        return `illegal condition for field ${key}: unknown operator ${op}`;
    }
  }
  return undefined;
}

/** Why Pinecone refuses a query body (`dimension`: the namespace's, when it has vectors), or undefined. */
function queryError(body, dimension) {
  if (!Number.isInteger(body?.topK) || body.topK < 1 || body.topK > MAX_TOP_K) return `topK must be a whole number from 1 to ${MAX_TOP_K}`;
  if (!Array.isArray(body.vector) || !body.vector.length) return "a query needs a vector";
  if (dimension !== undefined && body.vector.length !== dimension)
    return `Query vector dimension ${body.vector.length} does not match the dimension of the index ${dimension}`;
  return body.filter === undefined ? undefined : filterError(body.filter);
}

const indexes = new Map(); // index → namespace → Map(id → {id, values, metadata})

const nsOf = (index, namespace = "") => {
  if (!indexes.has(index)) indexes.set(index, new Map());
  const spaces = indexes.get(index);
  if (!spaces.has(namespace)) spaces.set(namespace, new Map());
  return spaces.get(namespace);
};

function cosine(a, b) {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Pinecone's metadata filter language: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or, or a bare value. */
function matches(metadata, filter) {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === "$and") return cond.every((f) => matches(metadata, f));
    if (key === "$or") return cond.some((f) => matches(metadata, f));
    const value = metadata[key];
    const ops = cond && typeof cond === "object" && !Array.isArray(cond) ? cond : { $eq: cond };
    const eq = (v) => (Array.isArray(value) ? value.includes(v) : value === v);
    return Object.entries(ops).every(([op, arg]) => {
      switch (op) {
        case "$eq":
          return eq(arg);
        case "$ne":
          return !eq(arg);
        case "$gt":
          return value > arg;
        case "$gte":
          return value >= arg;
        case "$lt":
          return value < arg;
        case "$lte":
          return value <= arg;
        case "$in":
          return arg.some(eq);
        case "$nin":
          return !arg.some(eq);
        case "$exists":
          return (value !== undefined) === arg;
        default:
          throw new Error(`unsupported filter operator ${op}`);
      }
    });
  });
}

export function startPineconeStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    if (!req.headers["api-key"]) return json(401, { error: { code: "UNAUTHENTICATED", message: "Invalid API Key" } });
    const described = /^\/indexes\/([^/]+)$/.exec(url.pathname);
    if (described && req.method === "GET") {
      const name = decodeURIComponent(described[1]);
      if (name === "missing") return json(404, { error: { code: "NOT_FOUND", message: `Resource ${name} not found` }, status: 404 });
      if (name === "metadata")
        return json(200, { name, dimension: 0, metric: "cosine", host: "169.254.169.254/latest", status: { ready: true, state: "Ready" } });
      return json(200, {
        name,
        dimension: 0,
        metric: "cosine",
        host: `${req.headers.host}/idx/${encodeURIComponent(name)}`,
        status: { ready: true, state: "Ready" },
      });
    }
    const data = /^\/idx\/([^/]+)(\/.*)$/.exec(url.pathname);
    if (!data) return json(404, { error: { code: "NOT_FOUND", message: `no route ${url.pathname}` } });
    const index = decodeURIComponent(data[1]);
    const op = data[2];
    if (index === "down") return json(500, { error: { code: "INTERNAL", message: "the index is having a bad day" } });
    if (index === "hang") return hang(res);
    // Pinecone's data plane answers a refused request with its gRPC status: code 3 is INVALID_ARGUMENT.
    const invalid = (message) => json(400, { code: 3, message, details: [] });
    const dimensionOf = (ns) => ns.values().next().value?.values.length;
    if (op === "/vectors/upsert" && req.method === "POST") {
      const ns = nsOf(index, body?.namespace);
      const wrong = upsertError(body, dimensionOf(ns));
      if (wrong) return invalid(wrong);
      for (const v of body.vectors) ns.set(v.id, { id: v.id, values: v.values, metadata: v.metadata ?? {} });
      return json(200, { upsertedCount: body.vectors.length });
    }
    if (op === "/query" && req.method === "POST") {
      const ns = nsOf(index, body?.namespace);
      const wrong = queryError(body, dimensionOf(ns));
      if (wrong) return invalid(wrong);
      const scored = [...ns.values()]
        .filter((v) => !body.filter || matches(v.metadata, body.filter))
        .map((v) => ({
          id: v.id,
          score: cosine(v.values, body.vector),
          ...(body.includeMetadata ? { metadata: v.metadata } : {}),
          ...(body.includeValues ? { values: v.values } : { values: [] }),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, body.topK);
      return json(200, { matches: scored, namespace: body.namespace ?? "", usage: { readUnits: 1 } });
    }
    if (op === "/vectors/fetch" && req.method === "GET") {
      const ids = url.searchParams.getAll("ids");
      if (ids.length > MAX_BATCH) return invalid(`Request contains ${ids.length} ids; the limit is ${MAX_BATCH} ids per fetch`);
      const ns = nsOf(index, url.searchParams.get("namespace") ?? "");
      const vectors = {};
      for (const id of ids) if (ns.has(id)) vectors[id] = ns.get(id);
      return json(200, { vectors, namespace: url.searchParams.get("namespace") ?? "" });
    }
    if (op === "/vectors/delete" && req.method === "POST") {
      const ids = body?.ids;
      if (!body?.deleteAll && !body?.filter && (!Array.isArray(ids) || !ids.length || ids.length > MAX_BATCH))
        return invalid(`ids must list 1 to ${MAX_BATCH} vector ids (or deleteAll, or a filter)`);
      const ns = nsOf(index, body.namespace);
      if (body.deleteAll) ns.clear();
      for (const id of ids ?? []) ns.delete(id);
      return json(200, {});
    }
    if (op === "/describe_index_stats" && req.method === "POST") {
      const namespaces = Object.fromEntries([...(indexes.get(index) ?? new Map())].map(([n, m]) => [n, { vectorCount: m.size }]));
      return json(200, { namespaces });
    }
    return json(404, { error: { code: "NOT_FOUND", message: `no route ${req.method} ${url.pathname}` } });
  });
}
