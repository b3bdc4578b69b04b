// IBM Cloud IAM and watsonx.ai stand-in. IAM: POST /identity/token (form: grant_type
// urn:ibm:params:oauth:grant-type:apikey, apikey) issues a bearer token for keys starting "ibm-key-"
// (others: IAM's 400 BXNIM0415E). watsonx.ai: POST /ml/v1/text/chat, /chat_stream (server-sent
// events, no [DONE]: the last chunk has a finish_reason), /generation and /embeddings, each needing
// ?version=, a project_id, a model_id and a bearer token IAM issued (or the test bearer token
// "ibm-bearer-…"); errors in watsonx's shape ({errors: [{code, message}], status_code}). Chat answers
// follow chatScript (base.mjs). Records carry the API key (or bearer token) that signed in as `account`.
import { chatScript, hang, sse, tokensOf } from "./base.mjs";
import { serveRecorded, wordVector } from "./vertex.mjs";

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
    if (!body?.project_id || !body?.model_id) return wxError(json, 400, "json_validation_error", "project_id and model_id are required");
    if (m[1] === "embeddings") {
      return json(200, {
        model_id: body.model_id,
        results: (body.inputs ?? []).map((t) => ({ embedding: wordVector(t) })),
        input_token_count: 3,
      });
    }
    const last =
      m[1] === "generation" ? String(body.input ?? "") : String(body.messages?.findLast((x) => x.role === "user")?.content ?? "");
    const lastUser = body.messages?.findLastIndex?.((x) => x.role === "user") ?? 0;
    const results = (body.messages ?? [])
      .slice(lastUser)
      .filter((x) => x.role === "tool")
      .map((x) => x.content);
    const step = chatScript(last, results, (body.tools ?? []).length > 0);
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
