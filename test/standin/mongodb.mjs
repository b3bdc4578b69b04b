// A small MongoDB stand-in: OP_MSG (opcode 2013, kind-0 sections) over TCP with its own BSON
// (written apart from src/providers/mongodb/bson.ts, so each checks the other), two members of a
// replica set "rs0" sharing one store — a primary and a secondary whose `hello` names the primary
// and which refuses writes (NotWritablePrimary) — and SCRAM-SHA-256 that really checks the
// client's proof (user MONGO_USER / MONGO_PASSWORD in admin; user "sha1only" offers SCRAM-SHA-1
// only; a wrong proof is code 18 AuthenticationFailed). Commands: hello / isMaster / ismaster,
// ping, saslStart, saslContinue, insert (duplicate _id: write error 11000), find and getMore
// (cursors answer 3 documents a batch unless batchSize says otherwise), update ($set, $push with
// $each, replacement; upsert), delete, killCursors, endSessions, and aggregate with Atlas's
// $vectorSearch (cosine over the stored arrays, score (1 + cos) / 2 as Atlas's, filter by
// equality, $eq, $ne, $in, $nin, $gt(e), $lt(e), $and, $or; limit), $set / $addFields / $project with
// {$meta: "vectorSearchScore"}, $match, $limit. Index "down" fails the search; any other command is
// CommandNotFound (59). Refused as MongoDB refuses them: a command body over 16 MiB + 16 KiB
// (BSONObjectTooLarge 10334: our client sends documents in the body, not in document sequences), an
// inserted document over 16 MiB (a write error, BadValue), an update whose resulting document is over
// 16 MiB (write error 17419), $push to a field that is not an array (write error, BadValue), a
// replacement of a stored document with a $-prefixed top-level field (DollarPrefixedFieldName 52),
// $vectorSearch without limit ≤ numCandidates ≤ 10,000, and a $vectorSearch filter comparing with a
// document or an array (7828301, mongod's check).
// HTTP side: GET /requests?collection=<name> (commands naming that collection, vectors shown as
// {doubles, length}), GET /dump/<db>/<collection> (documents in extended JSON), POST
// /seed/<db>/<collection> (one document in extended JSON stored as is; ?padTo=<bytes> adds a `pad`
// string to that BSON size), and a DNS-over-HTTPS JSON stand-in, GET /dns-query?name=&type=SRV|TXT,
// answering for *.edgeflow.test (below).
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";

export const MONGO_USER = "edgeflow";
export const MONGO_PASSWORD = "mongo-standin-Secret1";
const ITERATIONS = 4096;

class ObjectId {
  constructor(hex = randomBytes(12).toString("hex")) {
    this.hex = hex;
  }
}
class Long {
  constructor(v) {
    this.v = BigInt(v);
  }
}
class Timestamp {
  constructor(t, i) {
    Object.assign(this, { t, i });
  }
}
class Bin {
  constructor(buf, subtype = 0) {
    Object.assign(this, { buf, subtype });
  }
}

// ---- BSON ----
function encode(doc) {
  const parts = [];
  for (const [k, v] of Object.entries(doc)) {
    if (v === undefined) continue;
    const key = Buffer.concat([Buffer.from(k), Buffer.from([0])]);
    const el = (type, body) => parts.push(Buffer.from([type]), key, body);
    if (v === null) el(0x0a, Buffer.alloc(0));
    else if (typeof v === "number") {
      if (Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) {
        const b = Buffer.alloc(4);
        b.writeInt32LE(v);
        el(0x10, b);
      } else {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(v);
        el(0x01, b);
      }
    } else if (typeof v === "string") {
      const s = Buffer.from(v);
      const b = Buffer.alloc(4);
      b.writeInt32LE(s.length + 1);
      el(0x02, Buffer.concat([b, s, Buffer.from([0])]));
    } else if (typeof v === "boolean") el(0x08, Buffer.from([v ? 1 : 0]));
    else if (v instanceof Date) {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(v.getTime()));
      el(0x09, b);
    } else if (v instanceof ObjectId) el(0x07, Buffer.from(v.hex, "hex"));
    else if (v instanceof Long) {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(v.v);
      el(0x12, b);
    } else if (v instanceof Timestamp) {
      const b = Buffer.alloc(8);
      b.writeUInt32LE(v.i, 0);
      b.writeUInt32LE(v.t, 4);
      el(0x11, b);
    } else if (v instanceof Bin || Buffer.isBuffer(v)) {
      const bin = v instanceof Bin ? v : new Bin(v);
      const b = Buffer.alloc(5);
      b.writeInt32LE(bin.buf.length);
      b[4] = bin.subtype;
      el(0x05, Buffer.concat([b, bin.buf]));
    } else if (Array.isArray(v)) el(0x04, encode(Object.fromEntries(v.map((x, i) => [String(i), x]))));
    else el(0x03, encode(v));
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(4);
  head.writeInt32LE(body.length + 5);
  return Buffer.concat([head, body, Buffer.from([0])]);
}

