// Astra DB Data API stand-in (one loopback server, one database) that really stores documents:
//   POST /api/json/v1/default_keyspace with one command:
//     {createCollection: {name, options: {vector: {dimension, metric}, indexing}}} → {status: {ok: 1}} (the same
//        options again: ok; other options: EXISTING_COLLECTION_DIFFERENT_SETTINGS)
//     {findCollections: {options: {explain: true}}} → {status: {collections: [{name, options}]}}
//   POST /api/json/v1/default_keyspace/NAME with one command:
//     {insertMany: {documents, options: {ordered: false}}} → {status: {insertedIds}, errors: [DOCUMENT_ALREADY_EXISTS …]}
//     {findOneAndReplace: {filter: {_id}, replacement, options: {upsert}}} → {status: {matchedCount, modifiedCount}}
//     {find: {filter, sort: {$vector}, projection, options: {limit, includeSimilarity}}} → {data: {documents, nextPageState}}
//     {deleteMany: {filter}} → {status: {deletedCount, moreData?}} (20 at most a call, as Astra)
// Similarity as Astra answers it (higher nearer): cosine (1 + cos) / 2, dot_product (1 + dot) / 2,
// euclidean 1 / (1 + squared distance). Filters: {field: value}, {field: {$in: [...]}}, {field: {$eq}}, $and/$or.
// As the Data API, most failures answer HTTP 200 with {errors: [{errorCode, message}]}; a missing
// collection is UNKNOWN_COLLECTION_OR_TABLE (the Data API since v1.0.41; COLLECTION_NOT_EXIST before it).
// The `Token` header must start "AstraCS:" (else HTTP 401, as Astra's gateway). Collection "down"
// answers HTTP 500, "hang" never answers. GET /dump/NAME → the collection; GET /requests lists what was received
// (an insertMany over 1 MB is recorded as {insertMany: {documents, bytes}}, so the list stays small).
//
// Requests are checked as the Data API does it — the "Data API limits" page
// (docs.datastax.com/en/astra-db-serverless/api-reference/dataapi-limits.html), its field-name rules and
// the service's own code (github.com/stargate/data-api: DocumentLimitsConfig, OperationsConfig,
// DocumentShredder, NamingRules, errors.yaml, application.yaml):
//   request      at most 20 MiB (quarkus max-body-size 20M → HTTP 413); one command
//   collection   name 1-48 letters, digits or _ (UNSUPPORTED_SCHEMA_NAME); vector dimension 1..4096, metric
//                cosine | euclidean | dot_product; created again only with the same options
//   insertMany   at most 100 documents (COMMAND_FIELD_VALUE_INVALID); each document on its own (the others
//                are written, ordered false): field names not empty and not starting with $ (but $vector at
//                the top), depth ≤ 16, paths ≤ 1,000 characters, ≤ 4,000,000 characters as JSON, $vector
//                numbers of the collection's dimension; in indexed fields (the collection's `indexing`
//                allow/deny; all when none): strings ≤ 8,000 UTF-8 bytes, arrays ≤ 1,000 elements, objects
//                ≤ 1,000 properties, ≤ 2,000 indexed properties a document, numbers ≤ 100 characters
//   find         a vector sort's limit ≤ 1,000; $in/$nin at most 100 values; filters only on indexed paths
//                (FILTER_PATH_UNINDEXED) and known operators; a page (no vector sort) is 20 documents
import { hang, serveStandin } from "./base.mjs";

const collections = new Map(); // name → {options, docs: Map(_id → doc)}

