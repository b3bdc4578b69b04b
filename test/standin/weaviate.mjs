// Weaviate stand-in (REST and GraphQL, as its server answers them) that really stores objects:
//   GET    /v1/schema/CLASS          → {class, properties: [{name, dataType}], vectorizer} (404, empty body, when missing)
//   POST   /v1/schema {class}        → the class (422 {error: [{message}]} when it exists)
//   POST   /v1/batch/objects {objects: [{class, id, vector, properties}]} → [{…, result: {errors?}}] per object
//   DELETE /v1/batch/objects {match: {class, where}} → {results: {matches, successful}}
//   POST   /v1/graphql {query}        → {data: {Get: {CLASS: [...]}}} or {errors: [{message}]}
// GraphQL: `{ Get { CLASS(nearVector: {vector: […]}, where: {…}, limit: N) { props _additional { id distance vector } } } }`.
// Distances are cosine (1 - cos), nearest first. `where`: {path, operator: Equal|NotEqual|GreaterThan|
// GreaterThanEqual|LessThan|LessThanEqual|ContainsAny|ContainsAll, valueText|valueInt|valueNumber|
// valueBoolean|valueTextArray} and And/Or with operands. Properties are added to the schema as objects
// bring them (auto-schema). Errors as Weaviate's: {error: [{message}]}.
// Auth (API key auth on): no `Authorization: Bearer` → 401, a key not starting "wv-" → 401 too
// (Weaviate answers both so), except for classes named "Open…". Class "Down" answers 500, "Hang"
// never answers. GET /dump/CLASS → {class, objects} (for tests); GET /requests lists what was received.
//
// Requests are checked as Weaviate documents them (docs.weaviate.io: "Collection definition" — property
// names and reserved words, auto-schema —, the FAQ on UUIDs, GraphQL "Filters", QUERY_MAXIMUM_RESULTS;
// the REST schema's `Object.id` is `format: uuid`), with Weaviate's own error texts:
//   batch    a non-empty `objects` list; an id that is not a canonical UUID → 422 for the whole request
//            (go-swagger's {code, message}); per object (HTTP 200, the error in its `result`): the class
//            must exist, the vector have the class's length, each property name match
//            /[_A-Za-z][_0-9A-Za-z]{0,230}/, not be a reserved word (_additional, id, _id) nor, when new,
//            end in a reserved suffix (_searchable, _rangeable, _temp, __meta_count, _propertyLength,
//            _nullState), and a value not conflict with its property's type (text, number, boolean, arrays)
//   GraphQL  `where` needs a known operator; And/Or take operands, the others a path; limit ≤ 10000
//            (QUERY_MAXIMUM_RESULTS' default); a nearVector of the class's length
import { hang, serveStandin } from "./base.mjs";

const classes = new Map(); // name → {properties: Map(name → dataType), dimension, objects: Map(id → object)}

const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosineDistance = (a, b) => 1 - (norm(a) && norm(b) ? a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b)) : 0);

/** A tiny GraphQL reader: enough for the queries Weaviate's REST clients send. */
function parseGraphql(text) {
  const tokens = text.match(/"(?:\\.|[^"\\])*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[_A-Za-z][_0-9A-Za-z]*|[{}()[\]:,]/g) ?? [];
  let at = 0;
  const next = () => tokens[at++];
  const peek = () => tokens[at];
  const expect = (t) => {
    if (next() !== t) throw new Error(`GraphQL syntax: expected ${t}`);
  };
  const value = () => {
    const t = next();
    if (t === "{") {
      const o = {};
      while (peek() !== "}") {
        const k = next();
        expect(":");
        o[k] = value();
        if (peek() === ",") next();
      }
      next();
      return o;
    }
    if (t === "[") {
      const list = [];
      while (peek() !== "]") {
        list.push(value());
        if (peek() === ",") next();
      }
      next();
      return list;
    }
    if (t.startsWith('"')) return JSON.parse(t);
    if (/^-?\d/.test(t)) return Number(t);
    if (t === "true" || t === "false") return t === "true";
    if (t === "null") return null;
    return t; // an enum
  };
  const selection = () => {
    const fields = {};
    expect("{");
    while (peek() !== "}") {
      const name = next();
      const args = {};
      if (peek() === "(") {
        next();
        while (peek() !== ")") {
          const k = next();
          expect(":");
          args[k] = value();
          if (peek() === ",") next();
        }
        next();
      }
      fields[name] = { args, fields: peek() === "{" ? selection() : null };
    }
    next();
    return fields;
  };
  return selection();
}

const OPS = {
  Equal: (v, x) => (Array.isArray(v) ? v.includes(x) : v === x),
  NotEqual: (v, x) => v !== x,
  GreaterThan: (v, x) => v > x,
  GreaterThanEqual: (v, x) => v >= x,
  LessThan: (v, x) => v < x,
  LessThanEqual: (v, x) => v <= x,
  ContainsAny: (v, x) => (Array.isArray(v) ? v.some((y) => x.includes(y)) : x.includes(v)),
  ContainsAll: (v, x) => (Array.isArray(v) ? x.every((y) => v.includes(y)) : x.every((y) => y === v)),
};
const NESTED = new Set(["And", "Or"]);
const MAX_RESULTS = 10_000;

