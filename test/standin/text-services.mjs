// Text LLM, moderation and feature-extraction APIs for the main stand-in (server.mjs hooks them),
// recorded as its other routes (GET /requests). Deterministic; answers "echo: <prompt>".
//   POST …/completions (OpenAI's completions API, not …/chat/completions): {choices: [{text}]};
//        `stream: true` → server-sent events, one word a frame, a finish_reason, then [DONE]
//   POST …/moderations (OpenAI): results[0].flagged when the input says [flagged]
//   POST …/api/generate (Ollama): {response, done: true}
//   POST …/v1/generate (Cohere): {generations: [{text}]}
//   POST …/pipeline/feature-extraction (Hugging Face's hf-inference) or …/hf-endpoint… (a user's
//        Inference Endpoint) {inputs: [texts]}: the stand-in's vectors (384 wide), one per text; a
//        text saying [tokens] gets a vector per word instead (an unpooled model); a bearer token required
// In any of them: [fail] (or [fail-embed]) → 500 with the service's error shape, [echo-auth] → 401
// whose message repeats the key it was sent.
const HF_DIMS = 384;

const answer = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
  return true;
};

const keyOf = (req) => req.headers.authorization ?? req.headers["api-key"] ?? "";

/** The route's text(s) and error shape, or undefined when the request is not for this module. */
function routeOf(req, url) {
  if (req.method !== "POST") return undefined;
  const p = url.pathname;
  if (p.endsWith("/completions") && !p.endsWith("/chat/completions")) return "completions";
  if (p.endsWith("/moderations")) return "moderations";
  if (p.endsWith("/api/generate")) return "ollama";
  if (/\/v1\/generate$/.test(p)) return "cohere";
  if (p.endsWith("/pipeline/feature-extraction") || p.includes("/hf-endpoint")) return "featureExtraction";
  return undefined;
}

const errorBody = {
  completions: (message) => ({ error: { message, type: "server_error" } }),
  moderations: (message) => ({ error: { message, type: "server_error" } }),
  ollama: (message) => ({ error: message }),
  cohere: (message) => ({ message }),
  featureExtraction: (message) => ({ error: message }),
};

function textsOf(route, body) {
  if (route === "moderations") return [String(body.input ?? "")];
  if (route === "featureExtraction") return (Array.isArray(body.inputs) ? body.inputs : [body.inputs]).map(String);
  return [String(body.prompt ?? "")];
}

/** A completions stream: one word a frame, the last with finish_reason "stop", then [DONE]. */
function streamCompletion(res, model, text) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  const words = text.match(/\S+\s*/g) ?? [""];
  const frame = (t, finish) => ({
    id: "cmpl-standin",
    object: "text_completion",
    model,
    choices: [{ index: 0, text: t, finish_reason: finish }],
  });
  for (const w of words) res.write(`data: ${JSON.stringify(frame(w, null))}\n\n`);
  res.write(`data: ${JSON.stringify(frame("", "stop"))}\n\n`);
  res.end("data: [DONE]\n\n");
  return true;
}

// Ollama's /api/generate options as its api.Options decodes them (ollama/ollama api/types.go FromMap):
// a value of the wrong JSON type is a 500 {error: 'option "x" must be of type …'}; a name it does not
// know (mirostat*, tfs_z: removed in ollama#10581, May 2025) is ignored with a logged warning, as here. An unknown model is a
// 404 {error: "model 'x' not found"} (the stand-in's: a name starting "missing"); without `stream: false`
// the answer is a stream of JSON lines.
const OLLAMA_INT = [
  "num_keep",
  "seed",
  "num_predict",
  "top_k",
  "repeat_last_n",
  "num_ctx",
  "num_batch",
  "num_gpu",
  "main_gpu",
  "num_thread",
];
const OLLAMA_TYPES = {
  ...Object.fromEntries(OLLAMA_INT.concat("draft_num_predict").map((k) => [k, "integer"])),
  ...Object.fromEntries(
    ["top_p", "min_p", "typical_p", "temperature", "repeat_penalty", "presence_penalty", "frequency_penalty"].map((k) => [k, "float32"]),
  ),
  use_mmap: "boolean",
  stop: "array",
};
const OLLAMA_CHECK = {
  integer: (v) => typeof v === "number",
  float32: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  array: (v) => Array.isArray(v) && v.every((s) => typeof s === "string"),
};

/** Ollama's refusal of a generate request ([status, message]), or undefined. */
function validateOllama(body) {
  if (typeof body.model !== "string" || !body.model || body.model.startsWith("missing"))
    return [404, `model '${body.model ?? ""}' not found`];
  for (const [key, value] of Object.entries(body.options ?? {})) {
    const type = OLLAMA_TYPES[key];
    if (type && value !== null && !OLLAMA_CHECK[type](value)) return [500, `option "${key}" must be of type ${type}`];
  }
  return undefined;
}

/** Answers a request for one of these APIs (true), or leaves it to the next route (false). */
export function textServices({ req, res, url, raw, record, embed }) {
  const route = routeOf(req, url);
  if (!route) return false;
  const body = record(req, res, url, raw);
  if (!body) return true;
  const texts = textsOf(route, body);
  const err = errorBody[route];
  if (texts.some((t) => t.includes("[echo-auth]"))) return answer(res, 401, err(`invalid api key: the request carried "${keyOf(req)}"`));
  if (texts.some((t) => t.includes("[fail]") || t.includes("[fail-embed]"))) return answer(res, 500, err("stand-in text service failure"));
  const echo = `echo: ${texts[0]}`;
  switch (route) {
    case "completions":
      if (body.stream) return streamCompletion(res, body.model, echo);
      return answer(res, 200, {
        id: "cmpl-standin",
        object: "text_completion",
        model: body.model,
        choices: [{ index: 0, text: echo, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      });
    case "moderations": {
      const flagged = texts[0].includes("[flagged]");
      return answer(res, 200, {
        id: "modr-standin",
        model: body.model ?? "omni-moderation-latest",
        results: [{ flagged, categories: { violence: flagged }, category_scores: { violence: flagged ? 0.97 : 0.01 } }],
      });
    }
    case "ollama": {
      const refused = validateOllama(body);
      if (refused) return answer(res, refused[0], err(refused[1]));
      const done = { model: body.model, created_at: new Date(0).toISOString(), response: echo, done: true };
      if (body.stream !== false) {
        res.writeHead(200, { "content-type": "application/x-ndjson" });
        res.end(`${JSON.stringify({ ...done, done: false })}\n${JSON.stringify({ ...done, response: "" })}\n`);
        return true;
      }
      return answer(res, 200, done);
    }
    case "cohere":
      return answer(res, 200, { id: "standin", generations: [{ id: "gen-standin", text: echo }], prompt: texts[0] });
    default: {
      if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return answer(res, 401, err("Invalid credentials in Authorization header"));
      const vector = (t) => Array.from(embed(t, HF_DIMS));
      return answer(
        res,
        200,
        texts.map((t) => (t.includes("[tokens]") ? t.split(/\s+/).filter(Boolean).map(vector) : vector(t))),
      );
    }
  }
}