function decode(buf, at = 0, asArray = false) {
  const size = buf.readInt32LE(at);
  const end = at + size - 1;
  const out = asArray ? [] : {};
  let p = at + 4;
  let allDoubles = true;
  while (p < end) {
    const type = buf[p++];
    const z = buf.indexOf(0, p);
    const key = buf.subarray(p, z).toString();
    p = z + 1;
    let v;
    if (type !== 0x01) allDoubles = false;
    switch (type) {
      case 0x01:
        v = buf.readDoubleLE(p);
        p += 8;
        break;
      case 0x02: {
        const n = buf.readInt32LE(p);
        v = buf.subarray(p + 4, p + 4 + n - 1).toString();
        p += 4 + n;
        break;
      }
      case 0x03:
      case 0x04: {
        v = decode(buf, p, type === 0x04);
        p += buf.readInt32LE(p);
        break;
      }
      case 0x05: {
        const n = buf.readInt32LE(p);
        v = new Bin(Buffer.from(buf.subarray(p + 5, p + 5 + n)), buf[p + 4]);
        p += 5 + n;
        break;
      }
      case 0x07:
        v = new ObjectId(buf.subarray(p, p + 12).toString("hex"));
        p += 12;
        break;
      case 0x08:
        v = buf[p++] === 1;
        break;
      case 0x09:
        v = new Date(Number(buf.readBigInt64LE(p)));
        p += 8;
        break;
      case 0x0a:
        v = null;
        break;
      case 0x10:
        v = buf.readInt32LE(p);
        p += 4;
        break;
      case 0x12:
        v = new Long(buf.readBigInt64LE(p));
        p += 8;
        break;
      default:
        throw new Error(`stand-in BSON: type 0x${type.toString(16)} not handled`);
    }
    if (asArray) out.push(v);
    else out[key] = v;
  }
  if (asArray) Object.defineProperty(out, "allDoubles", { value: allDoubles && out.length > 0, enumerable: false });
  // Its size as sent (re-encoding here would write whole doubles as int32s): what MongoDB's size limits count.
  Object.defineProperty(out, "bsonSize", { value: size, enumerable: false });
  return out;
}

/** Extended JSON for the HTTP side (vectors of doubles kept as arrays; int64s as numbers). */
function toJson(v) {
  if (v instanceof ObjectId) return { $oid: v.hex };
  if (v instanceof Date) return { $date: v.toISOString() };
  if (v instanceof Long) return Number(v.v);
  if (v instanceof Bin) return { $binary: v.buf.toString("base64") };
  if (Array.isArray(v)) return v.map(toJson);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  return v;
}
/** Extended JSON back ($date, $oid), for POST /seed. */
function fromJson(v) {
  if (Array.isArray(v)) return v.map(fromJson);
  if (!v || typeof v !== "object") return v;
  if (typeof v.$date === "string") return new Date(v.$date);
  if (typeof v.$oid === "string") return new ObjectId(v.$oid);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromJson(x)]));
}
/** A command as recorded: vectors summarised. */
function summary(v) {
  if (Array.isArray(v) && v.length > 16 && v.every((x) => typeof x === "number"))
    return { doubles: v.allDoubles === true, length: v.length };
  if (Array.isArray(v)) return v.map(summary);
  if (v && typeof v === "object" && !(v instanceof ObjectId) && !(v instanceof Date) && !(v instanceof Long) && !(v instanceof Bin))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, summary(x)]));
  return toJson(v);
}

