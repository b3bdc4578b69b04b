// Vectara stand-in: REST API v2 (www/static/vectara-oas-v2.yaml and www/docs/migration-guide-api-v2.md in
// vectara/vectara-docs), keeping documents per corpus key. v1 (/v1/*, retired 2025-08-16) answers 404
// (assumed: what the retired paths answer now is not published).
//   POST   /v2/corpora/{key}/documents {id, type: "core", metadata, document_parts: [{text, metadata?}]}
//          (or type "structured" with sections) → 201 Document {id, metadata}; 409 when the id is there
//   DELETE /v2/corpora/{key}/documents/{percent-encoded id} → 204; 404 {messages, id} when it is not there
//   GET    /v2/corpora/{key} → 200 {key, name}
//   POST   /v2/query {query, search: {corpora: [{corpus_key, metadata_filter?, lexical_interpolation?}], offset?,
//          limit?, context_configuration?, reranker?}, generation?} → {search_results: [{text, score, part_metadata,
//          document_metadata, document_id, request_corpora_index}], summary?, response_language?}
//   POST   /v2/corpora/{key}/upload_file multipart (file: its URL-encoded file name is the document id) → 201
//          Document; the same file again → 201 (the indexer is idempotent), another one under that id → 409
// Errors: {messages: [...], request_id} (Error), with field_errors (BadRequestError) or id (NotFoundError).
// Auth: x-api-key starting "vectara-key-" (else 401); no customer-id header is needed.
// Stand-in conventions: corpus keys of digits only (v1 corpus ids) or starting "missing" do not exist (404);
// "down" answers 500, "hang" never answers. Scores: shared words of the query and the part over the query's
// words. metadata_filter: `doc.FIELD = 'text'` / `part.FIELD = 123` conditions joined by `and` (anything else a
// 400). Summaries cite the results used in reverse order ("[n] … [1] … [n]"); the generation preset
// "no-such-summarizer" is a 400 naming it (assumed: the reference documents no status for an unknown preset).
// GET /dump/CORPUS → {documents: [{id, metadata, text}]}; GET /requests?contains=MARKER lists what was received.
import { createServer } from "node:http";
import { hang } from "./base.mjs";

const corpora = new Map(); // corpus key → Map(id → {id, metadata, parts: [{text, metadata}], bytes})
const corpus = (key) => {
  if (!corpora.has(key)) corpora.set(key, new Map());
  return corpora.get(key);
};
const words = (t) =>
  new Set(
    String(t)
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [],
  );
const isInt = (v) => Number.isInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const chars = (s) => Array.from(s).length;
let requestNo = 0;
const requestId = () => `req-${++requestNo}`;

// Error bodies of the v2 reference: Error {messages, request_id}; BadRequestError adds field_errors; NotFoundError adds id.
const badRequest = (field, message) => [400, { field_errors: { [field]: message }, messages: [message], request_id: requestId() }];
const notFound = (id, message) => [404, { messages: [message], id, request_id: requestId() }];
const error = (status, message) => [status, { messages: [message], request_id: requestId() }];

/** CorpusKey: pattern `[a-zA-Z0-9_\=\-]+$`, maxLength 50. */
function validateCorpusKey(key, field) {
  if (typeof key !== "string" || !/^[a-zA-Z0-9_=-]+$/.test(key) || key.length > 50)
    return badRequest(field, `${field} must match [a-zA-Z0-9_=-]+ and be at most 50 characters`);
  // v1 corpus ids were migrated to keys like "name_10": a bare id names no corpus.
  if (/^\d+$/.test(key) || key.startsWith("missing")) return notFound(key, `Corpus not found: ${key}`);
}

