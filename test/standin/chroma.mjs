// Chroma stand-in (REST API v2, as Flowise's chromadb 3 client speaks it) that really stores records:
//   POST /api/v2/tenants/T/databases/D/collections {name, get_or_create}  → {id, name, tenant, database, …}
//        (409 when it exists and get_or_create is not set)
//   GET  /api/v2/tenants/T/databases/D/collections/NAME_OR_ID             → the collection (404 when missing)
//   POST …/collections/ID/upsert|add {ids, embeddings, metadatas, documents} → {}
//   POST …/collections/ID/query {query_embeddings, n_results, where, include} → {ids: [[…]], distances: [[…]], …}
//   POST …/collections/ID/get {ids, where, include}                        → {ids, documents, metadatas, …}
//   POST …/collections/ID/delete {ids | where}                             → {}
// Distances are squared L2 (Chroma's default space), nearest first. `where`: {key: value},
// {key: {$eq|$ne|$gt|$gte|$lt|$lte|$in|$nin: …}}, {$and: […]}, {$or: […]}. Metadata values must be
// scalars (400 otherwise); embeddings must have the collection's dimension, fixed by its first write
// (400). Errors answer as Chroma's do: {error, message}. Auth (token auth on): no `x-chroma-token`
// → 401, one not starting "ck-" → 403, except for collections named "open-…". Tenant "nobody" does
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
    if (op === "upsert" || op === "add") {
      for (const [i, v] of body.embeddings.entries()) {
        if (c.dimension !== undefined && v.length !== c.dimension) return dimensionError(v);
        const m = body.metadatas?.[i];
        if (m && Object.values(m).some((x) => x !== null && typeof x === "object"))
          return error(400, "InvalidArgumentError", "Expected metadata value to be a str, int, float, bool or None");
      }
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
    if (op === "query") {
      const v = body.query_embeddings[0];
      if (c.dimension !== undefined && v.length !== c.dimension) return dimensionError(v);
      const found = [...c.records.values()]
        .filter((r) => !body.where || matches(r.metadata, body.where))
        .map((r) => ({ r, d: l2(v, r.embedding) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, body.n_results ?? 10);
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