// ---- queries ----
const idKey = (v) => (v instanceof ObjectId ? `oid:${v.hex}` : JSON.stringify(toJson(v)));
const same = (a, b) => idKey(a) === idKey(b);
const get = (doc, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), doc);
function matches(doc, filter = {}) {
  return Object.entries(filter).every(([k, cond]) => {
    if (k === "$and") return cond.every((f) => matches(doc, f));
    if (k === "$or") return cond.some((f) => matches(doc, f));
    const v = get(doc, k);
    if (
      cond &&
      typeof cond === "object" &&
      !(cond instanceof ObjectId) &&
      !(cond instanceof Date) &&
      Object.keys(cond)[0]?.startsWith("$")
    ) {
      return Object.entries(cond).every(([op, x]) => {
        if (op === "$eq") return same(v, x);
        if (op === "$ne") return !same(v, x);
        if (op === "$in") return x.some((y) => same(v, y));
        if (op === "$nin") return !x.some((y) => same(v, y));
        if (op === "$gt") return v > x;
        if (op === "$gte") return v >= x;
        if (op === "$lt") return v < x;
        if (op === "$lte") return v <= x;
        throw new Error(`stand-in: operator ${op} not handled`);
      });
    }
    return same(v, cond);
  });
}
function project(doc, projection) {
  if (!projection || !Object.keys(projection).length) return doc;
  const include = Object.entries(projection).some(([k, x]) => k !== "_id" && x !== 0 && x !== false);
  if (include) {
    const out = projection._id === 0 ? {} : { _id: doc._id };
    for (const [k, x] of Object.entries(projection)) if (x === 1 || x === true) out[k] = doc[k];
    return out;
  }
  const out = { ...doc };
  for (const [k, x] of Object.entries(projection)) if (x === 0 || x === false) delete out[k];
  return out;
}

// ---- what MongoDB and Atlas refuse ----
/** maxBsonObjectSize (hello): a stored document is at most 16 MiB. */
const MAX_BSON_OBJECT = 16 * 1024 * 1024;
/** A command's body (OP_MSG section kind 0, documents included) may be 16 KiB over it, for its envelope (mongod's allowance). */
const MAX_COMMAND_BODY = MAX_BSON_OBJECT + 16 * 1024;
const hex = (n) => `0x${n.toString(16).toUpperCase()}`;

/** A command body over the limit is refused whole, before it runs (BSONObjectTooLarge, as mongod answers it). */
function validateCommandSize(cmd, name) {
  const size = cmd.bsonSize;
  if (size <= MAX_COMMAND_BODY) return undefined;
  const first = `${name}: ${JSON.stringify(toJson(cmd[name]))}`;
  return {
    ok: 0,
    code: 10334,
    codeName: "BSONObjectTooLarge",
    errmsg: `BSONObj size: ${size} (${hex(size)}) is invalid. Size must be between 0 and ${MAX_COMMAND_BODY}(16MB) First element: ${first}`,
  };
}

/** An inserted document over maxBsonObjectSize is that document's write error (BadValue), the others are written. */
function validateInsertedDocument(doc) {
  if (doc.bsonSize <= MAX_BSON_OBJECT) return undefined;
  return { code: 2, errmsg: `object to insert too large. size in bytes: ${doc.bsonSize}, max size: ${MAX_BSON_OBJECT}` };
}

/**
 * A replacement document (its first field not an operator) that replaces a stored document may not hold a
 * $-prefixed top-level field (MongoDB 5.0+, "Field Names with Periods and Dollar Signs"); an upsert that
 * inserts is an insert, where such fields are allowed.
 */
function validateReplacement(u) {
  const field = Object.keys(u).find((k) => k.startsWith("$"));
  if (!field) return undefined;
  return {
    code: 52,
    errmsg:
      `The dollar ($) prefixed field '${field}' in '${field}' is not allowed in the context of an update's replacement document. ` +
      "Consider using an aggregation pipeline with $replaceWith.",
  };
}

