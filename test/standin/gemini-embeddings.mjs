// The Gemini API's batchEmbedContents for the main stand-in (server.mjs hooks it): POST
// …/v1beta/models/<model>:batchEmbedContents with {requests: [{model, content: {parts}, taskType}]},
// answered {embeddings: [{values}]} with the stand-in's vectors (768 wide, or outputDimensionality).
// Like Google: no x-goog-api-key → 403; a request it refuses (validateBatchEmbed) → 400.
// [fail-embed] in a text → 500, [echo-auth] → 400 repeating the key; errors are Google's
// {error: {code, message, status}}. Recorded as the other routes (GET /requests).
const GEMINI_DIMS = 768;

// The Gemini API reference (ai.google.dev/api/embeddings: models.batchEmbedContents, EmbedContentRequest,
// TaskType): each request's model must be the URL's ("models/…"), its content is required, taskType is
// one of TaskType's values, outputDimensionality an integer. At most 100 requests a batch: the service's
// own 400 ("at most 100 requests can be in one batch"), quoted in public issue threads.
const MAX_REQUESTS = 100;
const TASK_TYPES = [
  "TASK_TYPE_UNSPECIFIED",
  "RETRIEVAL_QUERY",
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "CLASSIFICATION",
  "CLUSTERING",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CODE_RETRIEVAL_QUERY",
];

const TASK_TYPE_ENUM = "type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType";

const failure = (res, code, message, status) => {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code, message, status } }));
  return true;
};

const textOf = (request) => (request?.content?.parts ?? []).map((p) => p?.text ?? "").join("");

/** What batchEmbedContents refuses for the URL's `model` ("models/…"): the message, or undefined. */
export function validateBatchEmbed(body, model) {
  const requests = body?.requests;
  if (!Array.isArray(requests) || !requests.length) return "* BatchEmbedContentsRequest.requests: requests is required";
  if (requests.length > MAX_REQUESTS) return `* BatchEmbedContentsRequest.requests: at most ${MAX_REQUESTS} requests can be in one batch`;
  for (const [i, r] of requests.entries()) {
    const at = `BatchEmbedContentsRequest.requests[${i}]`;
    if (r?.model !== model) return `* ${at}.model: the model of each request (${r?.model}) must match the batch's ${model}`;
    if (!r.content || typeof r.content !== "object") return `* ${at}.content: content is required`;
    if (r.taskType != null && !TASK_TYPES.includes(r.taskType))
      return `Invalid value at 'requests[${i}].task_type' (${TASK_TYPE_ENUM}), "${r.taskType}"`;
    if (r.outputDimensionality != null && !Number.isInteger(r.outputDimensionality))
      return `Invalid value at 'requests[${i}].output_dimensionality' (TYPE_INT32), ${JSON.stringify(r.outputDimensionality)}`;
  }
  return undefined;
}

/** Answers a batchEmbedContents request (true), or leaves the request to the next route (false). */
export function geminiEmbed({ req, res, url, raw, record, embed }) {
  const m = /\/v1beta\/models\/([^/:]+):batchEmbedContents$/.exec(url.pathname);
  if (req.method !== "POST" || !m) return false;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const key = req.headers["x-goog-api-key"] ?? url.searchParams.get("key");
  if (!key) return failure(res, 403, "Method doesn't allow unregistered callers. Please use API Key.", "PERMISSION_DENIED");
  const invalid = validateBatchEmbed(body, `models/${decodeURIComponent(m[1])}`);
  if (invalid) return failure(res, 400, invalid, "INVALID_ARGUMENT");
  const requests = body.requests;
  const texts = requests.map(textOf);
  if (texts.some((t) => t.includes("[echo-auth]"))) return failure(res, 400, `API key not valid: ${key}`, "INVALID_ARGUMENT");
  if (texts.some((t) => t.includes("[fail-embed]"))) return failure(res, 500, "stand-in Gemini failure", "INTERNAL");
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      embeddings: requests.map((r, i) => ({ values: Array.from(embed(texts[i], r.outputDimensionality ?? GEMINI_DIMS)) })),
    }),
  );
  return true;
}
