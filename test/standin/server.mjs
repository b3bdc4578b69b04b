// An OpenAI-compatible chat completions stand-in for the engine tests. Runs in Node (vitest
// globalSetup), never in the worker. Deterministic: the answer is derived from the last user message.
//
// Phrases in the last user message choose a behaviour:
//   [fail]       500 with an OpenAI-style error body
//   [fail-once]  500 the first time a given message is seen, then a normal answer
//   [slow]       streaming: every token after the first waits 300 ms; JSON: the answer waits 1 s
//   [hang]       never answers (until the client gives up)
//   [bad-request] 400 with an OpenAI-style error body
//   [tool]       when the request offers tools: a call to the first one with {"input":"2+2"}
//                (every time: an agent that keeps asking, for maxIterations)
//   [call NAME {json}]  (one or more) when the request offers tools: the calls in order, one per
//                turn, counting the tool results after the last user message; with [parallel] all
//                remaining calls in one turn; with [chatty] a tool-call turn also says "Calling NAME.";
//                once every call has its result: "tools said: <result> | <result> …"
//   [schema]     a value conforming to the JSON Schema its format instructions give: see schema.mjs
//   [react NAME: INPUT]  ReAct replies (Action / Final Answer in text): see react.mjs
//   [csv]        "a, b, c"
//   [subquestions]  in LlamaIndex's sub-question prompt: one sub-question per tool, as JSON (llamaindex.mjs)
//   [fixjson]    a valid JSON movie list (what an autofix request gets)
//   [badjson]    text that is not JSON (and mentions [fixjson], so an autofix request can succeed)
//   [json]       a fenced JSON movie list
//   [bench:N:D]  N tokens "tok1 " … "tokN " (default [bench] = 20 tokens), each one (the first too)
//                sent D ms after the previous one (default 5); JSON: the answer after N×D ms.
//                Deterministic timing and numbered tokens, for `npm run bench` (drops, order).
//   [echo-auth]  401 whose error message repeats the credential it was sent (the Authorization
//                header whole, then the bare key), as a careless proxy does; also for embeddings
//   [malformed]  streaming: a few tokens, a frame that is not JSON, more tokens, then a proper end
//   [cutoff]     streaming: a few tokens, then the connection ends (no finish_reason, no [DONE])
//   [trickle]    one token a second, forever (until the client hangs up); JSON: a byte a second
//   a request forcing a function (tool_choice {type: "function"}, structured output): a call to it
//                with the arguments of `[so {json}]` in the last user message (verbatim, even when
//                not JSON), else arguments made up from its JSON schema (strings "echo: …", the
//                first enum value, 1, true, one-item arrays)
//   a forced `route` call (Agentflow V1 supervisor) when a message says [route A>B>…]: `next` is the
//                plan's step k, k = the user messages before the last one minus 1 (the workers'
//                answers so far); past the end, the last step again
//   a last user message that is a Condition Agent request (JSON with a `scenarios` list): a fenced
//                {"output": <scenario>}, the scenario `[pick N]` (1-based) in its input names, else
//                the first; `[pick none]` answers text that is not JSON
//   [sql: … :sql], [js: … :js]  the data nodes' query/code and answers (scripted.mjs)
//   [dest NAME]  in a router chain's prompt (ends "<< OUTPUT >>"): a fenced route to NAME (scripted.mjs)
//   [xml NAME: INPUT], [xml final: TEXT]  in the XML agent's prompt: its tool call or final answer (scripted.mjs)
//   otherwise    "echo: <last user message>"
// A request the real API refuses (validateChatCompletion: roles, content, tool-call/tool-message order,
// tool names, tool_choice, ranges) gets OpenAI's 400 invalid_request_error first.
// ANY /echo…: 200 JSON {method, path, query, headers, body} (?status=N answers N), for HTTP nodes.
// POST …/embeddings (OpenAI's embeddings API): a deterministic bag-of-words vector per input
// (lower-cased words, common English words left out, each hashed to one of 4096 dimensions — or
// `dimensions` — then normalised), so texts sharing words are near; [fail-embed] in an input → 500;
// `encoding_format: "base64"` answers each vector as base64 float32s, as OpenAI does. A request the real
// API refuses (validateEmbeddings: model, empty or too many inputs, encoding_format, dimensions, the
// 300,000-token request cap) gets OpenAI's 400 first.
// POST …/v1/embed (Cohere) and …/models/<m>:batchEmbedContents (Gemini): the same vectors, in their
// shapes (cohere.mjs, gemini-embeddings.mjs).
// POST …/completions, …/moderations, …/api/generate, …/v1/generate, …/pipeline/feature-extraction:
// OpenAI's completions and moderations, Ollama's and Cohere's generate, Hugging Face's feature
// extraction (text-services.mjs).
// POST …/v1/rerank: Cohere, Jina and Voyage rerank APIs (rerank.mjs); the retriever nodes' prompts
// (MultiQuery, HyDE, RRF, LLMChainExtractor) have scripted answers (retrievers.mjs).
// GET /requests?contains=<marker> lists recorded requests (body contains marker); DELETE /requests clears.
// A streamed answer's record carries `stream: {tokens, sent, finished, closedEarly}`: how many
// tokens it had, how many went out, and whether the client hung up before the end.
// startStandin() answers {url, requests, close}: `requests` is that same record list, live.
import { createServer } from "node:http";
import { cohereEmbed } from "./cohere.mjs";
import { rerank } from "./rerank.mjs";
import { retrieversAnswer } from "./retrievers.mjs";
import { geminiEmbed } from "./gemini-embeddings.mjs";
import { subQuestionsAnswer } from "./llamaindex.mjs";
import { reactAnswer } from "./react.mjs";
import { schemaAnswer } from "./schema.mjs";
import { fromSchema } from "./base.mjs";
import { scriptedAnswer } from "./scripted.mjs";
import { textServices } from "./text-services.mjs";

