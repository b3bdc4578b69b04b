// Rerank APIs for the main stand-in (server.mjs hooks it): POST …/v1/rerank and …/v2/rerank, answered in
// the shape of the service the path names — …/voyage/v1/rerank Voyage's ({data: [{index, relevance_score}]},
// `top_k`), …/jina/v1/rerank Jina's ({results: [{index, relevance_score}]}, `top_n`), any other Cohere's
// ({results: [{index, relevance_score}]}, `top_n`; v1 or v2 as the path says).
// Each refuses what its service documents refusing, in its own error shape (validate…() below, each rule
// with its source); misc-models.mjs's Azure rerank uses validateCohereV2.
// Deterministic scores: the share of the query's words (lower-cased, 3+ letters) the document holds,
// ties in the documents' order; best first, cut to top_n / top_k. [fail-rerank] in the query → 500
// with the service's error body ({message}, Jina and Voyage {detail}).
// Recorded as the other routes (GET /requests).
const answer = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
  return true;
};

const wordsOf = (text) =>
  new Set(
    String(text)
      .toLowerCase()
      .match(/[a-z]{3,}/g) ?? [],
  );

/** The share of the query's words found in the document (0 to 1), rounded to 4 places. */
export function overlapScore(query, document) {
  const q = wordsOf(query);
  if (!q.size) return 0;
  const d = wordsOf(document);
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return Math.round((shared / q.size) * 10000) / 10000;
}

