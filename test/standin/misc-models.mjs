// Small services of the misc nodes (test/engine/misc-nodes.test.ts), one server, by path:
//   POST /providers/cohere/v2/rerank  Azure AI Foundry's Cohere rerank: `api-key: azure-rerank-key`
//        required (401 {error: {code, message}}), Cohere's body; ranked as rerank.mjs ranks (word
//        overlap), cut to top_n; [fail-rerank] in the query → 500 {message}
//   POST /v1/chat/completions  a NeMo Guardrails server: {config_id, messages} → {messages: [{role:
//        "assistant", content: "guarded by <config_id>: <last user content>"}]}; an unknown config
//        ("missing-…") → 422 {detail}; [fail] in the last message → 500 {detail}
//   GET /api/public/v2/prompts/<name>  Langfuse: Basic pk-lf-misc:sk-lf-misc required (401
//        {message}); "text-…" a text prompt (version 3), "chat-…" a chat prompt, else 404 {message,
//        error: "LangfuseNotFoundError"}
//   POST /api/v1/services/aigc/text-generation/generation  DashScope (Alibaba Tongyi): Bearer dashscope-key
//        required (401 {code: "InvalidApiKey", message}); {model, parameters, input: {messages}} →
//        {output: {text: "qwen <model>: <last user content>", finish_reason: "stop"}, usage}; with
//        parameters.stream server-sent events, one word each (incremental); [fail] → 500 {code, message}
// Requests are recorded (GET /requests, base.mjs); a GET's marker is in its path.
import { serveStandin } from "./base.mjs";
import { overlapScore } from "./rerank.mjs";

const LANGFUSE_AUTH = `Basic ${Buffer.from("pk-lf-misc:sk-lf-misc").toString("base64")}`;
const LANGFUSE_TEXT = 'You are {{persona}}. Reply as JSON like {"answer": "..."} and keep {note: literal}. Question: {{question}}';

const lastUser = (messages) => [...(Array.isArray(messages) ? messages : [])].reverse().find((m) => m?.role === "user")?.content ?? "";

function azureRerank({ req, body, json }) {
  if (req.headers["api-key"] !== "azure-rerank-key")
    return json(401, { error: { code: "401", message: "Access denied due to invalid subscription key or wrong API endpoint." } });
  const query = String(body?.query ?? "");
  if (query.includes("[fail-rerank]")) return json(500, { message: "stand-in azure rerank failure" });
  const docs = Array.isArray(body?.documents) ? body.documents.map(String) : [];
  const ranked = docs
    .map((text, index) => ({ index, relevance_score: overlapScore(query, text) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const limit = Number(body?.top_n);
  return json(200, { id: "azure-standin", results: Number.isInteger(limit) && limit > 0 ? ranked.slice(0, limit) : ranked });
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

function dashscope({ req, res, body, json }) {
  if (req.headers.authorization !== "Bearer dashscope-key")
    return json(401, { code: "InvalidApiKey", message: "Invalid API-key provided.", request_id: "r-401" });
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
