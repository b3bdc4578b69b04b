// Hosted embeddings APIs that speak OpenAI's shape but hold rules of their own, each under its path:
//   POST /v1/embeddings                 Mistral AI (its own path, so a bare-host override reaches it)
//   POST /voyage/v1/embeddings          Voyage AI
//   POST /jina/v1/embeddings            Jina AI
//   POST /together/v1/embeddings        Together AI
// A request the service refuses gets the service's own status and error shape; any other goes on, in
// OpenAI's words, to a private generic stand-in (server.mjs: its vectors, base64 as little-endian float32s,
// [fail-embed] → 500, [echo-auth] → 401) and its answer comes back as it is. A request needs a bearer key.
// GET /requests?contains=<marker> lists what the services received (base.mjs serveStandin).
//
// Only rules confirmed in public sources, each named where it is checked. Token caps are checked with a
// count every tokenizer reaches at least (a run of letters, or up to 3 digits, is one token or more), so a
// request refused here is over the cap for real. Where no message is quoted publicly, the wording is ours.
import { relay, serveInFront } from "./in-front.mjs";

const fewestTokens = (texts) => texts.reduce((n, t) => n + (t.match(/\p{L}+|\p{N}{1,3}/gu)?.length ?? 0), 0);
const strings = (input) =>
  typeof input === "string" ? [input] : Array.isArray(input) && input.every((t) => typeof t === "string") ? input : undefined;

// ---- Voyage (docs.voyageai.com/reference/embeddings-api) ----
// input: a string or 1 to 1,000 strings, none empty (MongoDB's copy of the reference: "Minimum length of each
// is 1"); total tokens per request by model (1M / 320K / 120K: the reference today, and its earlier text for
// voyage-3, voyage-3-lite, voyage-large-2, voyage-multilingual-2 and voyage-code-2, quoted in voyage-ai's SDKs);
// input_type null|query|document; truncation a boolean; encoding_format null|base64 (base64: NumPy float32s, as
// voyageai-python decodes them); output_dtype float|int8|uint8|binary|ubinary; output_dimension 256|512|1024|2048,
// only for the models that list it. Errors are 400 {detail}; the token cap's text is the service's own
// (sigoden/aichat#825, VeraTools/vera#18).
const VOYAGE_MAX_INPUTS = 1000;
const VOYAGE_CAPS = [
  [["voyage-4-lite", "voyage-3.5-lite", "voyage-3-lite"], 1_000_000],
  [["voyage-4", "voyage-3.5", "voyage-3", "voyage-2"], 320_000],
  [["voyage-4-large", "voyage-3-large", "voyage-code-3", "voyage-finance-2", "voyage-law-2"], 120_000],
  [["voyage-large-2-instruct", "voyage-multilingual-2", "voyage-large-2", "voyage-code-2"], 120_000],
];
const VOYAGE_DIMENSION_MODELS = [
  "voyage-4-large",
  "voyage-4",
  "voyage-4-lite",
  "voyage-3-large",
  "voyage-3.5",
  "voyage-3.5-lite",
  "voyage-code-3",
];
const VOYAGE_DTYPES = ["float", "int8", "uint8", "binary", "ubinary"];

function validateVoyage(body) {
  const bad = (detail) => ({ status: 400, body: { detail } });
  if (typeof body.model !== "string" || !body.model) return bad("model is required");
  const inputs = strings(body.input);
  if (!inputs?.length) return bad("input must be a string or a list of strings");
  if (inputs.length > VOYAGE_MAX_INPUTS) return bad(`The maximum length of the input list is ${VOYAGE_MAX_INPUTS}, got ${inputs.length}.`);
  if (inputs.some((t) => !t.length)) return bad("input must not contain empty strings");
  if (![undefined, null, "query", "document"].includes(body.input_type))
    return bad(`input_type must be null, 'query' or 'document', got '${body.input_type}'`);
  if (body.truncation !== undefined && typeof body.truncation !== "boolean") return bad("truncation must be a boolean");
  if (![undefined, null, "base64"].includes(body.encoding_format))
    return bad(`encoding_format must be null or 'base64', got '${body.encoding_format}'`);
  if (body.output_dtype != null && !VOYAGE_DTYPES.includes(body.output_dtype))
    return bad(`output_dtype '${body.output_dtype}' is not supported`);
  if (body.output_dimension != null) {
    if (!VOYAGE_DIMENSION_MODELS.includes(body.model)) return bad(`Model ${body.model} does not support output_dimension`);
    if (![256, 512, 1024, 2048].includes(body.output_dimension))
      return bad(`output_dimension must be one of 256, 512, 1024, 2048 for ${body.model}`);
  }
  const cap = VOYAGE_CAPS.find(([models]) => models.includes(body.model))?.[1];
  const tokens = cap ? fewestTokens(inputs) : 0;
  if (cap && tokens > cap)
    return bad(
      `Request to model '${body.model}' failed. The max allowed tokens per submitted batch is ${cap}. ` +
        `Your batch has ${tokens} tokens after truncation. Please lower the number of tokens in the batch.`,
    );
  return undefined;
}