/** The documents ranked against the query, best first (ties in order), cut to `limit` when it is a positive integer. */
export function ranked(query, texts, limit) {
  const all = texts
    .map((text, index) => ({ index, relevance_score: overlapScore(query, text) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return Number.isInteger(limit) && limit > 0 ? all.slice(0, limit) : all;
}

const isInt = (v) => Number.isInteger(v);
const blank = (v) => typeof v !== "string" || !v.trim();

// Cohere's own texts for these two (quoted by tryAGI/Cohere's recorded rerank answers and in apps catching
// "cohere.error.CohereAPIError: invalid request: list of documents must not be empty").
const COHERE_NO_DOCUMENTS = "invalid request: list of documents must not be empty";
const COHERE_BLANK_QUERY = "invalid request: query must not be empty or be only whitespace";
/** Cohere's cap: "the endpoint will error if len(documents) * max_chunks_per_doc > 10,000" (changelog, 2023-06-23). */
const COHERE_MAX_CHUNKS = 10_000;

// Cohere Rerank v1 (cohere-openapi.yaml, POST /v1/rerank): query and documents required, documents strings
// or {text} objects, top_n integer minimum 1, max_chunks_per_doc (default 10; at least 1 — "Max Number of
// Chunks", reranking best practices) with documents × max_chunks_per_doc ≤ 10,000. Errors 400 {message}.
export function validateCohereV1(body) {
  const fail = (message) => [400, { id: "standin", message }];
  const b = body && typeof body === "object" ? body : {};
  if (blank(b.query)) return fail(COHERE_BLANK_QUERY);
  if (!Array.isArray(b.documents) || !b.documents.length) return fail(COHERE_NO_DOCUMENTS);
  if (!b.documents.every((d) => typeof d === "string" || typeof d?.text === "string"))
    return fail("invalid request: each document must be a string or an object with a text field");
  if (b.top_n !== undefined && !(isInt(b.top_n) && b.top_n >= 1)) return fail("invalid request: top_n must be an integer of at least 1");
  const chunks = b.max_chunks_per_doc ?? 10;
  if (!(isInt(chunks) && chunks >= 1)) return fail("invalid request: max_chunks_per_doc must be an integer of at least 1");
  if (b.documents.length * chunks > COHERE_MAX_CHUNKS)
    return fail(`invalid request: the total number of chunks (documents × max_chunks_per_doc) must be at most ${COHERE_MAX_CHUNKS}`);
  if (b.return_documents !== undefined && typeof b.return_documents !== "boolean")
    return fail("invalid request: return_documents must be a boolean");
}

// Cohere Rerank v2 (cohere-openapi.yaml, POST /v2/rerank; the rerank-v3.5 changelog): model, query and
// documents required; documents are strings only ("support for passing a list of objects … has been
// removed"); top_n integer minimum 1; max_tokens_per_doc replaced max_chunks_per_doc; priority 0–999; no
// more than 10,000 documents (best practices). A field v2 does not take is a 422 "unknown field: parameter
// '…' is not a valid field" (Cohere's answer to /v2/rerank, quoted in HKUDS/LightRAG#1813). Also the
// route Azure AI Foundry serves Cohere's rerank on (/providers/cohere/v2/rerank).
const COHERE_V2_FIELDS = new Set(["model", "query", "documents", "top_n", "max_tokens_per_doc", "priority"]);
export function validateCohereV2(body) {
  const fail = (message, status = 400) => [status, { id: "standin", message }];
  const b = body && typeof body === "object" ? body : {};
  const unknown = Object.keys(b).find((k) => !COHERE_V2_FIELDS.has(k));
  const usage = "For proper usage, please refer to https://docs.cohere.com/reference/rerank";
  if (unknown) return fail(`unknown field: parameter '${unknown}' is not a valid field. ${usage}`, 422);
  if (blank(b.model)) return fail("invalid request: model is required");
  if (blank(b.query)) return fail(COHERE_BLANK_QUERY);
  if (!Array.isArray(b.documents) || !b.documents.length) return fail(COHERE_NO_DOCUMENTS);
  if (!b.documents.every((d) => typeof d === "string")) return fail("invalid request: documents must be a list of strings");
  if (b.documents.length > COHERE_MAX_CHUNKS) return fail(`invalid request: at most ${COHERE_MAX_CHUNKS} documents are allowed`);
  if (b.top_n !== undefined && !(isInt(b.top_n) && b.top_n >= 1)) return fail("invalid request: top_n must be an integer of at least 1");
  if (b.max_tokens_per_doc !== undefined && !isInt(b.max_tokens_per_doc))
    return fail("invalid request: max_tokens_per_doc must be an integer");
  if (b.priority !== undefined && !(isInt(b.priority) && b.priority >= 0 && b.priority <= 999))
    return fail("invalid request: priority must be between 0 and 999");
}

// Voyage AI (docs.voyageai.com reranker API; its TypeScript SDK's RerankRequest): query, documents (a list of
// strings, at most 1,000) and model required; top_k, return_documents, truncation optional; the models
// below. Measured against the live API (diegosouzapw/OmniRoute#7809): any other argument is a 400 "…
// Argument 'top_n' is not supported by our API", an empty string among the documents (or an empty list) a
// 400 "Input cannot contain empty strings or empty lists" (whitespace is accepted). Errors {detail}; the
// prefix is Voyage's own ("…not specified properly. In particular, Value 'None' supplied for argument
// 'model' is not a valid string", chunkhound/chunkhound#154).
const VOYAGE_FIELDS = new Set(["query", "documents", "model", "top_k", "return_documents", "truncation"]);
const VOYAGE_MODELS = [
  "rerank-3",
  "rerank-3-lite",
  "rerank-2.5",
  "rerank-2.5-lite",
  "rerank-2",
  "rerank-2-lite",
  "rerank-1",
  "rerank-lite-1",
];
const VOYAGE_PREFIX = "The request body is not valid JSON, or some arguments were not specified properly. In particular, ";
export function validateVoyage(body) {
  const fail = (detail) => [400, { detail }];
  const b = body && typeof body === "object" ? body : {};
  const unknown = Object.keys(b).find((k) => !VOYAGE_FIELDS.has(k));
  if (unknown) return fail(`${VOYAGE_PREFIX}Argument '${unknown}' is not supported by our API`);
  if (typeof b.model !== "string")
    return fail(`${VOYAGE_PREFIX}Value '${b.model ?? "None"}' supplied for argument 'model' is not a valid string`);
  if (!VOYAGE_MODELS.includes(b.model)) return fail(`Model ${b.model} is not supported. Supported rerankers: ${VOYAGE_MODELS.join(", ")}`);
  if (typeof b.query !== "string") return fail(`${VOYAGE_PREFIX}Value supplied for argument 'query' is not a valid string`);
  if (!Array.isArray(b.documents) || !b.documents.every((d) => typeof d === "string"))
    return fail(`${VOYAGE_PREFIX}Value supplied for argument 'documents' is not a valid list of strings`);
  if (!b.documents.length || b.documents.includes("")) return fail("Input cannot contain empty strings or empty lists");
  if (b.documents.length > 1000) return fail("The number of documents cannot exceed 1000.");
  if (b.top_k !== undefined && b.top_k !== null && !isInt(b.top_k))
    return fail(`${VOYAGE_PREFIX}Value supplied for argument 'top_k' is not a valid integer`);
}

// Jina AI (its API reference, jina-ai/meta-prompt): model, query and documents required; documents strings
// or objects; top_n an integer; return_documents a boolean. Errors {detail} (the shape is ours: not confirmed).
export function validateJina(body) {
  const fail = (detail) => [422, { detail }];
  const b = body && typeof body === "object" ? body : {};
  if (blank(b.model)) return fail("model is required");
  if (typeof b.query !== "string") return fail("query is required");
  if (!Array.isArray(b.documents) || !b.documents.length) return fail("documents must be a non-empty list");
  if (b.top_n !== undefined && !isInt(b.top_n)) return fail("top_n must be an integer");
  if (b.return_documents !== undefined && typeof b.return_documents !== "boolean") return fail("return_documents must be a boolean");
}

const VALIDATORS = { cohere: validateCohereV1, cohereV2: validateCohereV2, voyage: validateVoyage, jina: validateJina };

/** Answers a rerank request (true), or leaves the request to the next route (false). */
export function rerank({ req, res, url, raw, record }) {
  const path = /\/v([12])\/rerank$/.exec(url.pathname);
  if (req.method !== "POST" || !path) return false;
  const vendor = url.pathname.startsWith("/voyage/") ? "voyage" : url.pathname.startsWith("/jina/") ? "jina" : "cohere";
  const service = vendor === "cohere" && path[1] === "2" ? "cohereV2" : vendor;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const query = String(body.query ?? "");
  if (query.includes("[fail-rerank]"))
    return answer(
      res,
      500,
      vendor === "cohere" ? { message: `stand-in ${vendor} rerank failure` } : { detail: `stand-in ${vendor} rerank failure` },
    );
  const invalid = VALIDATORS[service](body);
  if (invalid) return answer(res, ...invalid);
  const texts = body.documents.map((d) => (typeof d === "string" ? d : String(d?.text ?? "")));
  const top = ranked(query, texts, vendor === "voyage" ? body.top_k : body.top_n);
  const usage = { total_tokens: texts.length };
  if (vendor === "voyage") return answer(res, 200, { object: "list", data: top, model: body.model, usage });
  // Jina sends the documents' text back only when asked (return_documents now defaults to false at Jina,
  // langgenius/dify-official-plugins#1799): a caller must rank by index.
  if (vendor === "jina")
    return answer(res, 200, {
      model: body.model,
      usage,
      results: body.return_documents === true ? top.map((r) => ({ ...r, document: { text: texts[r.index] } })) : top,
    });
  const version = service === "cohereV2" ? "2" : "1";
  return answer(res, 200, { id: "standin", results: top, meta: { api_version: { version }, billed_units: { search_units: 1 } } });
}