/** CreateDocumentRequest: CoreDocument (id, type, document_parts minItems 1, each with text) or StructuredDocument (sections). */
function validateDocument(d) {
  if (!isObject(d)) return badRequest("body", "a document is required");
  if (typeof d.id !== "string" || !d.id) return badRequest("id", "id is required");
  if (d.metadata !== undefined && !isObject(d.metadata)) return badRequest("metadata", "metadata must be an object");
  const list = d.type === "core" ? "document_parts" : d.type === "structured" ? "sections" : null;
  if (!list) return badRequest("type", "type must be core or structured");
  if (!Array.isArray(d[list]) || !d[list].length) return badRequest(list, `${list} must have at least 1 item`);
  const i = d[list].findIndex((p) => !isObject(p) || typeof p.text !== "string");
  if (i >= 0) return badRequest(`${list}[${i}].text`, "text is required");
  if (d[list].some((p) => p.metadata !== undefined && !isObject(p.metadata)))
    return badRequest(`${list}.metadata`, "metadata must be an object");
}

/** `doc.x = 'y'` / `part.x = 1` joined by `and`; a filter it cannot read is a 400. */
function compile(filter) {
  if (!filter) return () => true;
  const conds = filter.split(/\s+and\s+/i).map((c) => {
    const m = /^\s*(doc|part)\.([\w.]+)\s*=\s*(?:'([^']*)'|(-?\d+(?:\.\d+)?))\s*$/.exec(c);
    if (!m) throw new Error(`invalid metadata filter: ${c.trim()}`);
    const want = m[3] ?? Number(m[4]);
    return (doc, part) => (m[1] === "doc" ? doc : part)[m[2]] === want;
  });
  return (doc, part) => conds.every((f) => f(doc, part));
}

const RERANKERS = ["customer_reranker", "userfn", "mmr", "chain", "none"];
const LANGUAGES = "auto eng deu fra zho kor ara rus tha nld ita por spa jpn pol tur vie ind ces ukr ell heb fas hin urd swe ben msa ron";

/** QueryRequest (query ≤ 5000 characters, search.corpora ≥ 1) with SearchParameters, ContextConfiguration, rerankers, generation. */
function validateQuery(q) {
  if (!isObject(q)) return badRequest("body", "a query request is required");
  if (typeof q.query !== "string") return badRequest("query", "query is required");
  if (chars(q.query) > 5000) return badRequest("query", "query must be at most 5000 characters");
  const s = q.search;
  if (!isObject(s)) return badRequest("search", "search is required");
  if (!Array.isArray(s.corpora) || !s.corpora.length) return badRequest("search.corpora", "corpora must have at least 1 item");
  for (const [i, c] of s.corpora.entries()) {
    const f = `search.corpora[${i}]`;
    if (c.metadata_filter !== undefined && (typeof c.metadata_filter !== "string" || c.metadata_filter.length > 8000))
      return badRequest(`${f}.metadata_filter`, "metadata_filter must be a string of at most 8000 characters");
    const li = c.lexical_interpolation;
    if (li !== undefined && !(typeof li === "number" && li >= 0 && li <= 1))
      return badRequest(`${f}.lexical_interpolation`, "lexical_interpolation must be from 0 to 1");
    const refused = validateCorpusKey(c.corpus_key, `${f}.corpus_key`);
    if (refused) return refused;
  }
  if (s.limit !== undefined && !(isInt(s.limit) && s.limit >= 1))
    return badRequest("search.limit", "limit must be an integer of at least 1");
  if (s.offset !== undefined && !(isInt(s.offset) && s.offset >= 0))
    return badRequest("search.offset", "offset must be an integer of at least 0");
  for (const k of ["sentences_before", "sentences_after"]) {
    const v = s.context_configuration?.[k];
    if (v !== undefined && !(isInt(v) && v >= 0))
      return badRequest(`search.context_configuration.${k}`, `${k} must be an integer of at least 0`);
  }
  const r = s.reranker;
  if (r !== undefined) {
    if (!isObject(r) || !RERANKERS.includes(r.type))
      return badRequest("search.reranker.type", `type must be one of ${RERANKERS.join(", ")}`);
    if (r.limit !== undefined && !(isInt(r.limit) && r.limit >= 1))
      return badRequest("search.reranker.limit", "limit must be an integer of at least 1");
    if (r.type === "mmr" && r.diversity_bias !== undefined && typeof r.diversity_bias !== "number")
      return badRequest("search.reranker.diversity_bias", "diversity_bias must be a number");
  }
  const g = q.generation;
  if (g !== undefined && g !== null) {
    if (g.generation_preset_name !== undefined && (typeof g.generation_preset_name !== "string" || !g.generation_preset_name))
      return badRequest("generation.generation_preset_name", "generation_preset_name must not be empty");
    const m = g.max_used_search_results;
    if (m !== undefined && !(isInt(m) && m >= 0))
      return badRequest("generation.max_used_search_results", "max_used_search_results must be an integer of at least 0");
    if (g.response_language !== undefined && !LANGUAGES.split(" ").includes(g.response_language))
      return badRequest("generation.response_language", "response_language must be auto or an ISO 639-3 code Vectara supports");
  }
}

