// Milvus stand-in (RESTful API v2 on one loopback server) that really stores rows:
//   POST /v2/vectordb/collections/describe {collectionName}  → {code: 0, data: {fields, indexes, load, enableDynamicField}}
//                                                              (code 100 when missing)
//   POST /v2/vectordb/collections/create {collectionName, schema: {autoID, enableDynamicField, fields}, indexParams}
//   POST /v2/vectordb/collections/load, /partitions/has, /partitions/create {collectionName, partitionName}
//   POST /v2/vectordb/entities/insert|upsert {collectionName, data: [rows], partitionName?} → {code: 0, data: {…Count, …Ids}}
//   POST /v2/vectordb/entities/search {collectionName, data: [vector], annsField, limit, filter, outputFields}
//        → {code: 0, data: [{…fields, distance}]} (L2: squared distance, nearest first; IP, COSINE: highest first)
//   POST /v2/vectordb/entities/query {collectionName, filter, outputFields, limit}, /entities/delete {collectionName, filter}
// As Milvus, failures answer HTTP 200 with a non-zero code: 1800 for a missing `Authorization:
// Bearer user:password` or a password not starting "mv-" (collections named "open_…" are on a
// server without auth), 100 a missing collection, 101 one not loaded, 1100 an invalid parameter,
// 200 a missing partition. Filters: `f == v`, `f in [..]`, joined by and/&& (or/||). Collection
// "down" answers code 65535; "hang" never answers. GET /dump/NAME → the collection (for tests);
// GET /requests lists what was received.
//
// Requests are checked as Milvus documents them ("Milvus Limits", milvus.io/docs/limitations.md, and
// the search and query pages), each refusal code 1100 with a message naming the rule:
//   names     a collection, partition or field name: letters, digits and underscores, starting with a
//             letter or an underscore, at most 255 characters
//   rows      each fits the schema: the vector field's dim, every declared field given, a VarChar at
//             most its max_length bytes (65,535 at most), no undeclared field unless dynamic fields are on
//   search    limit a whole number 1..16384 (topk's limit), one vector of the field's dim; query: limit
//             1..16384 too
import { hang, serveStandin } from "./base.mjs";

const collections = new Map(); // name → {fields, dynamic, indexes, load, partitions: Set, rows: Map(pk → {row, partition})}
let nextAutoId = 450000000000000000n;

const fail = (json, code, message) => json(200, { code, message });
const ok = (json, data = {}) => json(200, { code: 0, data });

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_NAME = 255;
const MAX_TOP_K = 16_384;
const MAX_VARCHAR = 65_535;

/** Why Milvus refuses a collection, partition or field name ("Milvus Limits": naming rules), or undefined. */
function nameError(kind, name) {
  if (typeof name !== "string" || !name) return `Invalid ${kind} name: ${kind} name should not be empty`;
  if (name.length > MAX_NAME) return `Invalid ${kind} name: ${name}. the length of a ${kind} name must be less than ${MAX_NAME} characters`;
  if (!/^[A-Za-z_]/.test(name))
    return `Invalid ${kind} name: ${name}. the first character of a ${kind} name must be an underscore or letter`;
  if (!NAME.test(name)) return `Invalid ${kind} name: ${name}. ${kind} name can only contain numbers, letters and underscores`;
  return undefined;
}

/** Why Milvus refuses a search or query `limit` (topk at most 16384), or undefined. */
const limitError = (limit) =>
  limit === undefined || (Number.isInteger(limit) && limit >= 1 && limit <= MAX_TOP_K)
    ? undefined
    : `limit [${limit}] is invalid, it should be in range [1, ${MAX_TOP_K}]`;

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v) => Math.sqrt(dot(v, v));
const DISTANCE = {
  L2: (a, b) => a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0),
  IP: dot,
  COSINE: (a, b) => (norm(a) && norm(b) ? dot(a, b) / (norm(a) * norm(b)) : 0),
};

function clause(row, text) {
  const inList = /^(\w+)\s+in\s+(\[.*\])$/s.exec(text);
  if (inList) return JSON.parse(inList[2]).some((v) => String(v) === String(row[inList[1]]));
  const eq = /^(\w+)\s*==\s*(.+)$/s.exec(text);
  if (eq) return String(row[eq[1]]) === String(JSON.parse(eq[2]));
  throw new Error(`unsupported filter ${text}`);
}