/** Weaviate's error for a `where` filter it cannot read (its filterext parser's words), or undefined. */
function whereError(where) {
  if (!where || typeof where !== "object" || Array.isArray(where)) return "invalid where filter: expected an object";
  const op = where.operator;
  if (!NESTED.has(op) && !OPS[op]) return `invalid where filter: unrecognized operator: ${op ?? ""}`;
  if (NESTED.has(op)) {
    if (where.path !== undefined) return `invalid where filter: operator '${op}' not compatible with field 'path'`;
    if (!Array.isArray(where.operands) || !where.operands.length)
      return `invalid where filter: operator '${op}', but no operands set - add at least one operand`;
    for (const [i, w] of where.operands.entries()) {
      const wrong = whereError(w);
      if (wrong) return `invalid where filter: operand ${i}: ${wrong.replace(/^invalid where filter: /, "")}`;
    }
    return undefined;
  }
  if (!Array.isArray(where.path) || !where.path.length) return "invalid where filter: field 'path': must have at least one element";
  if (!Object.keys(where).some((k) => k.startsWith("value")))
    return `invalid where filter: got operator '${op}' but no value<Type> field set`;
  return undefined;
}

function matches(o, where) {
  if (where.operator === "And") return where.operands.every((w) => matches(o, w));
  if (where.operator === "Or") return where.operands.some((w) => matches(o, w));
  const key = where.path[0];
  const v = key === "id" ? o.id : o.properties[key];
  const x = Object.entries(where).find(([k]) => k.startsWith("value"))?.[1];
  return v !== undefined && OPS[where.operator](v, x);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PROPERTY_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,230}$/;
const RESERVED_NAMES = ["_additional", "id", "_id"];
const RESERVED_SUFFIXES = ["_searchable", "_rangeable", "_temp", "__meta_count", "_propertyLength", "_nullState"];

const typeOf = (v) => {
  const one = (x) => (typeof x === "number" ? "number" : typeof x === "boolean" ? "boolean" : "text");
  return Array.isArray(v) ? `${one(v[0])}[]` : one(v);
};
const TYPE_WORDS = {
  text: "text",
  number: "number",
  boolean: "boolean",
  "text[]": "text array",
  "number[]": "number array",
  "boolean[]": "boolean array",
};

/** Why Weaviate refuses one object of a batch (its per-object error), or undefined. */
function objectError(target, o) {
  if (!target) return `class "${o.class}" not found in schema`;
  // (An object without a vector is stored without one by a class without a vectorizer; this stand-in needs one.)
  if (!Array.isArray(o.vector)) throw new Error("the Weaviate stand-in stores objects with vectors only");
  if (target.dimension !== undefined && o.vector.length !== target.dimension)
    return `new node has a vector with length ${o.vector.length}. Existing nodes have vectors with length ${target.dimension}`;
  for (const [name, value] of Object.entries(o.properties ?? {})) {
    if (name.length > 231) return `'${name}' is not a valid property name. Name should not be longer than 231 characters`;
    if (!PROPERTY_NAME.test(name))
      return (
        `'${name}' is not a valid property name. Property names in Weaviate are restricted to valid GraphQL names, ` +
        "which must be “/[_A-Za-z][_0-9A-Za-z]{0,230}/”"
      );
    if (RESERVED_NAMES.includes(name)) return `'${name}' is a reserved property name`;
    const known = target.properties.get(name);
    const suffix = RESERVED_SUFFIXES.find((s) => name.endsWith(s));
    if (!known && suffix) return `'${name}' is not a valid property name: suffix '${suffix}' is reserved for internal indices`;
    if (known && value !== null && !(Array.isArray(value) && !value.length) && typeOf(value) !== known)
      return `invalid ${TYPE_WORDS[known]} property '${name}' on class '${o.class}': not a ${TYPE_WORDS[known]}, but ${typeof value}`;
  }
  return undefined;
}