const MOVIES = [
  { title: "Echo Park", yearOfRelease: 2014, genres: ["Drama"], shortDescription: "A story of echoes." },
  { title: "Stand In", yearOfRelease: 1937, genres: ["Comedy", "Romance"], shortDescription: "A classic." },
];

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("");
  return "";
}

function answerFor(last, _seen) {
  const subQuestions = subQuestionsAnswer(last);
  if (subQuestions) return subQuestions;
  const react = reactAnswer(last);
  if (react !== undefined) return react;
  const scripted = scriptedAnswer(last);
  if (scripted !== undefined) return scripted;
  if (last.includes("[fixjson]")) return JSON.stringify(MOVIES);
  if (last.includes("[badjson]")) return "Sorry, no JSON today [fixjson]";
  if (last.includes("[json]")) return `Here you go:\n\`\`\`json\n${JSON.stringify(MOVIES, null, 2)}\n\`\`\``;
  if (last.includes("[csv]")) return "a, b, c";
  return `echo: ${last}`;
}

/** A supervisor's route along the plan `[route A>B>…]` (see the header), or undefined. */
function routePlan(messages) {
  const plan = messages.map((m) => /\[route ([^\]]+)\]/.exec(textOf(m.content))?.[1]).find(Boolean);
  if (!plan) return undefined;
  const steps = plan.split(">").map((x) => x.trim());
  const k = Math.max(0, messages.filter((m) => m.role === "user").length - 2);
  return JSON.stringify({ reasoning: "following the plan", next: steps[Math.min(k, steps.length - 1)], instructions: `step ${k + 1}` });
}