const MAX_BODY_BYTES = 20 * 1024 * 1024;
const RECORDED_BODY_BYTES = 1_000_000;
const COLLECTION_NAME = /^[A-Za-z0-9_]{1,48}$/;
const MAX_DIMENSION = 4096;
const MAX_INSERT = 100;
const MAX_IN = 100;
const MAX_VECTOR_LIMIT = 1000;
const PAGE = 20;
const LIMITS = {
  docChars: 4_000_000,
  depth: 16,
  pathLength: 1000,
  stringBytes: 8000,
  arrayLength: 1000,
  objectProperties: 1000,
  docProperties: 2000,
  numberLength: 100,
};
const OPERATORS = new Set(["$eq", "$ne", "$in", "$nin", "$exists", "$all", "$size", "$lt", "$lte", "$gt", "$gte", "$match"]);
/** Top-level fields the Data API itself gives a meaning (so their `$` is allowed there). */
const RESERVED_TOP = new Set(["$vector", "$vectorize", "$lexical"]);

const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (v) => Math.sqrt(dot(v, v));
const SIMILARITY = {
  cosine: (a, b) => (1 + (norm(a) && norm(b) ? dot(a, b) / (norm(a) * norm(b)) : 0)) / 2,
  dot_product: (a, b) => (1 + dot(a, b)) / 2,
  euclidean: (a, b) => 1 / (1 + a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0)),
};

class AstraError extends Error {
  constructor(errorCode, message) {
    super(message);
    this.errorCode = errorCode;
  }
}
const refuse = (errorCode, message) => {
  throw new AstraError(errorCode, message);
};

/** Whether a dotted path is indexed under a collection's `indexing` ({allow} or {deny}; none: all). */
function indexed(indexing, path) {
  const covers = (rule) => rule === "*" || path === rule || path.startsWith(`${rule}.`);
  if (indexing?.allow?.length) return indexing.allow.some(covers);
  if (indexing?.deny?.length) return !indexing.deny.some(covers);
  return true;
}

/** createCollection's options refused (name, dimension, metric), else the options as the collection keeps them. */
function validateCreate(command) {
  const name = command?.name;
  if (typeof name !== "string" || !COLLECTION_NAME.test(name))
    refuse(
      "UNSUPPORTED_SCHEMA_NAME",
      "The command attempted to create a Collection with a name that is not supported. The supported Collection names must " +
        "not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters. The command used " +
        `the unsupported Collection name: '${name}'.`,
    );
  const { vector, indexing } = command.options ?? {};
  if (!Number.isInteger(vector?.dimension) || vector.dimension < 1)
    refuse("INVALID_CREATE_COLLECTION_OPTIONS", "'createCollection' command option(s) invalid: the 'dimension' must be a positive integer");
  if (vector.dimension > MAX_DIMENSION)
    refuse(
      "VECTOR_SEARCH_TOO_BIG_VALUE",
      `Vector embedding property '$vector' length too big: ${vector.dimension} (max ${MAX_DIMENSION}).`,
    );
  const metric = vector.metric ?? "cosine";
  if (!SIMILARITY[metric]) refuse("VECTOR_SEARCH_UNKNOWN_FUNCTION_NAME", `Unknown vector search function name: '${metric}'.`);
  return { vector: { dimension: vector.dimension, metric }, ...(indexing ? { indexing } : {}) };
}

/** Why the Data API refuses a document of collection `c` (its errorCode and message), or undefined. */
function documentError(doc, c) {
  try {
    validateDocument(doc, c);
  } catch (e) {
    if (e instanceof AstraError) return { errorCode: e.errorCode, message: e.message };
    throw e;
  }
  return undefined;
}

