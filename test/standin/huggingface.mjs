// Hugging Face Inference stand-in, as Text Generation Inference (TGI) serves it — what answers a dedicated
// Inference Endpoint and hf-inference's text-generation models:
//   POST /v1/chat/completions (any prefix): TGI's OpenAI-compatible chat; a request TGI refuses gets its 422,
//        any other goes on to a private generic stand-in (server.mjs: OpenAI's rules, scripted answers,
//        streaming) and comes back as it answers.
//   POST /models/<owner>/<name> (serverless) or any other POST path (a user's Inference Endpoint, TGI's
//        compat route `/`) with {inputs, parameters} → [{generated_text}], per chatScript (base.mjs):
//        "echo: <inputs>"; [fail] → 500 {error}.
// No bearer token → 401 {error}. TGI refuses with 422 {error, error_type: "validation"}, each rule and its
// text from TGI's router/src/validation.rs (Validation::validate, ValidationError) and, for chat,
// router/src/lib.rs (ChatRequest::try_into_generate: temperature 0 means greedy there; top_p, stop and the
// penalties go to the same validation; presence_penalty becomes repetition_penalty = presence_penalty + 2).
// max_stop_sequences is the launcher's default, 4.
import { chatScript, hang } from "./base.mjs";
import { relay, serveInFront } from "./in-front.mjs";

const MAX_STOP_SEQUENCES = 4;

/** TGI's Validation::validate over GenerateParameters: the first refusal's text, or undefined. */
function tgiRefusal(inputs, p) {
  if (p.temperature !== undefined && p.temperature !== null && p.temperature <= 0) return "`temperature` must be strictly positive";
  if (p.repetition_penalty != null && p.repetition_penalty <= 0) return "`repetition_penalty` must be strictly positive";
  if (p.frequency_penalty != null && (p.frequency_penalty < -2 || p.frequency_penalty > 2))
    return "`frequency_penalty` must be >= -2.0 and <= 2.0";
  if (p.top_p != null && (p.top_p <= 0 || p.top_p >= 1)) return "`top_p` must be > 0.0 and < 1.0";
  if (p.typical_p != null && (p.typical_p <= 0 || p.typical_p >= 1)) return "`typical_p` must be > 0.0 and < 1.0";
  if (p.top_k != null && p.top_k <= 0) return "`top_k` must be strictly positive";
  if (p.max_new_tokens === 0) return "`max_new_tokens` must be strictly positive";
  const stop = p.stop ?? [];
  if (stop.length > MAX_STOP_SEQUENCES) return `\`stop\` supports up to ${MAX_STOP_SEQUENCES} stop sequences. Given: ${stop.length}`;
  if (inputs === "") return "`inputs` cannot be empty";
  return undefined;
}

/** A chat request's refusal, as TGI turns it into generate parameters. */
function chatRefusal(body) {
  const temperature = body.temperature === 0 ? undefined : body.temperature; // 0: greedy decoding
  const repetition_penalty = typeof body.presence_penalty === "number" ? body.presence_penalty + 2 : undefined;
  const stop = typeof body.stop === "string" ? [body.stop] : body.stop;
  const p = { temperature, repetition_penalty, frequency_penalty: body.frequency_penalty, top_p: body.top_p, stop };
  return tgiRefusal("chat", { ...p, max_new_tokens: body.max_tokens ?? body.max_completion_tokens });
}

export async function startHuggingFaceStandin() {
  return serveInFront(async ({ req, res, url, body, raw, json }, forward) => {
    if (req.method !== "POST") return json(404, { error: "not found" });
    if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) return json(401, { error: "Invalid credentials in Authorization header" });
    if (url.pathname.endsWith("/v1/chat/completions")) {
      const refused = body && typeof body === "object" ? chatRefusal(body) : "Failed to parse the request body as JSON";
      if (refused) return json(422, { error: refused, error_type: "validation" });
      return relay(res, await forward("/v1/chat/completions", req.headers.authorization, raw));
    }
    if (typeof body?.inputs !== "string") return json(422, { error: "Failed to deserialize the JSON body into the target type: inputs" });
    const refused = tgiRefusal(body.inputs, body.parameters ?? {});
    if (refused) return json(422, { error: refused, error_type: "validation" });
    const step = chatScript(body.inputs, [], false);
    if (step.fail) return json(step.fail, { error: "stand-in refuses this request" });
    if (step.hang) return hang(res);
    const text = body.parameters?.return_full_text === false ? step.text : body.inputs + step.text;
    json(200, [{ generated_text: text }]);
  });
}
