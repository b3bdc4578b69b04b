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
import { hang, serveStandin } from "./base.mjs";

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
    if (op === "/vectors/upsert" && req.method === "POST") {
      const ns = nsOf(index, body.namespace);
      for (const v of body.vectors) {
        const other = ns.values().next().value;
        if (other && other.values.length !== v.values.length)
          return json(400, {
            error: {
              code: "INVALID_ARGUMENT",
              message: `Vector dimension ${v.values.length} does not match the dimension of the index ${other.values.length}`,
            },
          });
        ns.set(v.id, { id: v.id, values: v.values, metadata: v.metadata ?? {} });
      }
      return json(200, { upsertedCount: body.vectors.length });
    }
    if (op === "/query" && req.method === "POST") {
      const ns = nsOf(index, body.namespace);
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
      const ns = nsOf(index, url.searchParams.get("namespace") ?? "");
      const vectors = {};
      for (const id of url.searchParams.getAll("ids")) if (ns.has(id)) vectors[id] = ns.get(id);
      return json(200, { vectors, namespace: url.searchParams.get("namespace") ?? "" });
    }
    if (op === "/vectors/delete" && req.method === "POST") {
      const ns = nsOf(index, body.namespace);
      if (body.deleteAll) ns.clear();
      for (const id of body.ids ?? []) ns.delete(id);
      return json(200, {});
    }
    if (op === "/describe_index_stats" && req.method === "POST") {
      const namespaces = Object.fromEntries([...(indexes.get(index) ?? new Map())].map(([n, m]) => [n, { vectorCount: m.size }]));
      return json(200, { namespaces });
    }
    return json(404, { error: { code: "NOT_FOUND", message: `no route ${req.method} ${url.pathname}` } });
  });
}