const matches = (row, filter) =>
  !filter ||
  filter.split(/\s+(?:or|\|\|)\s+/i).some((any) =>
    any.split(/\s+(?:and|&&)\s+/i).every((c) =>
      clause(
        row,
        c
          .trim()
          .replace(/^\((.*)\)$/s, "$1")
          .trim(),
      ),
    ),
  );

function shape(c, row, outputFields) {
  const out = {};
  const primary = c.fields.find((f) => f.primaryKey).name;
  for (const f of outputFields ?? []) {
    if (f === "*") {
      for (const [k, v] of Object.entries(row)) if (!c.fields.some((x) => x.name === k && x.dim)) out[k] = v;
    } else if (f in row) out[f] = row[f];
  }
  out[primary] = row[primary];
  return out;
}

/** The row checked against the schema, or an error message. */
function checked(c, row, upsert) {
  const out = {};
  for (const f of c.fields) {
    if (f.primaryKey && f.autoId) {
      if (row[f.name] !== undefined && !upsert) return `the primary key ${f.name} is auto-generated: do not give it`;
      out[f.name] = String(nextAutoId++);
      continue;
    }
    const v = row[f.name];
    if (v === undefined || v === null) return `missing field ${f.name} in the row`;
    if (f.dim && (!Array.isArray(v) || v.length !== f.dim))
      return `the dim (${Array.isArray(v) ? v.length : 0}) of field data(${f.name}) is not equal to schema dim (${f.dim})`;
    if (f.type === "VarChar" && (typeof v !== "string" || Buffer.byteLength(v) > f.maxLength))
      return `field ${f.name}: a string of at most ${f.maxLength} bytes is needed`;
    out[f.name] = v;
  }
  for (const [k, v] of Object.entries(row)) {
    if (k in out || c.fields.some((f) => f.name === k)) continue;
    if (!c.dynamic) return `field ${k} does not exist in the collection's schema`;
    out[k] = v;
  }
  return out;
}