function validateDocument(doc, c) {
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    refuse("SHRED_BAD_DOCUMENT_TYPE", "Bad document type to shred: document must be a JSON Object.");
  const limit = (message) => refuse("SHRED_DOC_LIMIT_VIOLATION", `Document size limitation violated: ${message}.`);
  const chars = JSON.stringify(doc).length;
  if (chars > LIMITS.docChars) limit(`document size (${chars} chars) exceeds maximum allowed (${LIMITS.docChars})`);
  const { dimension } = c.options.vector;
  let properties = 0;
  const visit = (value, path, depth) => {
    const isIndexed = path !== "" && indexed(c.options.indexing, path);
    if (Array.isArray(value) || (value && typeof value === "object")) {
      if (depth + 1 > LIMITS.depth) limit(`document depth exceeds maximum allowed (${LIMITS.depth})`);
    }
    if (Array.isArray(value)) {
      if (isIndexed && value.length > LIMITS.arrayLength)
        limit(
          `number of elements an indexable Array (field '${path}') has (${value.length}) exceeds maximum allowed (${LIMITS.arrayLength})`,
        );
      for (const v of value) visit(v, path, depth + 1);
    } else if (value && typeof value === "object") {
      const keys = Object.keys(value);
      const indexedKeys = keys.filter((k) => indexed(c.options.indexing, path ? `${path}.${k}` : k) || k === "_id");
      if (indexedKeys.length > LIMITS.objectProperties)
        limit(
          `number of properties an indexable Object (field '${path}') has (${indexedKeys.length}) exceeds maximum allowed ` +
            `(${LIMITS.objectProperties})`,
        );
      properties += indexedKeys.length;
      for (const k of keys) {
        if (depth === 0 && (k === "_id" || RESERVED_TOP.has(k))) continue;
        if (k === "" || k.startsWith("$"))
          refuse("SHRED_BAD_FIELD_NAME", `Document field name not valid: field name '${k}' ${k ? "starts with '$'" : "is empty"}.`);
        const child = path ? `${path}.${k}` : k;
        if (child.length > LIMITS.pathLength)
          limit(`field path length (${child.length}) exceeds maximum allowed (${LIMITS.pathLength}) (path ends with '${k}')`);
        visit(value[k], child, depth + 1);
      }
    } else if (isIndexed && typeof value === "string") {
      const bytes = Buffer.byteLength(value, "utf8");
      if (bytes > LIMITS.stringBytes)
        limit(
          `indexed String value (field '${path.split(".").at(-1)}') length (${bytes} bytes) exceeds maximum allowed ` +
            `(${LIMITS.stringBytes} bytes)`,
        );
    } else if (isIndexed && typeof value === "number" && String(value).length > LIMITS.numberLength) {
      limit(`Number value length (${String(value).length}) exceeds maximum allowed (${LIMITS.numberLength})`);
    }
  };
  visit(doc, "", 0);
  if (properties > LIMITS.docProperties)
    limit(`total number of indexed properties (${properties}) in document exceeds maximum allowed (${LIMITS.docProperties})`);
  const vector = doc.$vector;
  if (vector === undefined || vector === null) return;
  if (!Array.isArray(vector) || vector.some((x) => typeof x !== "number"))
    refuse("SHRED_BAD_DOCUMENT_VECTOR_TYPE", "Bad $vector value to shred: $vector value needs to be an array of numbers.");
  if (!vector.length) refuse("SHRED_BAD_VECTOR_SIZE", "Bad $vector value: cannot be empty Array.");
  if (vector.length !== dimension) refuse("INVALID_VECTOR_LENGTH", vectorLengthMessage(dimension));
}

const vectorLengthMessage = (dimension) =>
  "The command attempted to update or find using `$vector`, using a vector that has a length different to the declared " +
  `'$vector' dimension for the Collection. The configured vector dimension is: ${dimension}.`;

