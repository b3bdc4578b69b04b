// Cohere's embed API for the main stand-in (server.mjs hooks it): POST …/v1/embed with {texts,
// model, input_type, embedding_types, truncate}, answered with the stand-in's vectors (1024 wide):
// `embeddings: {float: [...]}` (response_type embeddings_by_type) when embedding_types asks for
// floats, else a plain list (embeddings_floats). Like Cohere: more than 96 texts, or no input_type
// for a v3 model, is a 400. [fail-embed] in a text → 500, [echo-auth] → 401 repeating the key;
// errors are Cohere's {message}. Recorded as the other routes (GET /requests).
const COHERE_DIMS = 1024;

const answer = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
  return true;
};

/** Answers a Cohere embed request (true), or leaves the request to the next route (false). */
export function cohereEmbed({ req, res, url, raw, record, embed }) {
  if (req.method !== "POST" || !/\/v1\/embed$/.test(url.pathname)) return false;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const texts = Array.isArray(body.texts) ? body.texts.map(String) : [];
  if (texts.some((t) => t.includes("[echo-auth]")))
    return answer(res, 401, { message: `invalid api token: the request carried "Authorization: ${req.headers.authorization ?? ""}"` });
  if (texts.some((t) => t.includes("[fail-embed]"))) return answer(res, 500, { message: "stand-in Cohere failure" });
  if (!texts.length || texts.length > 96) return answer(res, 400, { message: "invalid request: texts must hold 1 to 96 items" });
  if (/v3/.test(String(body.model)) && !body.input_type)
    return answer(res, 400, { message: "invalid request: valid input_type must be provided with the provided model" });
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