export function startMilvusStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const c = collections.get(decodeURIComponent(dump[1]));
      if (!c) return json(404, { message: "no such collection" });
      return json(200, { ...c, partitions: [...c.partitions], rows: [...c.rows.values()] });
    }
    const route = /^\/v2\/vectordb\/(collections|partitions|entities)\/(\w+)$/.exec(url.pathname);
    if (!route || req.method !== "POST") return json(404, { code: 404, message: `no route ${req.method} ${url.pathname}` });
    const name = String(body?.collectionName ?? "");
    if (!name.startsWith("open_")) {
      const token = /^Bearer (.*)$/.exec(String(req.headers.authorization ?? ""))?.[1] ?? "";
      if (!token) return fail(json, 1800, "user hasn't authenticated");
      if (!token.split(":")[1]?.startsWith("mv-"))
        return fail(json, 1800, "auth check failure, please check username and password are correct");
    }
    if (name === "down") return fail(json, 65535, "service unavailable: the query node is having a bad day");
    if (name === "hang") return hang(res);
    const op = `${route[1]}/${route[2]}`;
    const wrongName =
      nameError("collection", name) ?? (body?.partitionName === undefined ? undefined : nameError("partition", body.partitionName));
    if (wrongName) return fail(json, 1100, wrongName);
    const c = collections.get(name);
    if (op === "collections/create") {
      if (c) return ok(json);
      const fields = (body.schema?.fields ?? []).map((f) => ({
        name: f.fieldName,
        type: f.dataType,
        primaryKey: f.isPrimary === true,
        autoId: f.isPrimary === true && body.schema.autoID === true,
        ...(f.dataType === "FloatVector" ? { dim: Number(f.elementTypeParams?.dim) } : {}),
        ...(f.dataType === "VarChar" ? { maxLength: Number(f.elementTypeParams?.max_length) } : {}),
      }));
      for (const f of fields) {
        const wrong = nameError("field", f.name);
        if (wrong) return fail(json, 1100, wrong);
      }
      if (fields.some((f) => f.type === "VarChar" && f.maxLength > MAX_VARCHAR))
        return fail(json, 1100, `the maximum length specified for a VarChar should be in (0, ${MAX_VARCHAR}]`);
      if (fields.filter((f) => f.primaryKey).length !== 1) return fail(json, 1100, "the schema needs exactly one primary key");
      if (!fields.some((f) => f.dim > 0)) return fail(json, 1100, "the schema needs a vector field with a dim");
      if (fields.some((f) => f.type === "VarChar" && !(f.maxLength > 0)))
        return fail(json, 1100, "type param(max_length) should be specified");
      const indexes = (body.indexParams ?? []).map((i) => ({ fieldName: i.fieldName, indexName: i.indexName, metricType: i.metricType }));
      collections.set(name, {
        fields,
        dynamic: body.schema.enableDynamicField === true,
        indexes,
        load: indexes.length ? "LoadStateLoaded" : "LoadStateNotLoad",
        partitions: new Set(["_default"]),
        rows: new Map(),
      });
      return ok(json);
    }
    if (!c) return fail(json, 100, `collection not found[database=default][collection=${name}]`);
    if (op === "collections/describe")
      return ok(json, {
        collectionName: name,
        fields: c.fields.map(({ dim: _d, maxLength: _m, ...f }) => ({ ...f, partitionKey: false, description: "" })),
        indexes: c.indexes,
        load: c.load,
        enableDynamicField: c.dynamic,
      });
    if (op === "collections/load") {
      c.load = "LoadStateLoaded";
      return ok(json);
    }
    if (op === "partitions/has") return ok(json, { has: c.partitions.has(body.partitionName) });
    if (op === "partitions/create") {
      c.partitions.add(body.partitionName);
      return ok(json);
    }
    const primary = c.fields.find((f) => f.primaryKey).name;
    if (op === "entities/insert" || op === "entities/upsert") {
      const partition = body.partitionName ?? "_default";
      if (!c.partitions.has(partition)) return fail(json, 200, `partition not found[partition=${partition}]`);
      const rows = [];
      for (const r of body.data ?? []) {
        const row = checked(c, r, op === "entities/upsert");
        if (typeof row === "string") return fail(json, 1100, row);
        rows.push(row);
      }
      for (const row of rows) c.rows.set(String(row[primary]), { row, partition });
      const ids = rows.map((r) => r[primary]);
      return ok(json, op === "entities/insert" ? { insertCount: ids.length, insertIds: ids } : { upsertCount: ids.length, upsertIds: ids });
    }
    if (op === "entities/search") {
      const wrongLimit = limitError(body.limit);
      if (wrongLimit) return fail(json, 1100, wrongLimit);
      if (c.load !== "LoadStateLoaded") return fail(json, 101, `collection not loaded[collection=${name}]`);
      const field = c.fields.find((f) => f.name === body.annsField);
      if (!field?.dim) return fail(json, 1100, `annsField ${body.annsField} is not a vector field`);
      const [vector] = body.data ?? [];
      if (vector?.length !== field.dim) return fail(json, 1100, `vector dimension mismatch, expected vector size(byte) ${field.dim * 4}`);
      const metric = c.indexes.find((i) => i.fieldName === field.name)?.metricType ?? "L2";
      const hits = [...c.rows.values()]
        .filter(({ row }) => matches(row, body.filter))
        .map(({ row }) => ({ row, distance: DISTANCE[metric](vector, row[field.name]) }))
        .sort((a, b) => (metric === "L2" ? a.distance - b.distance : b.distance - a.distance))
        .slice(0, body.limit ?? 100);
      return ok(
        json,
        hits.map(({ row, distance }) => ({ ...shape(c, row, body.outputFields), distance })),
      );
    }
    if (op === "entities/query") {
      const wrongLimit = limitError(body.limit);
      if (wrongLimit) return fail(json, 1100, wrongLimit);
      const rows = [...c.rows.values()].filter(({ row }) => matches(row, body.filter)).slice(0, body.limit ?? 100);
      return ok(
        json,
        rows.map(({ row }) => shape(c, row, body.outputFields)),
      );
    }
    if (op === "entities/delete") {
      if (!body.filter) return fail(json, 1100, "filter is needed");
      for (const [id, { row }] of c.rows) if (matches(row, body.filter)) c.rows.delete(id);
      return ok(json);
    }
    return json(404, { code: 404, message: `no route ${url.pathname}` });
  });
}