/** The Condition Agent's answer for a request naming scenarios, or undefined. */
function scenarioAnswer(last) {
  let request;
  try {
    request = JSON.parse(last);
  } catch {
    return undefined;
  }
  if (!request || !Array.isArray(request.scenarios)) return undefined;
  const input = String(request.input ?? "");
  if (input.includes("[pick none]")) return "I cannot decide.";
  const n = Number(/\[pick (\d+)\]/.exec(input)?.[1] ?? 1);
  return `\`\`\`json\n${JSON.stringify({ output: request.scenarios[n - 1] ?? request.scenarios[0] })}\n\`\`\``;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Chat completions request validation, as OpenAI answers a request it refuses: 400 invalid_request_error.
// Sources: the API reference (openai/openai-openapi: CreateChatCompletionRequest, ChatCompletionRequestMessage
// and its roles, ChatCompletionTool and FunctionObject.name, ChatCompletionToolChoiceOption, StopConfiguration,
// ChatCompletionStreamOptions) and the service's own tool-message errors, quoted in public issue threads.
const MESSAGE_ROLES = ["system", "developer", "user", "assistant", "tool", "function"];
const PART_TYPES = {
  system: ["text"],
  developer: ["text"],
  user: ["text", "image_url", "input_audio", "file"],
  assistant: ["text", "refusal"],
  tool: ["text"],
};
const FUNCTION_NAME = /^[a-zA-Z0-9_-]+$/;
const unanswered = (ids) =>
  "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
  `The following tool_call_ids did not have response messages: ${[...ids].join(", ")}`;

/** A message's content: a string, or a non-empty array of parts of the types its role takes; else the error. */
function contentError(content, role, at) {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content))
    return `Invalid type for '${at}.content': expected a string or an array of objects, got ${content === null ? "null" : typeof content}.`;
  if (!content.length)
    return `Invalid '${at}.content': empty array. Expected an array with minimum length 1, but got an empty array instead.`;
  for (const [j, part] of content.entries()) {
    if (!PART_TYPES[role].includes(part?.type))
      return `Invalid value: '${part?.type}' (${at}.content[${j}].type). Supported values are: ${PART_TYPES[role].join(", ")}.`;
    if (part.type === "text" && typeof part.text !== "string") return `Missing required parameter: '${at}.content[${j}].text'.`;
    if (part.type === "image_url" && typeof part.image_url?.url !== "string")
      return `Missing required parameter: '${at}.content[${j}].image_url.url'.`;
  }
  return undefined;
}