/** An update whose resulting document is over maxBsonObjectSize is that statement's write error (mongod's text), nothing written. */
function validateUpdatedDocument(doc) {
  const size = encode(doc).length;
  if (size <= MAX_BSON_OBJECT) return undefined;
  return { code: 17419, errmsg: `Resulting document after update is larger than ${MAX_BSON_OBJECT}` };
}

const bsonTypeName = (v) =>
  v === null ? "null" : v instanceof ObjectId ? "objectId" : v instanceof Date ? "date" : typeof v === "object" ? "object" : typeof v;

/** $push appends to an array: a field holding anything else fails the statement ($push's reference; mongod's text). */
function validatePushTarget(doc, field) {
  const v = doc[field];
  if (v === undefined || Array.isArray(v)) return undefined;
  const id = doc._id instanceof ObjectId ? `ObjectId('${doc._id.hex}')` : JSON.stringify(toJson(doc._id));
  return { code: 2, errmsg: `The field '${field}' must be an array but is of type ${bsonTypeName(v)} in document {_id: ${id}}` };
}

/** $vectorSearch's own fields (Atlas's "Run Vector Search Queries"): limit ≤ numCandidates ≤ 10,000, numCandidates unless exact. */
function validateVectorSearch(stage) {
  const bad = (rule) => ({
    ok: 0,
    code: 8,
    codeName: "UnknownError",
    errmsg: `PlanExecutor error during aggregation :: caused by :: $vectorSearch ${rule}`,
  });
  for (const field of ["index", "path", "queryVector", "limit"]) if (stage[field] === undefined) return bad(`"${field}" is required`);
  if (!Number.isInteger(stage.limit) || stage.limit < 1) return bad('"limit" must be a positive int');
  if (stage.exact !== true) {
    if (stage.numCandidates === undefined) return bad('"numCandidates" is required unless "exact" is true');
    if (!Number.isInteger(stage.numCandidates) || stage.numCandidates > 10_000)
      return bad('"numCandidates" must be an int less than or equal to 10000');
    if (stage.limit > stage.numCandidates) return bad('"limit" must be less than or equal to "numCandidates"');
  }
  return validateVectorSearchFilter(stage.filter ?? {});
}

const operandType = (v) =>
  v === null ? "null" : Array.isArray(v) ? "array" : v instanceof ObjectId ? "objectId" : v instanceof Date ? "date" : typeof v;
const isOperators = (cond) =>
  cond &&
  typeof cond === "object" &&
  !Array.isArray(cond) &&
  !(cond instanceof ObjectId) &&
  !(cond instanceof Date) &&
  Object.keys(cond)[0]?.startsWith("$");

/**
 * mongod's check of a $vectorSearch filter (src/mongo/db/query/vector_search/filter_validator.cpp): $and/$or take
 * arrays; a comparison's operand (or an $in/$nin element) may not be a document or an array (7828301).
 */
function validateVectorSearchFilter(filter) {
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(cond)) return { ok: 0, code: 2, codeName: "BadValue", errmsg: `${key} must be an array` };
      for (const part of cond) {
        const refused = validateVectorSearchFilter(part);
        if (refused) return refused;
      }
      continue;
    }
    for (const [op, operand] of isOperators(cond) ? Object.entries(cond) : [["$eq", cond]]) {
      const many = op === "$in" || op === "$nin";
      if (many && !Array.isArray(operand)) return { ok: 0, code: 2, codeName: "BadValue", errmsg: `${op} needs an array` };
      for (const v of many ? operand : [operand]) {
        const type = operandType(v);
        if (type === "object" || type === "array")
          return { ok: 0, code: 7828301, codeName: "Location7828301", errmsg: `Operand type is not supported for $vectorSearch: ${type}` };
      }
    }
  }
  return undefined;
}

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const cosine = (a, b) => dot(a, b) / (Math.sqrt(dot(a, a) * dot(b, b)) || 1);

