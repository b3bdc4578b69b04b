// The Gemini API's batchEmbedContents for the main stand-in (server.mjs hooks it): POST
// …/v1beta/models/<model>:batchEmbedContents with {requests: [{model, content: {parts}, taskType}]},
// answered {embeddings: [{values}]} with the stand-in's vectors (768 wide, or outputDimensionality).
// Like Google: no x-goog-api-key → 403, more than 100 requests or a request naming another model
// → 400. [fail-embed] in a text → 500, [echo-auth] → 400 repeating the key; errors are Google's
// {error: {code, message, status}}. Recorded as the other routes (GET /requests).
const GEMINI_DIMS = 768;

const failure = (res, code, message, status) => {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code, message, status } }));
  return true;
};

const textOf = (request) => (request?.content?.parts ?? []).map((p) => p?.text ?? "").join("");

/** Answers a batchEmbedContents request (true), or leaves the request to the next route (false). */
export function geminiEmbed({ req, res, url, raw, record, embed }) {
  const m = /\/v1beta\/models\/([^/:]+):batchEmbedContents$/.exec(url.pathname);
  if (req.method !== "POST" || !m) return false;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const key = req.headers["x-goog-api-key"] ?? url.searchParams.get("key");
  if (!key) return failure(res, 403, "Method doesn't allow unregistered callers. Please use API Key.", "PERMISSION_DENIED");
  const requests = Array.isArray(body.requests) ? body.requests : [];
  const texts = requests.map(textOf);
  if (texts.some((t) => t.includes("[echo-auth]"))) return failure(res, 400, `API key not valid: ${key}`, "INVALID_ARGUMENT");
  if (texts.some((t) => t.includes("[fail-embed]"))) return failure(res, 500, "stand-in Gemini failure", "INTERNAL");
  if (!requests.length || requests.length > 100)
    return failure(res, 400, "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch", "INVALID_ARGUMENT");
  const other = requests.find((r) => r?.model !== `models/${m[1]}`);
  if (other) return failure(res, 400, `request model ${other?.model} is not models/${m[1]}`, "INVALID_ARGUMENT");
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      embeddings: requests.map((r, i) => ({ values: Array.from(embed(texts[i], r.outputDimensionality ?? GEMINI_DIMS)) })),
    }),
  );
  return true;
}