/** What the OpenAI chat completions API refuses in a request: {message, param}, or undefined. */
function validateChatCompletion(body, path) {
  const bad = (message, param = null) => ({ message, param });
  if (!body || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.");
  // Azure OpenAI names the model (its deployment) in the path instead.
  if (!path.includes("/deployments/") && (typeof body.model !== "string" || !body.model))
    return bad("you must provide a model parameter", "model");
  const messages = body.messages;
  if (!Array.isArray(messages)) return bad("Missing required parameter: 'messages'.", "messages");
  if (!messages.length) return bad("[] is too short - 'messages'", "messages");
  let waiting; // the tool_call ids of the last assistant message not yet answered, while only tool messages follow it
  for (const [i, m] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!m || typeof m !== "object") return bad(`Invalid type for '${at}': expected an object.`, at);
    if (!MESSAGE_ROLES.includes(m.role))
      return bad(`Invalid value: '${m.role}'. Supported values are: ${MESSAGE_ROLES.map((r) => `'${r}'`).join(", ")}.`, `${at}.role`);
    if (m.role === "tool") {
      if (!waiting)
        return bad(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `${at}.role`,
        );
      if (!waiting.has(m.tool_call_id))
        return bad(
          `Invalid parameter: 'tool_call_id' of '${m.tool_call_id}' not found in 'tool_calls' of previous message.`,
          `${at}.tool_call_id`,
        );
      waiting.delete(m.tool_call_id);
    } else {
      if (waiting?.size) return bad(unanswered(waiting), `${at}.role`);
      waiting = undefined;
    }
    if (m.role === "function") {
      if (typeof m.name !== "string") return bad(`Missing required parameter: '${at}.name'.`, `${at}.name`);
      continue;
    }
    const calls = m.role === "assistant" ? m.tool_calls : undefined;
    // An assistant's content is required unless it calls tools (or a function).
    const optional = m.role === "assistant" && ((Array.isArray(calls) && calls.length) || m.function_call);
    if (m.content === undefined && !optional) return bad(`Missing required parameter: '${at}.content'.`, `${at}.content`);
    if (!(optional && m.content == null)) {
      const e = contentError(m.content, m.role, at);
      if (e) return bad(e, `${at}.content`);
    }
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) return bad(`Invalid type for '${at}.tool_calls': expected an array.`, `${at}.tool_calls`);
      for (const [j, c] of calls.entries()) {
        if (
          typeof c?.id !== "string" ||
          c.type !== "function" ||
          typeof c.function?.name !== "string" ||
          typeof c.function?.arguments !== "string"
        )
          return bad(
            `Invalid '${at}.tool_calls[${j}]': id, type "function" and function {name, arguments: string} are required.`,
            `${at}.tool_calls[${j}]`,
          );
      }
      if (calls.length) waiting = new Set(calls.map((c) => c.id));
    }
    if (m.role === "tool" && typeof m.tool_call_id !== "string")
      return bad(`Missing required parameter: '${at}.tool_call_id'.`, `${at}.tool_call_id`);
  }
  if (waiting?.size) return bad(unanswered(waiting), "messages");
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return bad("Invalid type for 'tools': expected an array.", "tools");
    for (const [t, tool] of body.tools.entries()) {
      if (tool?.type === "custom" && typeof tool.custom?.name === "string") continue;
      if (tool?.type !== "function")
        return bad(`Invalid value: '${tool?.type}'. Supported values are: 'function' and 'custom'.`, `tools[${t}].type`);
      const name = tool.function?.name;
      if (typeof name !== "string") return bad(`Missing required parameter: 'tools[${t}].function.name'.`, `tools[${t}].function.name`);
      if (!FUNCTION_NAME.test(name))
        return bad(
          `Invalid 'tools[${t}].function.name': string does not match pattern. Expected a match of '${FUNCTION_NAME.source}'.`,
          `tools[${t}].function.name`,
        );
      if (name.length > 64)
        return bad(
          `Invalid 'tools[${t}].function.name': string too long. Expected a string with maximum length 64, but got length ${name.length}.`,
          `tools[${t}].function.name`,
        );
    }
  }
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null) {
    const ok =
      typeof choice === "string"
        ? ["none", "auto", "required"].includes(choice)
        : (choice?.type === "function" && typeof choice.function?.name === "string") ||
          (choice?.type === "custom" && typeof choice.custom?.name === "string") ||
          (choice?.type === "allowed_tools" && typeof choice.allowed_tools === "object");
    if (!ok) return bad(`Invalid value for 'tool_choice': ${JSON.stringify(choice)}.`, "tool_choice");
  }
  const ranges = { temperature: [0, 2], top_p: [0, 1], frequency_penalty: [-2, 2], presence_penalty: [-2, 2], n: [1, 128] };
  for (const [name, [min, max]] of Object.entries(ranges)) {
    const v = body[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number") return bad(`Invalid type for '${name}': expected a number.`, name);
    if (v < min) return bad(`Invalid '${name}': decimal below minimum value. Expected a value >= ${min}, but got ${v} instead.`, name);
    if (v > max) return bad(`Invalid '${name}': decimal above maximum value. Expected a value <= ${max}, but got ${v} instead.`, name);
  }
  if (Array.isArray(body.stop) && (body.stop.length < 1 || body.stop.length > 4))
    return bad(`Invalid 'stop': an array of 1 to 4 sequences is expected, but got ${body.stop.length}.`, "stop");
  if (body.stream_options != null && body.stream !== true)
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  return undefined;
}