// ---- Jina (its API's request schema: TextEmbeddingInput, extra fields forbidden) ----
// Fields model, input, embedding_type (alias of encoding_type: float|base64|binary|ubinary, or a list of
// them), task, dimensions, normalized, late_chunking, truncate; anything else is refused — OpenAI's
// encoding_format too ("extra fields not permitted: ['encoding_format']", 1Panel-dev/MaxKB#2639; "Extra inputs
// are not permitted", QuantumNous/new-api#1941). jina-embeddings-v3's tasks: retrieval.query,
// retrieval.passage, text-matching, classification, separation. At most 2,048 inputs ("input length is larger
// than the largest allowed size 2048", refly-ai/refly#831), 512 for jina-embeddings-v4 ("Each input list can
// contain at most 512 items.", langgenius/dify-official-plugins#1997). With late_chunking the inputs are one
// text: at most 8,192 tokens summed over them for jina-embeddings-v3 (jina.ai's v3 announcement). Base64 is
// float32s (`np.frombuffer(base64.b64decode(e), dtype=np.float32)`, the schema's own words). Errors are 400
// {detail, errors}, the detail as the service words it ("[RID: …] Validation error: '<where>' <what>").
const JINA_FIELDS = ["model", "input", "embedding_type", "encoding_type", "task", "dimensions", "normalized", "late_chunking", "truncate"];
const JINA_V3_TASKS = ["retrieval.query", "retrieval.passage", "text-matching", "classification", "separation"];
const JINA_TYPES = ["float", "base64", "binary", "ubinary"];
const JINA_LATE_CHUNKING_TOKENS = { "jina-embeddings-v3": 8192 };

function jina400(model, field, message, type = "value_error", input = undefined) {
  const where = `body -> ${model}${field ? ` -> ${field}` : ""}`;
  return {
    status: 400,
    body: {
      detail: `[RID: standin] Validation error: '${where}' ${message}. Field errors: : Invalid value`,
      errors: [{ field: where, message, type, input }],
    },
  };
}

function validateJina(body) {
  const model = body.model;
  if (typeof model !== "string" || !model) return jina400("model", "", "you must provide a model parameter");
  const extra = Object.keys(body).find((k) => !JINA_FIELDS.includes(k));
  if (extra) return jina400(model, extra, "Extra inputs are not permitted", "extra_forbidden", body[extra]);
  const inputs = strings(body.input);
  if (!inputs) return jina400(model, "input", "List of texts to embed is required");
  const maxInputs = model === "jina-embeddings-v4" ? 512 : 2048;
  if (inputs.length > maxInputs)
    return maxInputs === 512
      ? jina400(model, "", "Each input list can contain at most 512 items.")
      : jina400(model, "input", `input length is larger than the largest allowed size ${maxInputs}`);
  const types = [body.embedding_type ?? body.encoding_type ?? "float"].flat();
  if (!types.every((t) => JINA_TYPES.includes(t)))
    return jina400(model, "embedding_type", "Input should be 'float', 'base64', 'binary' or 'ubinary'", "literal_error", types);
  if (model === "jina-embeddings-v3" && body.task != null && !JINA_V3_TASKS.includes(body.task))
    return jina400(model, "task", `Input should be ${JINA_V3_TASKS.map((t) => `'${t}'`).join(", ")}`, "literal_error", body.task);
  if (body.dimensions != null && !Number.isInteger(body.dimensions))
    return jina400(model, "dimensions", "Input should be a valid integer", "int_type", body.dimensions);
  const cap = body.late_chunking === true ? JINA_LATE_CHUNKING_TOKENS[model] : undefined;
  const tokens = cap ? fewestTokens(inputs) : 0;
  if (cap && tokens > cap)
    return jina400(model, "input", `With late_chunking the inputs are one text of at most ${cap} tokens, got ${tokens}`);
  return undefined;
}

