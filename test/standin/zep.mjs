// Zep (Cloud API v2 and open-source v1) and mem0 platform stand-in, one server, state in memory:
//   Zep Cloud  /api/v2, `Authorization: Api-Key z-…` (else 401 {message}):
//     GET|POST /sessions/{id}/memory  (GET ?memoryType → {messages: [{role, role_type, content}], summary?, facts?};
//              404 for an unknown session; POST {messages} → 404 until POST /sessions {session_id} made it)
//     GET|POST /collections/{name}, POST …/documents [{content, document_id, metadata}] → [uuid…] (the stand-in
//     embeds the text: words hashed into 256 dimensions), POST …/documents/batchDelete [uuid…],
//     POST …/search?limit {text, metadata} → {results: [{uuid, document_id, content, metadata, score, embedding}], query_vector}
//   Zep open source  /api/v1, optional `Authorization: Bearer zos-…` (another value → 401):
//     GET|POST /sessions/{id}/memory (GET ?lastn: the last n messages; POST creates the session),
//     GET|POST /collection/{name} ({embedding_dimensions}), POST …/document [{content, document_id, metadata, embedding}]
//     (a vector of another size → 400), DELETE …/document/uuid/{uuid}, POST …/search?limit {embedding, metadata}
//   mem0  `Authorization: Token m0-…` (else 401 {detail}): POST /v1/memories/ {messages, user_id, …} keeps each user
//     message as a memory; POST /v1/memories/search/ {query, user_id, …} → [{id, memory, user_id, score}] (that user's).
// Metadata filters: {where: {and|or: [{jsonpath: "$[*] ? (@.key == value)"}]}} or {where: {jsonpath}}.
// Open-source Zep's collection routes refuse what its server (getzep/zep v0.27, pkg/models/document.go validate
// tags, pkg/server/routes.go, handlertools.RenderError, Postgres behind it) refuses, as text/plain (validateZep…):
//   collection create: name alphanum 3–40, embedding_dimensions 8–2000, is_auto_embedded a boolean → 400;
//   document add: a body over server.max_request_size (5 MiB) → 413; document_id printable ASCII ≤ 100, content
//     or embedding → 400; NUL in content (22021) or metadata (jsonb, 22P05) → 500;
//   search: each jsonpath ('→" first, as Zep does) must be PostgreSQL jsonpath `$[*] ? (@.key == literal)`, keys
//     not identifiers double-quoted, literals JSON scalars; else Postgres's syntax error → 500.
// A session, collection or user named with "fail" answers 500, with "hang" never answers.
// Memory writes are refused (400) as the services document them (validateZepMessages, validateMem0Add):
//   Zep Cloud (help.getzep.com/api-reference/memory/add, "Memories"): `messages` a non-empty list, each with string
//     content and role_type one of norole, system, assistant, user, function, tool; Zep v1: string role and content;
//   mem0 (docs.mem0.ai, Add Memory): `messages` a non-empty list of {role, content} (content text, or a
//     multimodal object).
// GET /dump/{v1|v2}/collections/{name}, /dump/{v1|v2}/sessions/{id}, /dump/mem0/{user} show the state; GET /requests.
import { hang, serveStandin } from "./base.mjs";