// Embeddings request validation, as OpenAI answers a request it refuses (400). Sources: the API reference
// (openai/openai-openapi: CreateEmbeddingRequest — model and input required; input a string that is not
// empty, or 1 to 2048 strings or token arrays; encoding_format float|base64; dimensions ≥ 1, text-embedding-3
// and later only; at most 300,000 tokens summed over a request's inputs) and the service's own messages for
// those, quoted in public issue threads. The route also serves OpenAI-compatible APIs (Azure, Mistral, Jina…).
const EMBEDDINGS_MAX_INPUTS = 2048;
const EMBEDDINGS_MAX_REQUEST_TOKENS = 300_000;
const INVALID_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
const isTokens = (v) => Array.isArray(v) && v.length > 0 && v.every(Number.isInteger);

/**
 * Tokens a text has at least, whichever tokenizer OpenAI counts them with: each run of letters and each
 * group of up to 3 digits is one token or more of its own, so a request over the cap by this count is over it.
 */
const fewestTokens = (text) => text.match(/\p{L}+|\p{N}{1,3}/gu)?.length ?? 0;

/** What the OpenAI embeddings API refuses in a request: {message, param, type?}, or undefined. */
export function validateEmbeddings(body, path = "") {
  const bad = (message, param = null, type = "invalid_request_error") => ({ message, param, type });
  if (!body || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.");
  // Azure OpenAI names the model (its deployment) in the path instead.
  if (!path.includes("/deployments/") && (typeof body.model !== "string" || !body.model))
    return bad("you must provide a model parameter", "model");
  const { input } = body;
  if (input === undefined || input === null) return bad("Missing required parameter: 'input'.", "input");
  const inputs = typeof input === "string" ? [input] : input;
  if (!Array.isArray(inputs)) return bad(INVALID_INPUT);
  if (!inputs.length) return bad("[] is too short - 'input'", "input");
  if (inputs.length > EMBEDDINGS_MAX_INPUTS)
    return bad(
      `Invalid 'input': array too long. Expected an array with maximum length ${EMBEDDINGS_MAX_INPUTS}, ` +
        `but got an array with length ${inputs.length} instead.`,
      "input",
    );
  // One kind for every item: strings (none empty), token arrays, or the tokens of one input.
  const strings = inputs.every((t) => typeof t === "string");
  if (strings && inputs.some((t) => t === "")) return bad(`${INVALID_INPUT} (An input cannot be an empty string.)`);
  if (!strings && !inputs.every(Number.isInteger) && !inputs.every(isTokens)) return bad(INVALID_INPUT);
  const format = body.encoding_format;
  if (format != null && format !== "float" && format !== "base64")
    return bad(`Invalid value: '${format}'. Supported values are: 'float' and 'base64'.`, "encoding_format");
  const dims = body.dimensions;
  if (dims != null) {
    if (!Number.isInteger(dims)) return bad("Invalid type for 'dimensions': expected an integer.", "dimensions");
    if (dims < 1)
      return bad(`Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got ${dims} instead.`, "dimensions");
    if (body.model === "text-embedding-ada-002") return bad("This model does not support specifying dimensions.", "dimensions");
  }
  let tokens = 0;
  if (!strings) tokens = inputs.reduce((n, t) => n + (Array.isArray(t) ? t.length : 1), 0);
  // Texts are counted only when they have more characters than the cap (a counted token takes one or more).
  else if (inputs.reduce((n, t) => n + t.length, 0) > EMBEDDINGS_MAX_REQUEST_TOKENS)
    tokens = inputs.reduce((n, t) => n + fewestTokens(t), 0);
  if (tokens > EMBEDDINGS_MAX_REQUEST_TOKENS)
    return bad(`Requested ${tokens} tokens, max ${EMBEDDINGS_MAX_REQUEST_TOKENS} tokens per request`, null, "max_tokens_per_request");
  return undefined;
}

const STOPWORDS = new Set(
  "a an and are as at be by for from has have i in is it its of on or that the this to was we what when where which who will with you your does do".split(
    " ",
  ),
);

/** The stand-in's embedding of a text: hashed content words, normalised (see the header). */
export function standinEmbedding(text, dims = 4096) {
  const v = new Float32Array(dims); // typed: the bench embeds thousands of texts through this
  for (const word of String(text)
    .toLowerCase()
    .match(/[a-z0-9]+/g) ?? []) {
    if (STOPWORDS.has(word)) continue;
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    v[(h >>> 0) % dims] += 1;
  }
  let sum = 0;
  for (let i = 0; i < dims; i++) sum += v[i] * v[i];
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return v;
}

/** JSON numbers, or base64 of the little-endian float32s when asked (OpenAI's encoding_format). */
function encodeEmbedding(vector, format) {
  return format === "base64" ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") : Array.from(vector);
}

const BENCH = /\[bench(?::(\d+))?(?::(\d+))?\]/;

/** `[bench:N:D]` in the message → {count, delayMs}; undefined without the phrase. */
export function benchSpec(last) {
  const m = BENCH.exec(last);
  if (!m) return undefined;
  return { count: Math.min(Number(m[1] ?? 20), 10_000), delayMs: Math.min(Number(m[2] ?? 5), 10_000) };
}

/** The tokens of a [bench] answer, in order. */
export const benchTokens = (count) => Array.from({ length: count }, (_, i) => `tok${i + 1} `);

/** The [echo-auth] answer: a 401 that quotes the credential the request carried. */
function echoAuth(req, res) {
  const header = req.headers.authorization ?? "";
  const key = req.headers["api-key"] ?? header.replace(/^Bearer\s+/i, "");
  res.writeHead(401, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      error: { message: `Invalid credentials: the request carried "Authorization: ${header}" (key ${key})`, type: "invalid_request_error" },
    }),
  );
}