/** Refuses a filter the Data API would: unknown operators, $in over 100 values, a path the collection does not index. */
function validateFilter(filter, c) {
  if (filter === undefined) return;
  if (!filter || typeof filter !== "object" || Array.isArray(filter))
    refuse("FILTER_INVALID_EXPRESSION", "Unsupported filter clause: filter clause must be an object.");
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(cond) || !cond.length)
        refuse("FILTER_INVALID_EXPRESSION", `Unsupported filter clause: '${key}' operator must have at least one argument.`);
      for (const f of cond) validateFilter(f, c);
      continue;
    }
    if (key === "$not") {
      validateFilter(cond, c);
      continue;
    }
    if (key.startsWith("$")) refuse("FILTER_UNSUPPORTED_OPERATOR", `Unsupported filter operator '${key}'.`);
    if (key !== "_id" && !indexed(c.options.indexing, key))
      refuse("FILTER_PATH_UNINDEXED", `Collection path '${key}' is not indexed: cannot filter on that path.`);
    if (!cond || typeof cond !== "object" || Array.isArray(cond)) continue;
    for (const [op, v] of Object.entries(cond)) {
      if (!OPERATORS.has(op)) refuse("FILTER_UNSUPPORTED_OPERATOR", `Unsupported filter operator '${op}'.`);
      if ((op === "$in" || op === "$nin") && !Array.isArray(v))
        refuse("FILTER_INVALID_EXPRESSION", `Unsupported filter clause: '${op}' operator must have \`Array\`.`);
      if ((op === "$in" || op === "$nin") && v.length > MAX_IN)
        refuse("FILTER_INVALID_EXPRESSION", `Unsupported filter clause: '${op}' operator must have at most ${MAX_IN} values.`);
    }
  }
}

