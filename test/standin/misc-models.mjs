// Small services of the misc nodes (test/engine/misc-nodes.test.ts), one server, by path:
//   POST /providers/cohere/v2/rerank  Azure AI Foundry's Cohere rerank: `api-key: azure-rerank-key`
//        required (401 {error: {code, message}}), Cohere's v2 body and refusals (rerank.mjs's
//        validateCohereV2); ranked as rerank.mjs ranks (word overlap), cut to top_n; [fail-rerank] in
//        the query → 500 {message}
//   POST /v1/chat/completions  a NeMo Guardrails server: {config_id, messages} → {messages: [{role:
//        "assistant", content: "guarded by <config_id>: <last user content>"}]}; an unknown config
//        ("missing-…") → 422 {detail}; [fail] in the last message → 500 {detail}
//   GET /api/public/v2/prompts/<name>  Langfuse: Basic pk-lf-misc:sk-lf-misc required (401
//        {message}); "text-…" a text prompt (version 3), "chat-…" a chat prompt, else 404 {message,
//        error: "LangfuseNotFoundError"}
//   POST /api/v1/services/aigc/text-generation/generation  DashScope (Alibaba Tongyi): Bearer dashscope-key
//        required (401 {code: "InvalidApiKey", message}); {model, parameters, input: {messages}} →
//        {output: {text: "qwen <model>: <last user content>", finish_reason: "stop"}, usage}; with
//        parameters.stream server-sent events, one word each (incremental); [fail] → 500 {code, message}.
//        Refused with 400 {code, message, request_id} as DashScope words it (validateDashscope): no user
//        message ("The input messages do not contain elements with the role of user", agentscope-ai/
//        agentscope-java#613), user and assistant turns not alternating ("User and assistant need to appear
//        alternately in the message", ikechan8370/chatgpt-plugin#629), a system message not first (the API
//        reference: "Place it at the beginning of the messages array"), temperature outside [0, 2)
//        ("Temperature should be in [0.0, 2.0)", mnfst/modelparams.dev#232, probed live).
// Requests are recorded (GET /requests, base.mjs); a GET's marker is in its path.
import { serveStandin } from "./base.mjs";
import { ranked, validateCohereV2 } from "./rerank.mjs";

const LANGFUSE_AUTH = `Basic ${Buffer.from("pk-lf-misc:sk-lf-misc").toString("base64")}`;
const LANGFUSE_TEXT = 'You are {{persona}}. Reply as JSON like {"answer": "..."} and keep {note: literal}. Question: {{question}}';

const lastUser = (messages) => [...(Array.isArray(messages) ? messages : [])].reverse().find((m) => m?.role === "user")?.content ?? "";

function azureRerank({ req, body, json }) {
  if (req.headers["api-key"] !== "azure-rerank-key")
    return json(401, { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint." } });
  const query = String(body?.query ?? "");
  if (query.includes("[fail-rerank]")) return json(500, { message: "stand-in azure rerank failure" });
  // Azure AI Foundry serves Cohere's own v2 rerank API on this route: Cohere's v2 rules and error bodies.
  const invalid = validateCohereV2(body);
  if (invalid) return json(...invalid);
  const results = ranked(query, body.documents, body.top_n);
  return json(200, { id: "azure-standin", results, meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } } });
}

function nemo({ body, json }) {
  const config = String(body?.config_id ?? "");
  if (!config || config.startsWith("missing")) return json(422, { detail: `Could not load the ${config} guardrails configuration.` });
  const text = String(lastUser(body?.messages));
  if (text.includes("[fail]")) return json(500, { detail: "stand-in guardrails failure" });
  return json(200, { messages: [{ role: "assistant", content: `guarded by ${config}: ${text}` }] });
}

function langfusePrompt({ req, url, json }) {
  if (req.headers.authorization !== LANGFUSE_AUTH) return json(401, { message: "Invalid public or secret key" });
  const name = decodeURIComponent(url.pathname.slice("/api/public/v2/prompts/".length));
  const common = { name, version: 3, config: {}, labels: ["production"], tags: [] };
  if (name.startsWith("text-")) return json(200, { ...common, type: "text", prompt: LANGFUSE_TEXT });
  if (name.startsWith("chat-")) return json(200, { ...common, type: "chat", prompt: [{ role: "system", content: "hi {{x}}" }] });
  return json(404, { message: `Prompt not found: '${name}' with label 'production'`, error: "LangfuseNotFoundError" });
}

/** DashScope's refusal of a generation request ({code, message}), or undefined. */
function validateDashscope(body) {
  const algo = (message) => ({ code: "InternalError.Algo.InvalidParameter", message });
  const messages = Array.isArray(body?.input?.messages) ? body.input.messages : [];
  if (!messages.some((m) => m?.role === "user")) return algo("The input messages do not contain elements with the role of user");
  if (messages.some((m, i) => m?.role === "system" && i > 0))
    return { code: "InvalidParameter", message: "The system message must be at the beginning of the messages" };
  const turns = messages.filter((m) => m?.role === "user" || m?.role === "assistant");
  if (turns.some((m, i) => i > 0 && m.role === turns[i - 1].role))
    return { code: "InvalidParameter", message: "User and assistant need to appear alternately in the message" };
  const t = body?.parameters?.temperature;
  if (t !== undefined && (typeof t !== "number" || t < 0 || t >= 2)) return algo("Temperature should be in [0.0, 2.0)");
  return undefined;
}

function dashscope({ req, res, body, json }) {
  if (req.headers.authorization !== "Bearer dashscope-key")
    return json(401, { code: "InvalidApiKey", message: "Invalid API-key provided.", request_id: "r-401" });
  const refused = validateDashscope(body);
  if (refused) return json(400, { ...refused, request_id: "r-400" });
  const text = String(lastUser(body?.input?.messages));
  if (text.includes("[fail]")) return json(500, { code: "InternalError", message: "stand-in dashscope failure", request_id: "r-500" });
  const answer = `qwen ${body?.model}: ${text}`;
  const usage = { input_tokens: 5, output_tokens: 7, total_tokens: 12 };
  if (!body?.parameters?.stream) return json(200, { output: { text: answer, finish_reason: "stop" }, usage, request_id: "r-1" });
  res.writeHead(200, { "content-type": "text/event-stream" });
  const words = answer.split(/(?<= )/);
  words.forEach((w, i) => {
    const last = i === words.length - 1;
    const data = { output: { text: w, finish_reason: last ? "stop" : "null" }, usage, request_id: "r-s" };
    res.write(`id:${i + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify(data)}\n\n`);
  });
  res.end();
}

export function startMiscModelsStandin() {
  return serveStandin(async (ctx) => {
    const { req, url, json } = ctx;
    if (req.method === "POST" && url.pathname === "/providers/cohere/v2/rerank") return azureRerank(ctx);
    if (req.method === "POST" && url.pathname === "/v1/chat/completions") return nemo(ctx);
    if (req.method === "POST" && url.pathname === "/api/v1/services/aigc/text-generation/generation") return dashscope(ctx);
    if (req.method === "GET" && url.pathname.startsWith("/api/public/v2/prompts/")) return langfusePrompt(ctx);
    return json(404, { message: `no route ${req.method} ${url.pathname}` });
  });
}