export function startWeaviateStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    const error = (status, message) => json(status, { error: [{ message }] });
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const c = classes.get(decodeURIComponent(dump[1]));
      return c ? json(200, { class: dump[1], objects: [...c.objects.values()] }) : error(404, "no such class");
    }
    let query;
    let className = "";
    if (url.pathname === "/v1/graphql") {
      try {
        query = parseGraphql(body.query);
      } catch (e) {
        return json(200, { errors: [{ message: String(e.message) }] });
      }
      className = Object.keys(query.Get?.fields ?? {})[0] ?? "";
    } else if (url.pathname.startsWith("/v1/schema/")) className = decodeURIComponent(url.pathname.slice(11));
    else if (url.pathname === "/v1/schema") className = body?.class ?? "";
    else if (url.pathname === "/v1/batch/objects")
      className = req.method === "DELETE" ? (body?.match?.class ?? "") : (body?.objects?.[0]?.class ?? "");
    else return error(404, `no route ${req.method} ${url.pathname}`);
    if (!className.startsWith("Open")) {
      const auth = String(req.headers.authorization ?? "");
      if (!auth) return error(401, "anonymous access not enabled, please provide an auth scheme such as OIDC or API key");
      if (!auth.startsWith("Bearer wv-")) return error(401, "unauthorized: invalid api key");
    }
    if (className === "Down") return error(500, "the shard is having a bad day");
    if (className === "Hang") return hang(res);
    const c = classes.get(className);
    if (url.pathname.startsWith("/v1/schema/") && req.method === "GET") {
      if (!c) {
        res.writeHead(404);
        return res.end();
      }
      const properties = [...c.properties].map(([name, dataType]) => ({ name, dataType: [dataType] }));
      return json(200, { class: className, properties, vectorizer: "none" });
    }
    if (url.pathname === "/v1/schema" && req.method === "POST") {
      if (!/^[A-Z][_0-9A-Za-z]*$/.test(className)) return error(422, `'${className}' is not a valid class name`);
      if (c) return error(422, `class name "${className}" already exists`);
      classes.set(className, { properties: new Map(), dimension: undefined, objects: new Map() });
      return json(200, { class: className, properties: [], vectorizer: "none" });
    }
    if (url.pathname === "/v1/batch/objects" && req.method === "POST") {
      if (!Array.isArray(body?.objects) || !body.objects.length) return json(422, { code: 601, message: "empty objects" });
      // The REST schema's id is `format: uuid`: go-swagger refuses the whole request before anything is read.
      const badId = body.objects.findIndex((o) => o.id !== undefined && !UUID.test(String(o.id)));
      if (badId >= 0)
        return json(422, {
          code: 601,
          message: `objects.${badId}.id in body must be of type uuid: ${JSON.stringify(body.objects[badId].id)}`,
        });
      const answers = body.objects.map((o) => {
        const target = classes.get(o.class);
        const message = objectError(target, o);
        if (message) return { ...o, result: { errors: { error: [{ message }] } } };
        target.dimension ??= o.vector.length;
        for (const [k, v] of Object.entries(o.properties ?? {}))
          if (!target.properties.has(k) && v !== null) target.properties.set(k, typeOf(v));
        target.objects.set(o.id, { id: o.id, vector: o.vector, properties: o.properties ?? {} });
        return { ...o, result: {} };
      });
      return json(200, answers);
    }
    if (url.pathname === "/v1/batch/objects" && req.method === "DELETE") {
      if (!c) return error(422, `class "${className}" not found in schema`);
      const wrongWhere = whereError(body.match.where);
      if (wrongWhere) return error(422, wrongWhere);
      const gone = [...c.objects.values()].filter((o) => matches(o, body.match.where));
      for (const o of gone) c.objects.delete(o.id);
      return json(200, { match: body.match, results: { matches: gone.length, successful: gone.length, failed: 0 } });
    }
    if (url.pathname === "/v1/graphql") {
      if (!c) return json(200, { errors: [{ message: `Cannot query field "${className}" on type "GetObjectsObj".` }] });
      const { args, fields } = query.Get.fields[className];
      for (const f of Object.keys(fields)) {
        if (f !== "_additional" && !c.properties.has(f))
          return json(200, { errors: [{ message: `Cannot query field "${f}" on type "${className}".` }] });
      }
      if (args.where !== undefined) {
        const wrongWhere = whereError(args.where);
        if (wrongWhere) return json(200, { errors: [{ message: wrongWhere }] });
      }
      if (args.limit !== undefined && !(Number.isInteger(args.limit) && args.limit >= 0 && args.limit <= MAX_RESULTS))
        return json(200, {
          errors: [
            {
              message:
                `query maximum results exceeded: the total limit calculated from the provided offset '0' and limit '${args.limit}' ` +
                `exceeds the configured value for QUERY_MAXIMUM_RESULTS '${MAX_RESULTS}'`,
            },
          ],
        });
      const v = args.nearVector?.vector;
      if (v && v.length !== c.dimension)
        return json(200, { errors: [{ message: `vector lengths don't match: ${v.length} vs ${c.dimension}` }] });
      const found = [...c.objects.values()]
        .filter((o) => !args.where || matches(o, args.where))
        .map((o) => ({ o, d: v ? cosineDistance(v, o.vector) : 0 }))
        .sort((a, b) => a.d - b.d)
        .slice(0, args.limit ?? 10);
      const extra = fields._additional?.fields ?? {};
      const shaped = found.map(({ o, d }) => ({
        ...Object.fromEntries(
          Object.keys(fields)
            .filter((f) => f !== "_additional")
            .map((f) => [f, o.properties[f] ?? null]),
        ),
        ...(fields._additional
          ? {
              _additional: {
                ...("id" in extra ? { id: o.id } : {}),
                ...("distance" in extra ? { distance: d } : {}),
                ...("vector" in extra ? { vector: o.vector } : {}),
              },
            }
          : {}),
      }));
      return json(200, { data: { Get: { [className]: shaped } } });
    }
    return error(404, `no route ${req.method} ${url.pathname}`);
  });
}