function matches(doc, filter) {
  return Object.entries(filter ?? {}).every(([k, cond]) => {
    if (k === "$and") return cond.every((f) => matches(doc, f));
    if (k === "$or") return cond.some((f) => matches(doc, f));
    if (k === "$not") return !matches(doc, cond);
    const v = k.split(".").reduce((o, p) => (o && typeof o === "object" ? o[p] : undefined), doc);
    if (cond && typeof cond === "object" && !Array.isArray(cond)) {
      if ("$in" in cond) return cond.$in.some((x) => String(x) === String(v));
      if ("$eq" in cond) return String(cond.$eq) === String(v);
      throw new Error(`the stand-in does not evaluate ${JSON.stringify(cond)}`);
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

/** One command on an existing collection `c`; its answer (throws AstraError for a refused request). */
function runCommand(body, c) {
  const { dimension, metric } = c.options.vector;
  const checkSortVector = (v) => {
    if (!Array.isArray(v) || v.length !== dimension) refuse("INVALID_VECTOR_LENGTH", vectorLengthMessage(dimension));
  };
  if (body.insertMany) {
    const documents = body.insertMany.documents ?? [];
    if (documents.length > MAX_INSERT)
      refuse(
        "COMMAND_FIELD_VALUE_INVALID",
        "Command field 'command.documents' value <JSON value> not valid: amount of documents to insert is over the max limit " +
          `(${documents.length} vs ${MAX_INSERT}).`,
      );
    const insertedIds = [];
    const failed = [];
    for (const d of documents) {
      const wrong = documentError(d, c);
      const id = d?._id ?? crypto.randomUUID();
      if (wrong) failed.push({ ...wrong, id });
      else if (c.docs.has(String(id)))
        failed.push({ errorCode: "DOCUMENT_ALREADY_EXISTS", message: "Document already exists with the given _id", id });
      else {
        c.docs.set(String(id), { ...d, _id: id });
        insertedIds.push(id);
      }
    }
    return { status: { insertedIds }, ...(failed.length ? { errors: failed } : {}) };
  }
  if (body.findOneAndReplace) {
    const { filter, replacement, options } = body.findOneAndReplace;
    validateFilter(filter, c);
    const wrong = documentError(replacement, c);
    if (wrong) refuse(wrong.errorCode, wrong.message);
    const found = [...c.docs.values()].find((d) => matches(d, filter));
    if (!found && !options?.upsert) return { data: { document: null }, status: { matchedCount: 0, modifiedCount: 0 } };
    const id = found?._id ?? replacement._id ?? filter._id;
    c.docs.set(String(id), { ...replacement, _id: id });
    return { data: { document: null }, status: { matchedCount: found ? 1 : 0, modifiedCount: found ? 1 : 0 } };
  }
  if (body.find) {
    const { filter, sort, projection, options } = body.find;
    validateFilter(filter, c);
    let docs = [...c.docs.values()].filter((d) => matches(d, filter));
    if (sort?.$vector) {
      if (options?.limit > MAX_VECTOR_LIMIT)
        refuse(
          "COMMAND_FIELD_VALUE_INVALID",
          `Command field 'command.options.limit' value ${options.limit} not valid: limit options should not be greater than ` +
            `${MAX_VECTOR_LIMIT} for vector search.`,
        );
      checkSortVector(sort.$vector);
      const scored = docs.map((d) => ({ d, s: SIMILARITY[metric](sort.$vector, d.$vector) })).sort((a, b) => b.s - a.s);
      const limit = Math.min(options?.limit ?? MAX_VECTOR_LIMIT, MAX_VECTOR_LIMIT);
      return {
        data: {
          documents: scored.slice(0, limit).map(({ d, s }) => projected(d, projection, options?.includeSimilarity ? s : undefined)),
          nextPageState: null,
        },
      };
    }
    docs = docs.slice(0, Math.min(options?.limit ?? PAGE, PAGE));
    return { data: { documents: docs.map((d) => projected(d, projection)), nextPageState: null } };
  }
  if (body.deleteMany) {
    validateFilter(body.deleteMany.filter, c);
    const hit = [...c.docs.entries()].filter(([, d]) => matches(d, body.deleteMany.filter));
    for (const [id] of hit.slice(0, PAGE)) c.docs.delete(id);
    return { status: { deletedCount: Math.min(hit.length, PAGE), ...(hit.length > PAGE ? { moreData: true } : {}) } };
  }
  refuse("UNKNOWN_COMMAND", `No "${Object.keys(body ?? {})[0]}" command found`);
}

export function startAstraStandin() {
  return serveStandin(async ({ req, res, url, body, raw, record, json }) => {
    const bytes = Buffer.byteLength(raw ?? "", "utf8");
    if (bytes > RECORDED_BODY_BYTES && Array.isArray(body?.insertMany?.documents)) {
      record.body = { insertMany: { documents: body.insertMany.documents.length, bytes } };
      record.raw = "";
    }
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
    // The Data API's HTTP layer refuses bodies over 20 MiB before reading a command.
    if (bytes > MAX_BODY_BYTES) return json(413, { errors: [{ message: "Request Entity Too Large" }] });
    const commands = Object.keys(body ?? {});
    if (commands.length !== 1)
      return errors(json, "COMMAND_UNKNOWN", `A request carries one command, not ${commands.length}: ${commands.join(", ")}`);
    const name = route[1] ? decodeURIComponent(route[1]) : body?.createCollection?.name;
    if (name === "down")
      return json(500, {
        errors: [{ message: "Server failed: the coordinator is having a bad day", errorCode: "SERVER_UNHANDLED_ERROR" }],
      });
    if (name === "hang") return hang(res);
    try {
      if (!route[1] && body.findCollections)
        return json(200, { status: { collections: [...collections].map(([n, c]) => ({ name: n, options: c.options })) } });
      if (!route[1]) {
        if (!body.createCollection) refuse("UNKNOWN_COMMAND", `No "${commands[0]}" command found`);
        const options = validateCreate(body.createCollection);
        const c = collections.get(name);
        if (c && JSON.stringify(c.options) !== JSON.stringify(options))
          refuse(
            "EXISTING_COLLECTION_DIFFERENT_SETTINGS",
            `Collection '${name}' already exists but with settings different from ones passed with 'createCollection' command.`,
          );
        if (!c) collections.set(name, { options, docs: new Map() });
        return json(200, { status: { ok: 1 } });
      }
      const c = collections.get(name);
      if (!c)
        refuse(
          "UNKNOWN_COLLECTION_OR_TABLE",
          `The command tried to get a Collection or Table ${name} that does not exist in the Keyspace default_keyspace.`,
        );
      return json(200, runCommand(body, c));
    } catch (e) {
      if (e instanceof AstraError) return errors(json, e.errorCode, e.message);
      throw e;
    }
  });
}
