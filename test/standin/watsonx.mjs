// IBM Cloud IAM and watsonx.ai stand-in. IAM: POST /identity/token (form: grant_type
// urn:ibm:params:oauth:grant-type:apikey, apikey) issues a bearer token for keys starting "ibm-key-"
// (others: IAM's 400 BXNIM0415E). watsonx.ai: POST /ml/v1/text/chat, /chat_stream (server-sent
// events, no [DONE]: the last chunk has a finish_reason), /generation and /embeddings, each needing
// ?version=, a project_id, a model_id and a bearer token IAM issued (or the test bearer token
// "ibm-bearer-…"); errors in watsonx's shape ({errors: [{code, message}], status_code}). Chat answers
// follow chatScript (base.mjs). Records carry the API key (or bearer token) that signed in as `account`.
// A chat or generation body watsonx.ai refuses (validateWatsonxChat, validateWatsonxGeneration) gets its 400.
import { chatScript, forcedCall, hang, sse, tokensOf } from "./base.mjs";
import { serveRecorded, wordVector } from "./vertex.mjs";

// Request rules from the watsonx.ai API reference (cloud.ibm.com/apidocs/watsonx-ai, "Infer text (chat)" and
// "Infer text"; the same schemas in IBM's own SDK, IBM/watsonx-ai-node-sdk src/types/messages.ts and vml_v1.ts):
// model_id and messages required, project_id or space_id; roles (lower case) system, user, assistant, tool,
// control; a system, tool or control message's content a string, a user's a string or a list of text /
// image_url / video_url / input_audio parts, an assistant's an optional string (not null, unlike its
// `refusal`) required unless it has tool_calls; a tool message's tool_call_id required; a tool call's id,
// type "function" and function {name, arguments}; tools of type "function" with a name; tool_choice_option
// none | auto | required, and only one of tool_choice_option or tool_choice. Generation: input and model_id
// required, decoding_method greedy | sample.
const USER_PARTS = ["text", "image_url", "video_url", "input_audio"];

/** The first rule a /ml/v1/text/chat body breaks, in watsonx's words; undefined when it keeps them all. */
export function validateWatsonxChat(body) {
  if (typeof body?.model_id !== "string" || !body.model_id) return "Missing required field 'model_id'";
  if (!body.project_id && !body.space_id) return "Either 'space_id' or 'project_id' has to be provided";
  if (!Array.isArray(body.messages)) return "Missing required field 'messages'";
  for (const [i, m] of body.messages.entries()) {
    const at = `messages[${i}]`;
    const text = typeof m?.content === "string";
    switch (m?.role) {
      case "system":
      case "control":
        if (!text) return `${at}.content: a ${m.role} message's content must be a string`;
        break;
      case "user":
        if (!text && !(Array.isArray(m.content) && m.content.every((p) => USER_PARTS.includes(p?.type))))
          return `${at}.content: a user message's content must be a string or a list of ${USER_PARTS.join(" / ")} parts`;
        if (Array.isArray(m.content) && m.content.some((p) => p.type === "text" && typeof p.text !== "string"))
          return `${at}.content: a text part needs its text`;
        break;
      case "assistant":
        if (m.content !== undefined && !text) return `${at}.content: an assistant message's content must be a string`;
        if (m.content === undefined && !m.tool_calls?.length) return `${at}.content is required unless tool_calls is specified`;
        for (const [j, c] of (m.tool_calls ?? []).entries())
          if (
            typeof c?.id !== "string" ||
            c.type !== "function" ||
            typeof c.function?.name !== "string" ||
            typeof c.function?.arguments !== "string"
          )
            return `${at}.tool_calls[${j}]: id, type "function" and function {name, arguments} are required`;
        break;
      case "tool":
        if (!text) return `${at}.content: a tool message's content must be a string`;
        if (typeof m.tool_call_id !== "string") return `${at}.tool_call_id is required`;
        break;
      default:
        return `${at}.role: must be one of system, user, assistant, tool, control (lower case)`;
    }
  }
  for (const [t, tool] of (body.tools ?? []).entries())
    if (tool?.type !== "function" || typeof tool.function?.name !== "string" || !tool.function.name)
      return `tools[${t}]: type "function" and function.name are required`;
  if (body.tool_choice_option !== undefined && !["none", "auto", "required"].includes(body.tool_choice_option))
    return "tool_choice_option: must be one of none, auto, required";
  if (body.tool_choice_option !== undefined && body.tool_choice !== undefined)
    return "Only one of 'tool_choice_option' or 'tool_choice' must be present";
  if (body.tool_choice !== undefined && (body.tool_choice?.type !== "function" || typeof body.tool_choice.function?.name !== "string"))
    return 'tool_choice: {"type": "function", "function": {"name": …}} names the tool to call';
  return undefined;
}