/**
 * [trickle]: a token (or, for JSON, a space) every second until the client hangs up. The record's
 * `stream` says how many went out and when the client hung up (`closedAt`, ms since the epoch).
 */
function trickle(res, stream, frame, record) {
  res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
  const progress = { tokens: null, sent: 0, finished: false, closedEarly: false, closedAt: null };
  record.stream = progress;
  const timer = setInterval(() => {
    res.write(stream ? frame({ content: "drip " }) : " ");
    progress.sent++;
  }, 1000);
  timer.unref();
  res.on("close", () => {
    clearInterval(timer);
    progress.closedEarly = true;
    progress.closedAt = Date.now();
  });
}

export function startStandin() {
  const requests = [];
  const failures = new Map();
  /** The JSON body, recorded for GET /requests; a 400 answered (and undefined) when it is not JSON. */
  function parseAndRecord(req, res, url, raw) {
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "body is not JSON" } }));
      return undefined;
    }
    requests.push({
      receivedAt: performance.now(), // this process's clock: a bench running the stand-in in-process compares it with its own
      path: url.pathname + url.search,
      headers: { ...req.headers, authorization: req.headers.authorization ?? null, "api-key": req.headers["api-key"] ?? null },
      body,
      raw,
    });
    return body;
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");

    if (url.pathname === "/requests") {
      if (req.method === "DELETE") requests.length = 0;
      const marker = url.searchParams.get("contains");
      const list = marker ? requests.filter((r) => r.raw.includes(marker)) : requests;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(list.map(({ raw: _raw, ...r }) => r)));
      return;
    }
    // Cohere's POST …/v1/embed and Gemini's …:batchEmbedContents (cohere.mjs, gemini-embeddings.mjs).
    const embedCtx = { req, res, url, raw, record: parseAndRecord, embed: standinEmbedding };
    if (textServices(embedCtx)) return; // text LLMs, moderations, feature extraction (text-services.mjs)
    if (cohereEmbed(embedCtx) || geminiEmbed(embedCtx) || rerank(embedCtx)) return;
    if (req.method === "POST" && url.pathname.endsWith("/embeddings")) {
      const body = parseAndRecord(req, res, url, raw);
      if (!body) return;
      const invalid = validateEmbeddings(body, url.pathname);
      if (invalid) {
        res.writeHead(400, { "content-type": "application/json" });
        const code = invalid.type === "invalid_request_error" ? null : invalid.type;
        res.end(JSON.stringify({ error: { ...invalid, code } }));
        return;
      }
      // A string, or an array of integers (one input's tokens), is one input.
      const inputs = Array.isArray(body.input) && !body.input.every(Number.isInteger) ? body.input : [body.input];
      if (inputs.some((t) => String(t).includes("[echo-auth]"))) return echoAuth(req, res);
      if (inputs.some((t) => String(t).includes("[fail-embed]"))) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "stand-in embeddings failure", type: "server_error" } }));
        return;
      }
      const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : 4096;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          model: body.model ?? "standin-embedding",
          // encoding_format "base64": each vector as base64 of its little-endian float32s (OpenAI's format).
          data: inputs.map((t, index) => ({
            object: "embedding",
            index,
            embedding: encodeEmbedding(standinEmbedding(t, dims), body.encoding_format),
          })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
      return;
    }
    // An async run's callback receiver: recorded (GET /requests), answered with ?status= (default 200);
    // ?fail=N answers 500 to the first N deliveries of the same body.
    if (req.method === "POST" && url.pathname.startsWith("/callback")) {
      const body = parseAndRecord(req, res, url, raw);
      if (!body) return;
      const fail = Number(url.searchParams.get("fail") ?? 0);
      const seen = (failures.get(raw) ?? 0) + 1;
      failures.set(raw, seen);
      res.writeHead(seen <= fail ? 500 : Number(url.searchParams.get("status") ?? 200), { "content-type": "application/json" });
      res.end("{}");
      return;
    }
    if (url.pathname.startsWith("/echo")) {
      res.writeHead(Number(url.searchParams.get("status") ?? 200), { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          method: req.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: raw,
        }),
      );
      return;
    }
    if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url.pathname}` } }));
      return;
    }
    const body = parseAndRecord(req, res, url, raw);
    if (!body) return;
    const invalid = validateChatCompletion(body, url.pathname);
    if (invalid) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { ...invalid, type: "invalid_request_error", code: null } }));
      return;
    }
    const record = requests.at(-1);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    const last = textOf(lastUser?.content);

    if (last.includes("[fail]") || (last.includes("[fail-once]") && !failures.has(last))) {
      failures.set(last, true);
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "stand-in failure", type: "server_error" } }));
      return;
    }
    if (last.includes("[echo-auth]")) return echoAuth(req, res);
    if (last.includes("[bad-request]")) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "stand-in refuses this request", type: "invalid_request_error" } }));
      return;
    }
    if (last.includes("[hang]")) {
      // Until the client gives up (or 30 s); the timer must not keep vitest's process alive.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        timer.unref();
        res.on("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      res.destroy();
      return;
    }
    // [call NAME {json}]: planned tool calls, answered one turn at a time (see the header).
    const planned = [...last.matchAll(/\[call (\S+?) (\{.*?\})\]/g)].map((m) => ({ name: m[1], arguments: m[2] }));
    let toolsSaid;
    if (planned.length && Array.isArray(body.tools) && body.tools.length) {
      const lastUser = messages.map((m) => m.role).lastIndexOf("user");
      const results = messages
        .slice(lastUser + 1)
        .filter((m) => m.role === "tool")
        .map((m) => textOf(m.content));
      if (results.length < planned.length) {
        const batch = (last.includes("[parallel]") ? planned.slice(results.length) : [planned[results.length]]).map((c, i) => ({
          id: `call_${results.length + i}`,
          type: "function",
          function: c,
        }));
        const content = last.includes("[chatty]") ? `Calling ${batch.map((c) => c.function.name).join(" and ")}.` : null;
        if (!body.stream) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              id: "chatcmpl-standin",
              object: "chat.completion",
              created: 0,
              model: body.model,
              choices: [{ index: 0, message: { role: "assistant", content, tool_calls: batch }, finish_reason: "tool_calls" }],
            }),
          );
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunk = (delta, finish = null) =>
          `data: ${JSON.stringify({ id: "chatcmpl-standin", object: "chat.completion.chunk", model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: "assistant", content: "" }));
        if (content) for (const word of content.split(/(?<=\s)/)) res.write(chunk({ content: word }));
        for (const [index, call] of batch.entries()) {
          const args = call.function.arguments;
          const half = Math.floor(args.length / 2);
          res.write(
            chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
          );
          res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
          res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
        }
        res.write(chunk({}, "tool_calls"));
        res.end("data: [DONE]\n\n");
        return;
      }
      toolsSaid = `tools said: ${results.join(" | ")}`;
    }
    if (last.includes("[tool]") && Array.isArray(body.tools) && body.tools.length) {
      // A tool call to the first tool offered, with {"input": "2+2"}.
      const call = {
        id: "call_standin",
        type: "function",
        function: { name: body.tools[0].function?.name ?? "tool", arguments: '{"input":"2+2"}' },
      };
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "chatcmpl-standin",
            object: "chat.completion",
            created: 0,
            model: body.model,
            choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }],
          }),
        );
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: "chatcmpl-standin", object: "chat.completion.chunk", model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(
        chunk({
          role: "assistant",
          tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"input":' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"2+2"}' } }] }));
      res.write(chunk({}, "tool_calls"));
      res.end("data: [DONE]\n\n");
      return;
    }
    if (last.includes("[trickle]"))
      return trickle(
        res,
        body.stream,
        (delta) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
        record,
      );
    const forced = body.tool_choice?.type === "function" && body.tool_choice.function?.name;
    if (forced && !toolsSaid) {
      const tool = (body.tools ?? []).find((t) => t.function?.name === forced);
      const given = /\[so (\{.*\})\]/s.exec(last)?.[1] ?? (forced === "route" ? routePlan(body.messages ?? []) : undefined);
      const args = given ?? JSON.stringify(fromSchema(tool?.function?.parameters, last));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-standin",
          object: "chat.completion",
          created: 0,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                tool_calls: [{ id: "call_so", type: "function", function: { name: forced, arguments: args } }],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    const bench = benchSpec(last);
    const answer =
      toolsSaid ??
      scenarioAnswer(last) ??
      retrieversAnswer(messages) ??
      (bench ? benchTokens(bench.count).join("") : last.includes("[schema]") ? schemaAnswer(messages, textOf) : answerFor(last));
    const slow = last.includes("[slow]");
    const id = "chatcmpl-standin";
    const model = body.model ?? "standin";
    if (!body.stream) {
      if (slow) await sleep(1000);
      if (bench) await sleep(bench.count * bench.delayMs);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created: 0,
          model,
          choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const frame = (delta, finish = null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(frame({ role: "assistant", content: "" }));
    const tokens = bench ? benchTokens(bench.count) : answer.split(/(?<=\s)/);
    const progress = { tokens: tokens.length, sent: 0, finished: false, closedEarly: false };
    record.stream = progress;
    res.on("close", () => {
      if (!progress.finished) progress.closedEarly = true;
    });
    if (last.includes("[malformed]") || last.includes("[cutoff]")) {
      // A broken stream: half the answer, then a frame that is not JSON or the end of the connection.
      const half = tokens.slice(0, Math.max(1, Math.floor(tokens.length / 2)));
      for (const token of half) res.write(frame({ content: token }));
      if (last.includes("[cutoff]")) return res.end();
      res.write('data: {"choices":[{"delta":{"content":"lost\n\n');
      for (const token of tokens.slice(half.length)) res.write(frame({ content: token }));
      res.write(frame({}, "stop"));
      return res.end("data: [DONE]\n\n");
    }
    let first = true;
    for (const token of tokens) {
      if (!first && slow) await sleep(300);
      if (bench) await sleep(bench.delayMs);
      first = false;
      if (res.destroyed) return;
      res.write(frame({ content: token }));
      progress.sent++;
    }
    res.write(frame({}, "stop"));
    progress.finished = true;
    res.end("data: [DONE]\n\n");
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
