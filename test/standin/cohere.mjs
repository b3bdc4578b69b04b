// Cohere's embed API for the main stand-in (server.mjs hooks it): POST …/v1/embed with {texts,
// model, input_type, embedding_types, truncate}, answered with the stand-in's vectors (1024 wide):
// `embeddings: {float: [...]}` (response_type embeddings_by_type) when embedding_types asks for
// floats, else a plain list (embeddings_floats). A request Cohere refuses (validateCohereEmbed) is a
// 400 first. [fail-embed] in a text → 500, [echo-auth] → 401 repeating the key; errors are Cohere's
// {message}. Recorded as the other routes (GET /requests).
const COHERE_DIMS = 1024;

// Cohere's API reference (cohere-ai/cohere-developer-experience, cohere-openapi.yaml: /v1/embed,
// EmbedInputType, EmbeddingType): texts 1 to 96; input_type required for v3 and later models.
const MAX_TEXTS = 96;
const INPUT_TYPES = ["search_document", "search_query", "classification", "clustering", "image"];
const EMBEDDING_TYPES = ["float", "int8", "uint8", "binary", "ubinary", "base64"];
const TRUNCATE = ["NONE", "START", "END"];

const answer = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
  return true;
};

const oneOf = (values) => values.map((v) => `"${v}"`).join(", ");

/** What Cohere's v1 embed refuses in a request: the message, or undefined. */
export function validateCohereEmbed(body) {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "invalid request: the body must be a JSON object";
  const { texts } = body;
  if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) return "invalid request: texts must be an array of strings";
  if (!texts.length || texts.length > MAX_TEXTS)
    return `invalid request: texts must hold 1 to ${MAX_TEXTS} items, but it holds ${texts.length}`;
  // embed-english-v3.0, embed-multilingual-light-v3.0, embed-v4.0…: the model's major version.
  const version = Number(/-v(\d+)(?:\.\d+)?$/.exec(String(body.model ?? ""))?.[1] ?? 0);
  if (body.input_type == null && version >= 3)
    return "invalid request: valid input_type must be provided with the provided model (required for embedding models v3 and higher)";
  if (body.input_type != null && !INPUT_TYPES.includes(body.input_type))
    return `invalid request: input_type must be one of ${oneOf(INPUT_TYPES)}, not "${body.input_type}"`;
  const types = body.embedding_types;
  if (types != null && (!Array.isArray(types) || types.some((t) => !EMBEDDING_TYPES.includes(t))))
    return `invalid request: embedding_types must be a list of ${oneOf(EMBEDDING_TYPES)}`;
  if (body.truncate != null && !TRUNCATE.includes(body.truncate))
    return `invalid request: truncate must be one of ${oneOf(TRUNCATE)}, not "${body.truncate}"`;
  return undefined;
}

/** Answers a Cohere embed request (true), or leaves the request to the next route (false). */
export function cohereEmbed({ req, res, url, raw, record, embed }) {
  if (req.method !== "POST" || !/\/v1\/embed$/.test(url.pathname)) return false;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const invalid = validateCohereEmbed(body);
  if (invalid) return answer(res, 400, { message: invalid });
  const texts = body.texts;
  if (texts.some((t) => t.includes("[echo-auth]")))
    return answer(res, 401, { message: `invalid api token: the request carried "Authorization: ${req.headers.authorization ?? ""}"` });
  if (texts.some((t) => t.includes("[fail-embed]"))) return answer(res, 500, { message: "stand-in Cohere failure" });
  const vectors = texts.map((t) => Array.from(embed(t, COHERE_DIMS)));
  const byType = Array.isArray(body.embedding_types) && body.embedding_types.includes("float");
  return answer(res, 200, {
    id: "standin",
    texts,
    response_type: byType ? "embeddings_by_type" : "embeddings_floats",
    embeddings: byType ? { float: vectors } : vectors,
    meta: { api_version: { version: "1" }, billed_units: { input_tokens: texts.length } },
  });
}