// ---- SCRAM-SHA-256 ----
const hmac = (key, data) => createHmac("sha256", key).update(data).digest();
const users = new Map([
  [`admin.${MONGO_USER}`, { password: MONGO_PASSWORD, salt: randomBytes(16), mechs: ["SCRAM-SHA-256"] }],
  ["admin.sha1only", { password: "x", salt: randomBytes(16), mechs: ["SCRAM-SHA-1"] }],
]);
const attrs = (s) => Object.fromEntries(s.split(",").map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
const authFailed = { ok: 0, errmsg: "Authentication failed.", code: 18, codeName: "AuthenticationFailed" };

export async function startMongoStandin() {
  const collections = new Map(); // "db.coll" → docs[]
  const requests = [];
  const dns = [];
  const cursors = new Map();
  let nextCursor = 1000;
  const sockets = new Set();
  const coll = (db, name) => {
    const key = `${db}.${name}`;
    if (!collections.has(key)) collections.set(key, []);
    return collections.get(key);
  };
  const ports = {};

  function openCursor(docs, batchSize, ns) {
    const n = batchSize ?? 3;
    const first = docs.slice(0, n);
    const rest = docs.slice(n);
    let id = 0;
    if (rest.length) {
      id = nextCursor++;
      cursors.set(id, { rest, ns });
    }
    return { cursor: { firstBatch: first, id: new Long(id), ns }, ok: 1 };
  }

  function vectorSearch(docs, stage) {
    if (stage.index === "down")
      throw {
        ok: 0,
        code: 8,
        codeName: "UnknownError",
        errmsg: "PlanExecutor error during aggregation :: caused by :: the search node is having a bad day",
      };
    const q = stage.queryVector;
    return docs
      .filter((d) => Array.isArray(get(d, stage.path)) && get(d, stage.path).length === q.length && matches(d, stage.filter ?? {}))
      .map((d) => ({ ...d, __score: (1 + cosine(q, get(d, stage.path))) / 2 }))
      .sort((a, b) => b.__score - a.__score)
      .slice(0, stage.limit);
  }
  const withMeta = (d, spec) =>
    Object.fromEntries(Object.entries(spec).map(([k, x]) => [k, x?.$meta === "vectorSearchScore" ? d.__score : x]));

  function aggregate(docs, pipeline) {
    let out = docs;
    pipeline.forEach((stage, i) => {
      const [name] = Object.keys(stage);
      const s = stage[name];
      if (name === "$vectorSearch") {
        if (i !== 0)
          throw { ok: 0, code: 40602, codeName: "Location40602", errmsg: "$vectorSearch is only valid as the first stage in a pipeline" };
        const refused = validateVectorSearch(s);
        if (refused) throw refused;
        out = vectorSearch(out, s);
      } else if (name === "$set" || name === "$addFields") out = out.map((d) => ({ ...d, ...withMeta(d, s) }));
      else if (name === "$project") {
        const metas = Object.entries(s).filter(([, x]) => x?.$meta);
        const plain = Object.fromEntries(Object.entries(s).filter(([, x]) => !x?.$meta));
        out = out.map((d) => ({ ...project(d, plain), ...withMeta(d, Object.fromEntries(metas)) }));
      } else if (name === "$match") out = out.filter((d) => matches(d, s));
      else if (name === "$limit") out = out.slice(0, s);
      else throw { ok: 0, code: 40324, codeName: "Location40324", errmsg: `Unrecognized pipeline stage name: '${name}'` };
    });
    return out.map(({ __score, ...d }) => d);
  }

  function applyUpdate(doc, u) {
    // MongoDB tells a replacement by its first field (not an operator).
    if (!Object.keys(u)[0]?.startsWith("$")) return { _id: doc._id, ...u };
    const out = { ...doc };
    for (const [op, fields] of Object.entries(u)) {
      for (const [k, x] of Object.entries(fields)) {
        if (op === "$set") out[k] = x;
        else if (op === "$push") {
          const refused = validatePushTarget(out, k);
          if (refused) throw { writeError: refused };
          out[k] = [...(out[k] ?? []), ...(x && typeof x === "object" && "$each" in x ? x.$each : [x])];
        } else throw { ok: 0, code: 9, codeName: "FailedToParse", errmsg: `Unknown modifier: ${op}` };
      }
    }
    return out;
  }

  function run(conn, cmd, role) {
    const name = Object.keys(cmd)[0];
    const db = cmd.$db;
    const lower = name.toLowerCase();
    const target = typeof cmd[name] === "string" ? cmd[name] : cmd.collection;
    requests.push({ command: name, db, collection: target ?? null, role, user: conn.user ?? null, body: summary(cmd) });
    const tooLarge = validateCommandSize(cmd, name);
    if (tooLarge) return tooLarge;
    if (lower === "hello" || lower === "ismaster") {
      const me = `127.0.0.1:${ports[role]}`;
      const mechs = cmd.saslSupportedMechs ? users.get(cmd.saslSupportedMechs)?.mechs : undefined;
      return {
        helloOk: true,
        isWritablePrimary: role === "primary",
        ismaster: role === "primary",
        secondary: role === "secondary",
        setName: "rs0",
        hosts: [`127.0.0.1:${ports.primary}`, `127.0.0.1:${ports.secondary}`],
        primary: `127.0.0.1:${ports.primary}`,
        me,
        maxBsonObjectSize: 16777216,
        maxMessageSizeBytes: 48000000,
        maxWriteBatchSize: 100000,
        localTime: new Date(),
        logicalSessionTimeoutMinutes: 30,
        minWireVersion: 0,
        maxWireVersion: 21,
        ...(mechs ? { saslSupportedMechs: mechs } : {}),
        $clusterTime: {
          clusterTime: new Timestamp(Math.floor(Date.now() / 1000), 1),
          signature: { hash: new Bin(Buffer.alloc(20)), keyId: new Long(0) },
        },
        operationTime: new Timestamp(Math.floor(Date.now() / 1000), 1),
        ok: 1,
      };
    }
    if (name === "ping" || name === "endSessions") return { ok: 1 };
    if (name === "saslStart") {
      if (cmd.mechanism !== "SCRAM-SHA-256")
        return { ok: 0, code: 2, codeName: "BadValue", errmsg: `Unsupported mechanism ${cmd.mechanism}` };
      const text = cmd.payload.buf.toString();
      const first = text.replace(/^n,,/, "");
      const a = attrs(first);
      const user = users.get(`${db}.${a.n}`);
      const nonce = a.r + randomBytes(18).toString("base64");
      const serverFirst = `r=${nonce},s=${(user?.salt ?? randomBytes(16)).toString("base64")},i=${ITERATIONS}`;
      conn.scram = { user, name: a.n, first, serverFirst, nonce };
      return { conversationId: 1, done: false, payload: new Bin(Buffer.from(serverFirst)), ok: 1 };
    }
    if (name === "saslContinue") {
      const s = conn.scram;
      if (!s) return { ok: 0, code: 17, codeName: "ProtocolError", errmsg: "No SASL session state found" };
      const text = cmd.payload.buf.toString();
      const withoutProof = text.slice(0, text.lastIndexOf(",p="));
      const a = attrs(text);
      if (!s.user || a.c !== "biws" || a.r !== s.nonce) return authFailed;
      const salted = pbkdf2Sync(s.user.password, s.user.salt, ITERATIONS, 32, "sha256");
      const storedKey = createHash("sha256").update(hmac(salted, "Client Key")).digest();
      const authMessage = `${s.first},${s.serverFirst},${withoutProof}`;
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.from(a.p ?? "", "base64");
      if (proof.length !== 32) return authFailed;
      const clientKey = Buffer.from(proof.map((b, i) => b ^ signature[i]));
      if (!timingSafeEqual(createHash("sha256").update(clientKey).digest(), storedKey)) return authFailed;
      conn.user = s.name;
      conn.scram = undefined;
      const v = hmac(hmac(salted, "Server Key"), authMessage).toString("base64");
      return { conversationId: 1, done: true, payload: new Bin(Buffer.from(`v=${v}`)), ok: 1 };
    }
    const known = ["insert", "find", "getMore", "update", "delete", "aggregate", "killCursors"];
    if (!known.includes(name)) return { ok: 0, errmsg: `no such command: '${name}'`, code: 59, codeName: "CommandNotFound" };
    if (!conn.user) return { ok: 0, errmsg: `command ${name} requires authentication`, code: 13, codeName: "Unauthorized" };
    const writes = ["insert", "update", "delete"];
    if (role !== "primary" && writes.includes(name)) return { ok: 0, errmsg: "not primary", code: 10107, codeName: "NotWritablePrimary" };
    const docs = target ? coll(db, target) : [];
    const ns = `${db}.${target}`;
    if (name === "insert") {
      const writeErrors = [];
      let n = 0;
      let stopped = false;
      cmd.documents.forEach((d, index) => {
        if (stopped) return;
        const doc = d._id === undefined ? { _id: new ObjectId(), ...d } : d;
        const refused = validateInsertedDocument(d);
        if (refused) {
          writeErrors.push({ index, ...refused });
          stopped = cmd.ordered !== false;
        } else if (docs.some((x) => same(x._id, doc._id))) {
          writeErrors.push({
            index,
            code: 11000,
            errmsg: `E11000 duplicate key error collection: ${ns} index: _id_ dup key: { _id: ${JSON.stringify(toJson(doc._id))} }`,
          });
          stopped = cmd.ordered !== false;
        } else {
          docs.push(doc);
          n++;
        }
      });
      return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
    }
    if (name === "update") {
      let n = 0;
      let nModified = 0;
      const upserted = [];
      const writeErrors = [];
      cmd.updates.forEach((u, index) => {
        if (writeErrors.length && cmd.ordered !== false) return;
        const hits = docs.filter((d) => matches(d, u.q));
        const refused = hits.length && !Object.keys(u.u)[0]?.startsWith("$") ? validateReplacement(u.u) : undefined;
        if (refused) {
          writeErrors.push({ index, ...refused });
          return;
        }
        for (const d of u.multi ? hits : hits.slice(0, 1)) {
          let updated;
          try {
            updated = applyUpdate(d, u.u);
          } catch (e) {
            if (!e?.writeError) throw e;
            writeErrors.push({ index, ...e.writeError });
            return;
          }
          const tooLarge = validateUpdatedDocument(updated);
          if (tooLarge) {
            writeErrors.push({ index, ...tooLarge });
            return;
          }
          docs[docs.indexOf(d)] = updated;
          n++;
          nModified++;
        }
        if (!hits.length && u.upsert) {
          const seed = Object.fromEntries(
            Object.entries(u.q).filter(([k, x]) => !k.startsWith("$") && !(x && typeof x === "object" && !(x instanceof ObjectId))),
          );
          const doc = applyUpdate({ _id: u.q._id ?? new ObjectId(), ...seed }, u.u);
          docs.push(doc);
          upserted.push({ index, _id: doc._id });
          n++;
        }
      });
      return { n, nModified, ...(upserted.length ? { upserted } : {}), ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
    }
    if (name === "delete") {
      let n = 0;
      for (const d of cmd.deletes) {
        const hits = docs.filter((x) => matches(x, d.q));
        for (const h of d.limit === 1 ? hits.slice(0, 1) : hits) {
          docs.splice(docs.indexOf(h), 1);
          n++;
        }
      }
      return { n, ok: 1 };
    }
    if (name === "find") {
      const found = docs.filter((d) => matches(d, cmd.filter ?? {})).slice(0, cmd.limit || undefined);
      return openCursor(
        found.map((d) => project(d, cmd.projection)),
        cmd.batchSize,
        ns,
      );
    }
    if (name === "aggregate") {
      try {
        return openCursor(aggregate(docs, cmd.pipeline), cmd.cursor?.batchSize, ns);
      } catch (e) {
        if (e && e.ok === 0) return e;
        throw e;
      }
    }
    if (name === "getMore") {
      if (!(cmd.getMore instanceof Long))
        return { ok: 0, code: 14, codeName: "TypeMismatch", errmsg: "Field 'getMore' must be of type long" };
      const id = Number(cmd.getMore.v);
      const c = cursors.get(id);
      if (!c) return { ok: 0, code: 43, codeName: "CursorNotFound", errmsg: `cursor id ${id} not found` };
      const n = cmd.batchSize ?? 3;
      const batch = c.rest.splice(0, n);
      if (!c.rest.length) cursors.delete(id);
      return { cursor: { nextBatch: batch, id: new Long(c.rest.length ? id : 0), ns: c.ns }, ok: 1 };
    }
    if (name === "killCursors") {
      for (const id of cmd.cursors) cursors.delete(Number(id.v));
      return { cursorsKilled: cmd.cursors, ok: 1 };
    }
  }

  function serve(role) {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      const conn = {};
      let buf = Buffer.alloc(0);
      socket.on("data", (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
          const size = buf.readInt32LE(0);
          const msg = buf.subarray(0, size);
          buf = buf.subarray(size);
          const requestId = msg.readInt32LE(4);
          if (msg.readInt32LE(12) !== 2013 || msg[20] !== 0) {
            socket.destroy();
            return;
          }
          let reply;
          try {
            reply = run(conn, decode(msg, 21), role);
          } catch (e) {
            reply = { ok: 0, errmsg: `stand-in: ${e.message}`, code: 1, codeName: "InternalError" };
          }
          const body = encode(reply);
          const head = Buffer.alloc(21);
          head.writeInt32LE(21 + body.length, 0);
          head.writeInt32LE(requestId + 1_000_000, 4);
          head.writeInt32LE(requestId, 8);
          head.writeInt32LE(2013, 12);
          head.writeUInt32LE(0, 16);
          head[20] = 0;
          socket.write(Buffer.concat([head, body]));
        }
      });
    });
    return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
  }
  const primary = await serve("primary");
  const secondary = await serve("secondary");
  ports.primary = primary.address().port;
  ports.secondary = secondary.address().port;

  // DNS over HTTPS (JSON): cluster0.edgeflow.test → the secondary then the primary (TXT: authSource, replicaSet);
  // private.edgeflow.test → 10.1.2.3; anything else NXDOMAIN.
  const zone = {
    "_mongodb._tcp.cluster0.edgeflow.test": { SRV: [`0 5 ${ports.secondary} 127.0.0.1.`, `0 5 ${ports.primary} 127.0.0.1.`] },
    "cluster0.edgeflow.test": { TXT: ['"authSource=admin&replicaSet=rs0"'] },
    "_mongodb._tcp.private.edgeflow.test": { SRV: [`0 5 27017 10.1.2.3.`] },
  };
  const http = createHttpServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    const send = (status, body, type = "application/json") => {
      res.writeHead(status, { "content-type": type });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/requests") {
      const c = url.searchParams.get("collection");
      return send(200, c ? requests.filter((r) => r.collection === c) : requests);
    }
    if (url.pathname === "/dns") return send(200, dns);
    // A document written as is (a session another app left, one near the size limit without sending it all).
    const seed = req.method === "POST" && url.pathname.match(/^\/seed\/([^/]+)\/([^/]+)$/);
    if (seed) {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const doc = { _id: new ObjectId(), ...fromJson(JSON.parse(Buffer.concat(chunks).toString() || "{}")) };
      const padTo = Number(url.searchParams.get("padTo") ?? 0);
      if (padTo) doc.pad = "x".repeat(Math.max(0, padTo - encode({ ...doc, pad: "" }).length));
      coll(decodeURIComponent(seed[1]), decodeURIComponent(seed[2])).push(doc);
      return send(200, { _id: toJson(doc._id), size: encode(doc).length });
    }
    const dump = url.pathname.match(/^\/dump\/([^/]+)\/([^/]+)$/);
    if (dump) return send(200, toJson(coll(decodeURIComponent(dump[1]), decodeURIComponent(dump[2]))));
    if (url.pathname === "/dns-query") {
      const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
      const type = url.searchParams.get("type");
      dns.push({ name, type, accept: req.headers.accept });
      const code = type === "SRV" ? 33 : 16;
      const records = zone[name]?.[type];
      const known = Object.keys(zone).includes(name) || Object.keys(zone).some((k) => k.endsWith(`.${name}`));
      return send(
        200,
        {
          Status: known ? 0 : 3,
          Question: [{ name, type: code }],
          ...(records ? { Answer: records.map((data) => ({ name, type: code, TTL: 60, data })) } : {}),
        },
        "application/dns-json",
      );
    }
    send(404, { error: "not found" });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${http.address().port}`,
    mongoUrl: `mongodb://127.0.0.1:${ports.primary}`,
    secondaryUrl: `mongodb://127.0.0.1:${ports.secondary}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => primary.close(resolve));
      await new Promise((resolve) => secondary.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