const state = { v1: { sessions: new Map(), collections: new Map() }, v2: { sessions: new Map(), collections: new Map() } };
const mem0 = new Map(); // user_id → [{id, memory, user_id, agent_id, run_id}]
let seq = 0;
const uuid = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, "0")}`;

const DIMS = 256;
function embed(text) {
  const v = new Array(DIMS).fill(0);
  for (const w of String(text)
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    v[h % DIMS] += 1;
  }
  return v;
}
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a, b) => (norm(a) && norm(b) ? a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0) / (norm(a) * norm(b)) : 0);

const JSONPATH_KEY = /\.(?:([\p{L}_][\p{L}\p{N}_$]*)|("(?:[^"\\]|\\.)*"))/gu;
const JSONPATH_COND = /^\$\[\*\] \? \(@((?:\.(?:[\p{L}_][\p{L}\p{N}_$]*|"(?:[^"\\]|\\.)*"))+) == (.+)\)$/u;

/** A `$[*] ? (@.key == literal)` condition as PostgreSQL's jsonpath reads it ({keys, want}), else a syntax error. */
function parseJsonPath(jsonpath, strict) {
  // Zep replaces every ' of a path with " before Postgres reads it (pkg/store/postgres/search_utils.go).
  const path = strict ? String(jsonpath).replaceAll("'", '"') : String(jsonpath);
  const m = JSONPATH_COND.exec(path);
  let want;
  try {
    want = m && JSON.parse(m[2]);
  } catch {}
  if (!m || (want !== null && typeof want === "object") || want === undefined)
    throw new Error(`ERROR: syntax error at or near "${path.slice(10, 40)}" of jsonpath input (SQLSTATE 42601)`);
  const keys = [...m[1].matchAll(JSONPATH_KEY)].map((k) => k[1] ?? JSON.parse(k[2]));
  return { keys, want };
}

/** A predicate over metadata from Zep's {where: …} filter (the `== value` JSONPath conditions only). */
function compile(filter, strict) {
  const where = filter?.where;
  if (!where) return () => true;
  const cond = ({ jsonpath }) => {
    const { keys, want } = parseJsonPath(jsonpath, strict);
    return (meta) => keys.reduce((v, k) => (v && typeof v === "object" ? v[k] : undefined), meta) === want;
  };
  if (where.jsonpath) return cond(where);
  const ands = (where.and ?? []).map(cond);
  const ors = (where.or ?? []).map(cond);
  return (meta) => ands.every((c) => c(meta)) && (!ors.length || ors.some((c) => c(meta)));
}

/** Open-source Zep's server.max_request_size (config.yaml default, 5 MiB): past it a 413. */
const ZEP_MAX_REQUEST = 5_242_880;
const fieldError = (struct, field, tag) => `Key: '${struct}.${field}' Error:Field validation for '${field}' failed on the '${tag}' tag`;

/** Why open-source Zep refuses a collection create (CreateDocumentCollectionRequest's validate tags), else undefined. */
function validateZepCollection(body) {
  const name = body?.name;
  if (typeof name !== "string" || !name) return fieldError("CreateDocumentCollectionRequest", "Name", "required");
  if (!/^[A-Za-z0-9]+$/.test(name)) return fieldError("CreateDocumentCollectionRequest", "Name", "alphanum");
  if (name.length < 3 || name.length > 40) return fieldError("CreateDocumentCollectionRequest", "Name", name.length < 3 ? "min" : "max");
  const dims = body.embedding_dimensions;
  if (!Number.isInteger(dims) || dims < 8 || dims > 2000)
    return fieldError("CreateDocumentCollectionRequest", "EmbeddingDimensions", !dims ? "required" : dims < 8 ? "min" : "max");
  if (typeof body.is_auto_embedded !== "boolean") return fieldError("CreateDocumentCollectionRequest", "IsAutoEmbedded", "required");
  return undefined;
}

const hasNul = (v) =>
  typeof v === "string"
    ? v.includes("\u0000")
    : v && typeof v === "object" && Object.entries(v).some(([k, x]) => k.includes("\u0000") || hasNul(x));

/** Why open-source Zep refuses a document add ({status, message}: CreateDocumentRequest's tags, then Postgres), else undefined. */
function validateZepDocuments(docs) {
  if (!Array.isArray(docs))
    return { status: 400, message: "json: cannot unmarshal object into Go value of type []models.CreateDocumentRequest" };
  for (const d of docs) {
    if (d.document_id !== undefined && !/^[\x20-\x7e]{0,100}$/.test(String(d.document_id)))
      return {
        status: 400,
        message: fieldError("CreateDocumentRequest", "DocumentID", String(d.document_id).length > 100 ? "max" : "printascii"),
      };
    if (!d.content && !d.embedding?.length)
      return { status: 400, message: fieldError("CreateDocumentRequest", "Content", "required_without") };
    if (hasNul(d.content))
      return {
        status: 500,
        message: 'failed to create documents: ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)',
      };
    if (hasNul(d.metadata))
      return { status: 500, message: "failed to create documents: ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)" };
  }
  return undefined;
}

const ZEP_ROLE_TYPES = new Set(["norole", "system", "assistant", "user", "function", "tool"]);

/** Why Zep refuses a memory write's messages, else undefined. */
function validateZepMessages(messages, cloud) {
  if (!Array.isArray(messages) || !messages.length) return "messages must be a non-empty list";
  for (const [i, m] of messages.entries()) {
    if (typeof m?.content !== "string") return `messages[${i}].content must be a string`;
    if (cloud && !ZEP_ROLE_TYPES.has(m.role_type))
      return `messages[${i}].role_type must be one of ${[...ZEP_ROLE_TYPES].join(", ")} (got ${JSON.stringify(m.role_type)})`;
    if (!cloud && typeof m.role !== "string") return `messages[${i}].role must be a string`;
  }
  return undefined;
}

/** Why mem0 refuses POST /v1/memories/, else undefined. */
function validateMem0Add(body) {
  const messages = body?.messages;
  if (!Array.isArray(messages) || !messages.length) return "messages must be a non-empty list";
  for (const [i, m] of messages.entries()) {
    if (typeof m?.role !== "string") return `messages[${i}].role must be a string (user, assistant)`;
    if (typeof m.content !== "string" && (typeof m.content !== "object" || m.content === null))
      return `messages[${i}].content must be text or a multimodal object`;
  }
  return undefined;
}

export function startZepStandin() {
  return serveStandin(async ({ req, res, url, body, bytes, json }) => {
    const path = decodeURIComponent(url.pathname);
    const dump = /^\/dump\/(v1|v2)\/(sessions|collections)\/(.+)$/.exec(path);
    if (dump) {
      const item = state[dump[1]][dump[2]].get(dump[3]);
      return json(200, dump[2] === "collections" ? { docs: item ? [...item.docs.values()] : [] } : (item ?? null));
    }
    if (path.startsWith("/dump/mem0/")) return json(200, mem0.get(path.slice(11)) ?? []);
    const auth = String(req.headers.authorization ?? "");

    if (path.startsWith("/v1/memories/")) {
      if (!auth.startsWith("Token m0-")) return json(401, { detail: "Invalid API key" });
      const user = String(body?.user_id ?? "");
      if (user.includes("fail")) return json(500, { error: "mem0 is having a bad day" });
      if (user.includes("hang")) return hang(res);
      const list = mem0.get(user) ?? [];
      mem0.set(user, list);
      if (path === "/v1/memories/") {
        const refused = validateMem0Add(body);
        if (refused) return json(400, { error: refused });
        const added = (body.messages ?? [])
          .filter((m) => m.role === "user")
          .map((m) => ({ id: uuid(), memory: m.content, user_id: user, agent_id: body.agent_id ?? null, run_id: body.run_id ?? null }));
        list.push(...added);
        return json(
          200,
          added.map((a) => ({ id: a.id, memory: a.memory, event: "ADD" })),
        );
      }
      if (path === "/v1/memories/search/") {
        const q = embed(body.query);
        const hits = list
          .filter((m) => !body.agent_id || m.agent_id === body.agent_id)
          .map((m) => ({ ...m, score: cosine(q, embed(m.memory)) }))
          .sort((a, b) => b.score - a.score);
        return json(200, hits);
      }
      return json(404, { detail: "Not found." });
    }

    const route = /^\/api\/(v1|v2)\/(.*)$/.exec(path);
    if (!route) return json(404, { message: `not found: ${path}` });
    const [v, rest] = [route[1], route[2]];
    const cloud = v === "v2";
    if (cloud ? !auth.startsWith("Api-Key z-") : auth && !auth.startsWith("Bearer zos-"))
      return json(401, { message: "unauthorized: invalid api key" });
    const { sessions, collections } = state[v];
    if (/fail/.test(rest)) return json(500, { message: "zep is having a bad day" });
    if (/hang/.test(rest)) return hang(res);

    if (cloud && rest === "sessions" && req.method === "POST") {
      if (!sessions.has(body.session_id)) sessions.set(body.session_id, { messages: [] });
      return json(201, { session_id: body.session_id, uuid: uuid() });
    }
    const mem = /^sessions\/([^/]+)\/memory$/.exec(rest);
    if (mem) {
      const id = mem[1];
      let s = sessions.get(id);
      if (req.method === "GET") {
        if (!s) return json(404, { message: "not found" });
        const lastn = Number(url.searchParams.get("lastn") ?? 0);
        return json(200, { ...s, messages: lastn ? s.messages.slice(-lastn) : s.messages });
      }
      const refused = validateZepMessages(body?.messages, cloud);
      if (refused) return json(400, { message: refused });
      if (!s) {
        if (cloud) return json(404, { message: `session ${id} not found` });
        sessions.set(id, (s = { messages: [] }));
      }
      for (const m of body.messages ?? []) s.messages.push({ uuid: uuid(), ...m });
      if (body.summary) s.summary = body.summary;
      if (body.facts) s.facts = body.facts;
      return json(200, cloud ? { message: "OK" } : "OK");
    }

    const col = new RegExp(`^${cloud ? "collections" : "collection"}/([^/]+)(?:/(.*))?$`).exec(rest);
    if (!col) return json(404, { message: `not found: ${rest}` });
    const [name, op] = [col[1], col[2] ?? ""];
    const c = collections.get(name);
    // Open-source Zep answers its refusals as http.Error does: text/plain.
    const text = (status, message) => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      res.end(`${message}\n`);
    };
    if (!cloud && bytes.length > ZEP_MAX_REQUEST)
      return text(413, "request body too large. if you're uploading documents, reduce the batch size or size of the document chunks");
    if (!op) {
      if (req.method === "GET") return c ? json(200, { name, embedding_dimensions: c.dims }) : json(404, { message: "not found" });
      if (c) return json(400, { message: `collection ${name} already exists` });
      const refused = cloud ? undefined : validateZepCollection(body);
      if (refused) return text(400, refused);
      collections.set(name, { dims: cloud ? DIMS : body.embedding_dimensions, docs: new Map() });
      return json(200, { message: "OK" });
    }
    if (!c) return json(404, { message: `collection ${name} not found` });
    if (op === (cloud ? "documents" : "document") && req.method === "POST") {
      const refused = cloud ? undefined : validateZepDocuments(body);
      if (refused) return text(refused.status, refused.message);
      for (const d of body) {
        const e = cloud ? embed(d.content) : d.embedding;
        if (!Array.isArray(e) || e.length !== c.dims) return json(400, { message: `embedding must have ${c.dims} dimensions` });
      }
      const ids = body.map((d) => {
        const id = uuid();
        c.docs.set(id, { uuid: id, ...d, embedding: cloud ? embed(d.content) : d.embedding });
        return id;
      });
      return json(200, ids);
    }
    if (cloud && op === "documents/batchDelete") {
      for (const id of body) c.docs.delete(id);
      return json(200, { message: "OK" });
    }
    const del = /^document\/uuid\/(.+)$/.exec(op);
    if (!cloud && del && req.method === "DELETE")
      return c.docs.delete(del[1]) ? json(200, "OK") : json(404, { message: "document not found" });
    if (op === "search") {
      const q = cloud ? embed(body.text) : body.embedding;
      let keep;
      try {
        keep = compile(body.metadata, !cloud);
      } catch (err) {
        // Open source: Postgres's jsonpath syntax error surfaces as Zep's 500.
        if (!cloud) return text(500, `error executing search: error executing query: error scanning query ${err.message}`);
        return json(400, { message: String(err.message) });
      }
      const results = [...c.docs.values()]
        .filter((d) => keep(d.metadata ?? {}))
        .map((d) => ({ ...d, score: (1 + cosine(q, d.embedding)) / 2 }))
        .sort((a, b) => b.score - a.score)
        .slice(0, Number(url.searchParams.get("limit") ?? 10));
      return json(200, { results, query_vector: q });
    }
    return json(404, { message: `not found: ${rest}` });
  });
}