// ---- Mistral (docs.mistral.ai/api/endpoint/embeddings; its OpenAPI's EmbeddingRequest) ----
// model, input (a string or strings); encoding_format float|base64; output_dtype float|int8|uint8|binary|
// ubinary; at most 16,384 tokens summed over a request's inputs — "Too many tokens overall, split into more
// batches." code 3210 (chroma-core/chroma#5597; "Max is 16384", aurelio-labs/semantic-router#297,
// dust-tt/dust#10654). A value out of an enum is pydantic's 422, as for its chat API.
const MISTRAL_MAX_TOKENS = 16_384;

function mistralEnum(field, input, allowed) {
  const msg = `Input should be ${allowed
    .map((a) => `'${a}'`)
    .join(", ")
    .replace(/, ([^,]*)$/, " or $1")}`;
  return {
    status: 422,
    body: {
      object: "error",
      message: { detail: [{ type: "enum", loc: ["body", field], msg, input }] },
      type: "invalid_request_error",
      param: null,
      code: null,
    },
  };
}

function validateMistral(body) {
  const bad = (message) => ({ status: 400, body: { object: "error", message, type: "invalid_request_error", param: null, code: null } });
  if (typeof body.model !== "string" || !body.model) return bad("model is required");
  const inputs = strings(body.input);
  if (!inputs?.length) return bad("input must be a string or a list of strings");
  if (body.encoding_format != null && !["float", "base64"].includes(body.encoding_format))
    return mistralEnum("encoding_format", body.encoding_format, ["float", "base64"]);
  if (body.output_dtype != null && !VOYAGE_DTYPES.includes(body.output_dtype))
    return mistralEnum("output_dtype", body.output_dtype, VOYAGE_DTYPES);
  if (fewestTokens(inputs) > MISTRAL_MAX_TOKENS)
    return {
      status: 400,
      body: {
        object: "error",
        message: "Too many tokens overall, split into more batches.",
        type: "invalid_request_prompt",
        param: null,
        code: "3210",
      },
    };
  return undefined;
}

// ---- Together (togethercomputer/openapi: EmbeddingsRequest model + input; embeddings as numbers) ----
function validateTogether(body) {
  const bad = (message) => ({ status: 400, body: { error: { message, type: "invalid_request_error", param: null, code: null } } });
  if (typeof body.model !== "string" || !body.model) return bad("model is required");
  if (!strings(body.input)) return bad("input must be a string or a list of strings");
  return undefined;
}

// ---- the services ----

const SERVICES = [
  {
    path: "/v1/embeddings",
    validate: validateMistral,
    forward: (b) => ({ model: b.model, input: b.input, encoding_format: b.encoding_format ?? undefined }),
  },
  {
    path: "/voyage/v1/embeddings",
    validate: validateVoyage,
    forward: (b) => ({
      model: b.model,
      input: b.input,
      encoding_format: b.encoding_format ?? undefined,
      dimensions: b.output_dimension ?? undefined,
    }),
  },
  {
    path: "/jina/v1/embeddings",
    validate: validateJina,
    // Several embedding types would come back as a dictionary: only float or base64 alone is answered here.
    forward: (b) => ({
      model: b.model,
      input: b.input,
      encoding_format: (b.embedding_type ?? b.encoding_type) === "base64" ? "base64" : undefined,
      dimensions: b.dimensions ?? undefined,
    }),
  },
  // Together documents numbers only: whatever encoding_format says, numbers come back.
  { path: "/together/v1/embeddings", validate: validateTogether, forward: (b) => ({ model: b.model, input: b.input }) },
];

export async function startEmbeddingsDialectsStandin() {
  return serveInFront(async ({ req, res, url, body, json }, forward) => {
    const service = SERVICES.find((s) => s.path === url.pathname);
    if (!service || req.method !== "POST") return json(404, { detail: `no route ${req.method} ${url.pathname}` });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { detail: "Provided API key is invalid." });
    if (!body || typeof body !== "object" || Array.isArray(body)) return json(400, { detail: "The request body must be a JSON object." });
    const refused = service.validate(body);
    if (refused) return json(refused.status, refused.body);
    return relay(res, await forward("/v1/embeddings", req.headers.authorization, JSON.stringify(service.forward(body))));
  });
}