function query(q) {
  const wanted = words(q.query);
  const hits = [];
  for (const [index, c] of q.search.corpora.entries()) {
    const match = compile(c.metadata_filter);
    for (const d of corpus(c.corpus_key).values())
      for (const p of d.parts) {
        const part_metadata = { lang: "eng", ...(p.metadata ?? {}) };
        if (!match(d.metadata, part_metadata)) continue;
        const have = words(p.text);
        const score = [...wanted].filter((w) => have.has(w)).length / Math.max(1, wanted.size);
        if (score > 0)
          hits.push({ text: p.text, score, part_metadata, document_metadata: d.metadata, document_id: d.id, request_corpora_index: index });
      }
  }
  hits.sort((a, b) => b.score - a.score);
  const offset = q.search.offset ?? 0;
  let search_results = hits.slice(offset, offset + (q.search.limit ?? 10));
  if (q.search.reranker?.limit) search_results = search_results.slice(0, q.search.reranker.limit);
  const g = q.generation;
  if (!g) return [200, { search_results }];
  if (g.generation_preset_name === "no-such-summarizer")
    return badRequest("generation.generation_preset_name", `Generation preset not found: ${g.generation_preset_name}`);
  const n = Math.min(g.max_used_search_results ?? 5, search_results.length);
  const summary = n ? `Most relevant [${n}]. Then [1]. Again [${n}].` : "No results.";
  return [200, { search_results, summary, response_language: g.response_language ?? "auto" }];
}

/** Multipart parts of a body: [{name, filename, content}] (latin1 text: a raw UTF-8 file name shows as non-ASCII). */
function parts(raw, type) {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type ?? "");
  if (!boundary) return [];
  return raw
    .toString("latin1")
    .split(`--${boundary[1] ?? boundary[2]}`)
    .slice(1, -1)
    .map((p) => {
      const [head, ...body] = p.replace(/^\r\n/, "").split("\r\n\r\n");
      return {
        name: /name="([^"]*)"/.exec(head)?.[1],
        filename: /filename="([^"]*)"/.exec(head)?.[1],
        content: body.join("\r\n\r\n").replace(/\r\n$/, ""),
      };
    });
}

/** upload_file: a `file` part is required; each file up to 10 MB; file names URL-encoded ("Filenames with non-ASCII characters"). */
function upload(key, raw, type) {
  // The reference: "Each uploaded file can be up to 10 MB"; the Python SDK docs: 413 Payload Too Large.
  if (raw.length > 10 * 1024 * 1024) return error(413, "File exceeds the 10 MB size limit");
  const file = parts(raw, type).find((p) => p.name === "file");
  if (!file?.filename) return badRequest("file", "file is required");
  let id;
  try {
    // A raw non-ASCII name is refused here (assumed: the docs only say to URL-encode it).
    if (/[^\x20-\x7e]/.test(file.filename)) throw new Error();
    id = decodeURIComponent(file.filename);
  } catch {
    return badRequest("file", "the file name must be URL-encoded");
  }
  const docs = corpus(key);
  const text = Buffer.from(file.content, "latin1").toString("utf8");
  const there = docs.get(id);
  if (there && there.parts[0].text !== text) return error(409, `Document ${id} already exists with different content`);
  docs.set(id, { id, metadata: { uploaded: "true" }, parts: [{ text }] });
  return [201, { id, metadata: { uploaded: "true" } }];
}