/** The first rule a /ml/v1/text/generation body breaks; undefined when it keeps them all. */
export function validateWatsonxGeneration(body) {
  if (typeof body?.model_id !== "string" || !body.model_id) return "Missing required field 'model_id'";
  if (!body.project_id && !body.space_id) return "Either 'space_id' or 'project_id' has to be provided";
  if (typeof body.input !== "string") return "Missing required field 'input'";
  const decoding = body.parameters?.decoding_method;
  if (decoding !== undefined && decoding !== "greedy" && decoding !== "sample")
    return "parameters.decoding_method: must be greedy or sample";
  return undefined;
}

export function startWatsonxStandin() {
  const tokens = new Map(); // access token → API key
  const wxError = (json, status, code, message) => json(status, { errors: [{ code, message }], trace: "standin", status_code: status });
  return serveRecorded(async ({ req, res, url, body, record, json }) => {
    if (req.method === "POST" && url.pathname === "/identity/token") {
      record.account = body?.apikey;
      if (body?.grant_type !== "urn:ibm:params:oauth:grant-type:apikey")
        return json(400, { errorCode: "BXNIM0109E", errorMessage: "Property missing or empty. Operation not allowed." });
      if (!String(body.apikey ?? "").startsWith("ibm-key-"))
        return json(400, { errorCode: "BXNIM0415E", errorMessage: "Provided API key could not be found." });
      const token = `eyJraWQ.standin-${Math.random().toString(36).slice(2)}`;
      tokens.set(token, body.apikey);
      return json(200, { access_token: token, refresh_token: "not_supported", token_type: "Bearer", expires_in: 3600, expiration: 0 });
    }
    const m = /^\/ml\/v1\/text\/(chat|chat_stream|generation|embeddings)$/.exec(url.pathname);
    if (req.method !== "POST" || !m) return wxError(json, 404, "not_found", `no route ${url.pathname}`);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    record.account = tokens.get(bearer) ?? (bearer.startsWith("ibm-bearer-") ? bearer : undefined);
    if (!record.account)
      return wxError(json, 401, "authentication_token_not_valid", "Failed to authenticate the request due to invalid token");
    if (!/^\d{4}-\d{2}-\d{2}$/.test(url.searchParams.get("version") ?? ""))
      return wxError(json, 400, "invalid_request_entity", "Missing or invalid query parameter version");
    if (m[1] === "embeddings") {
      if (!body?.project_id || !body?.model_id) return wxError(json, 400, "json_validation_error", "project_id and model_id are required");
      return json(200, {
        model_id: body.model_id,
        results: (body.inputs ?? []).map((t) => ({ embedding: wordVector(t) })),
        input_token_count: 3,
      });
    }
    const invalid = m[1] === "generation" ? validateWatsonxGeneration(body) : validateWatsonxChat(body);
    if (invalid) return wxError(json, 400, "json_validation_error", `Json document validation error: ${invalid}`);
    const textOf = (c) => (Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : String(c ?? ""));
    const last = m[1] === "generation" ? String(body.input ?? "") : textOf(body.messages.findLast((x) => x.role === "user")?.content);
    const lastUser = body.messages?.findLastIndex?.((x) => x.role === "user") ?? 0;
    const results = (body.messages ?? [])
      .slice(lastUser)
      .filter((x) => x.role === "tool")
      .map((x) => x.content);
    // tool_choice naming a tool forces that call (structured output, a supervisor's route).
    const named = body.tool_choice?.function?.name;
    const forced = named && !results.length ? body.tools?.find((t) => t.function?.name === named)?.function : undefined;
    const step = forced ? forcedCall(forced.name, forced.parameters, last) : chatScript(last, results, (body.tools ?? []).length > 0);
    if (step.fail) return wxError(json, step.fail, step.fail === 500 ? "internal_error" : "invalid_input", "stand-in refuses this request");
    if (step.hang) return hang(res);
    if (m[1] === "generation")
      return json(200, {
        model_id: body.model_id,
        results: [{ generated_text: step.text, generated_token_count: 5, stop_reason: "eos_token" }],
      });
    const calls = (step.calls ?? []).map((c, i) => ({
      id: `call_${i}`,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    const usage = { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 };
    const base = { id: "chat-standin", model_id: body.model_id, created: 1 };
    if (m[1] === "chat") {
      const message = calls.length ? { role: "assistant", tool_calls: calls } : { role: "assistant", content: step.text };
      return json(200, { ...base, choices: [{ index: 0, message, finish_reason: calls.length ? "tool_calls" : "stop" }], usage });
    }
    const chunk = (delta, finish) => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish ?? null }],
      ...(finish ? { usage } : {}),
    });
    const frames = calls.length
      ? [chunk({ role: "assistant", tool_calls: calls.map((c, index) => ({ index, ...c })) }), chunk({}, "tool_calls")]
      : [...tokensOf(step.text).map((t) => chunk({ content: t })), chunk({}, "stop")];
    sse(
      res,
      frames.map((f, i) => `id: ${i + 1}\nevent: message\ndata: ${JSON.stringify(f)}\n\n`),
    );
  });
}