function route(req, url, body, raw) {
  if (url.pathname.startsWith("/v1/")) return notFound(url.pathname, "Not Found: Vectara's API v1 was retired on 2025-08-16; use API v2");
  if (req.method === "POST" && url.pathname === "/v2/query") {
    const refused = validateQuery(body);
    if (refused) return refused;
    const failing = body.search.corpora.find((c) => c.corpus_key === "down" || c.corpus_key === "hang");
    return failing ? failing.corpus_key : query(body);
  }
  const m = /^\/v2\/corpora\/([^/]+)(\/documents|\/upload_file)?(?:\/([^/]+))?$/.exec(url.pathname);
  if (!m) return notFound(url.pathname, `Not Found: ${req.method} ${url.pathname}`);
  const key = decodeURIComponent(m[1]);
  const refused = validateCorpusKey(key, "corpus_key");
  if (refused) return refused;
  if (key === "down" || key === "hang") return key;
  const docs = corpus(key);
  if (req.method === "GET" && !m[2]) return [200, { key, name: key }];
  if (req.method === "POST" && m[2] === "/upload_file" && !m[3]) return upload(key, raw, req.headers["content-type"]);
  if (req.method === "POST" && m[2] === "/documents" && !m[3]) {
    const bad = validateDocument(body);
    if (bad) return bad;
    if (docs.has(body.id)) return error(409, `Document ${body.id} already exists`);
    const list = body.type === "core" ? body.document_parts : body.sections;
    docs.set(body.id, { id: body.id, metadata: body.metadata ?? {}, parts: list.map((p) => ({ text: p.text, metadata: p.metadata })) });
    return [201, { id: body.id, metadata: body.metadata ?? {} }];
  }
  if (req.method === "DELETE" && m[2] === "/documents" && m[3]) {
    const id = decodeURIComponent(m[3]);
    if (!docs.delete(id)) return notFound(id, `Document not found: ${id}`);
    return [204];
  }
  return notFound(url.pathname, `Not Found: ${req.method} ${url.pathname}`);
}

export function startVectaraStandin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const reply = (status, value) => {
      if (value === undefined) return res.writeHead(status).end();
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      const m = url.searchParams.get("contains");
      return reply(
        200,
        requests.filter((r) => !m || r.raw.includes(m) || r.path.includes(m)).map(({ raw: _r, ...r }) => r),
      );
    }
    const dump = /^\/dump\/([^/]+)$/.exec(url.pathname);
    if (dump) {
      const documents = [...corpus(decodeURIComponent(dump[1])).values()].map((d) => ({
        id: d.id,
        metadata: d.metadata,
        text: d.parts.map((p) => p.text).join("\n"),
      }));
      return reply(200, { documents });
    }
    const text = raw.toString("utf8");
    let body;
    if (String(req.headers["content-type"]).startsWith("application/json")) {
      try {
        body = JSON.parse(text);
      } catch {
        return reply(...badRequest("body", "the body is not JSON"));
      }
    }
    requests.push({ method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, raw: text });
    if (!String(req.headers["x-api-key"] ?? "").startsWith("vectara-key-")) return reply(...error(401, "Unauthorized: invalid API key"));
    try {
      const answer = route(req, url, body, raw);
      if (answer === "hang") return hang(res);
      if (answer === "down") return reply(...error(500, "Internal error: the corpus is having a bad day"));
      return reply(...answer);
    } catch (err) {
      return reply(...badRequest("search.corpora.metadata_filter", String(err.message ?? err)));
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(() => r()))),
      });
    });
  });
}
