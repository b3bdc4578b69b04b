// Cohere Chat API v2 stand-in (POST /v2/chat), answering per chatScript (base.mjs): Bearer key
// required; tool calls as message.tool_calls (OpenAI-shaped, arguments a JSON string); with
// `stream: true` Cohere's SSE events (message-start, content-start/-delta/-end, tool-plan-delta,
// tool-call-start/-delta/-end, message-end). Errors are Cohere's {message}; [echo-auth] → 401
// repeating the key it was sent. A request Cohere refuses (validateCohereChat) gets its 400 (or 422).
import { chatScript, forcedCall, hang, serveStandin, sse, tokensOf } from "./base.mjs";

// Request rules, as Cohere answers a request that breaks them. Sources: Cohere's API reference
// (docs.cohere.com/reference/chat, its OpenAPI spec cohere-ai/cohere-developer-experience cohere-openapi.yaml:
// the /v2/chat body and its ranges, ChatMessageV2 and each role's required fields and content types,
// ToolCallV2, ToolV2 with function {name, parameters} required, tool_choice REQUIRED | NONE and REQUIRED
// only with tools); unknown fields refused with a 422 "unknown field" and an unanswered tool call refused
// with "invalid request: An assistant message with 'tool_calls' must be followed by …", as the service
// words them (quoted in agno-agi/agno#3503 and oracle/langchain-oracle#10).
const BODY_FIELDS = [
  ...["stream", "model", "messages", "tools", "strict_tools", "documents", "citation_options", "response_format"],
  ...["safety_mode", "max_tokens", "stop_sequences", "temperature", "seed", "frequency_penalty", "presence_penalty"],
  ...["k", "p", "logprobs", "tool_choice", "thinking", "priority"],
];
// Each role's fields and the content block types it takes (a string is one text block).
const ROLES = {
  user: { fields: ["role", "content"], required: ["content"], blocks: ["text", "image_url"] },
  assistant: { fields: ["role", "content", "tool_calls", "tool_plan", "citations"], required: [], blocks: ["text", "thinking"] },
  system: { fields: ["role", "content"], required: ["content"], blocks: ["text"] },
  tool: { fields: ["role", "tool_call_id", "content"], required: ["tool_call_id", "content"], blocks: ["text", "document"] },
};
const RANGES = [
  ["temperature", 0, 1],
  ["p", 0.01, 0.99],
  ["k", 0, 500],
  ["frequency_penalty", 0, 1],
  ["presence_penalty", 0, 1],
];
const unknown = (name) => ({
  status: 422,
  message:
    `unknown field: parameter '${name}' is not a valid field. ` +
    "For proper usage, please refer to https://docs.cohere.com/reference/chat",
});
const invalid = (message) => ({ status: 400, message: `invalid request: ${message}` });
const unanswered = (ids) =>
  invalid(
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      `The following tool_call_ids did not have response messages: ${[...ids].join(", ")}`,
  );

/** The first rule a /v2/chat body breaks, as {status, message}; undefined when it keeps them all. */
export function validateCohereChat(body) {
  if (!body || typeof body !== "object" || Array.isArray(body)) return invalid("the request body must be a JSON object");
  for (const k of Object.keys(body)) if (!BODY_FIELDS.includes(k)) return unknown(k);
  if (typeof body.model !== "string" || !body.model) return invalid("model is required");
  if (!Array.isArray(body.messages)) return invalid("messages is required");
  let waiting; // the tool_call ids of the last assistant message not yet answered, while only tool messages follow it
  for (const [i, m] of body.messages.entries()) {
    const role = ROLES[m?.role];
    if (!role) return invalid(`messages[${i}].role must be one of user, assistant, system, tool`);
    for (const k of Object.keys(m)) if (!role.fields.includes(k)) return unknown(k);
    for (const k of role.required)
      if (m[k] === undefined || m[k] === null) return invalid(`messages[${i}].${k} is required for a ${m.role} message`);
    if (m.content !== undefined) {
      const blocks = typeof m.content === "string" ? [] : m.content;
      if (!Array.isArray(blocks) || blocks.some((b) => !role.blocks.includes(b?.type)))
        return invalid(`messages[${i}].content must be a string or a list of ${role.blocks.join(" / ")} content blocks`);
    }
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string") return invalid(`messages[${i}].tool_call_id must be a string`);
      waiting?.delete(m.tool_call_id);
      continue;
    }
    if (waiting?.size) return unanswered(waiting);
    waiting = undefined;
    if (m.tool_calls !== undefined) {
      if (m.role !== "assistant" || !Array.isArray(m.tool_calls)) return invalid(`messages[${i}].tool_calls must be a list`);
      for (const [j, c] of m.tool_calls.entries())
        if (typeof c?.id !== "string" || c.type !== "function")
          return invalid(`messages[${i}].tool_calls[${j}]: id and type "function" are required`);
      waiting = new Set(m.tool_calls.map((c) => c.id));
    }
  }
  if (waiting?.size) return unanswered(waiting);
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid("tools must be a list");
    for (const [t, tool] of body.tools.entries()) {
      if (tool?.type !== "function") return invalid(`tools[${t}].type must be "function"`);
      for (const k of Object.keys(tool)) if (!["type", "function"].includes(k)) return unknown(k);
      const fn = tool.function;
      if (typeof fn?.name !== "string" || !fn.name) return invalid(`tools[${t}].function.name is required`);
      if (!fn.parameters || typeof fn.parameters !== "object") return invalid(`tools[${t}].function.parameters is required`);
      for (const k of Object.keys(fn)) if (!["name", "description", "parameters"].includes(k)) return unknown(k);
    }
  }
  if (body.tool_choice !== undefined) {
    if (!["REQUIRED", "NONE"].includes(body.tool_choice)) return invalid("tool_choice must be one of REQUIRED, NONE");
    if (body.tool_choice === "REQUIRED" && !body.tools?.length) return invalid("tool_choice REQUIRED needs tools in the request");
  }
  for (const [key, min, max] of RANGES)
    if (body[key] !== undefined && !(typeof body[key] === "number" && body[key] >= min && body[key] <= max))
      return invalid(`${key} must be between ${min} and ${max}`);
  if (body.max_tokens !== undefined && !Number.isInteger(body.max_tokens)) return invalid("max_tokens must be an integer");
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.length <= 5))
    return invalid("stop_sequences must be a list of up to 5 strings");
  return undefined;
}

const textOf = (content) =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .filter((b) => b.type === "text")
          .map((b) => b.text)
          .join("")
      : "";

export function startCohereChatStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    if (req.method !== "POST" || url.pathname !== "/v2/chat") return json(404, { message: `no route ${url.pathname}` });
    const auth = req.headers.authorization ?? "";
    if (!auth.startsWith("Bearer ")) return json(401, { message: "no api key supplied" });
    const refused = validateCohereChat(body);
    if (refused) return json(refused.status, { message: refused.message });
    const messages = body?.messages ?? [];
    const lastUserIdx = messages.findLastIndex((m) => m.role === "user" && textOf(m.content));
    const last = textOf(messages[lastUserIdx]?.content);
    if (last.includes("[echo-auth]")) return json(401, { message: `invalid api token: ${auth.slice(7)}` });
    const results = messages
      .slice(lastUserIdx + 1)
      .filter((m) => m.role === "tool")
      .map((m) => textOf(m.content));
    // REQUIRED with one tool offered forces that call (structured output binds just its tool).
    const only = body.tool_choice === "REQUIRED" && body.tools.length === 1 && !results.length ? body.tools[0].function : undefined;
    const step = only ? forcedCall(only.name, only.parameters, last) : chatScript(last, results, body.tools?.length > 0);
    if (step.fail) return json(step.fail, { message: "stand-in refuses this request" });
    if (step.hang) return hang(res);
    const calls = (step.calls ?? []).map((c, i) => ({
      id: `call_${results.length + i}`,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
    const finish = calls.length ? "TOOL_CALL" : "COMPLETE";
    const usage = { billed_units: { input_tokens: 3, output_tokens: 5 }, tokens: { input_tokens: 4, output_tokens: 6 } };
    const message = calls.length
      ? { role: "assistant", tool_plan: "I will call a tool.", tool_calls: calls }
      : { role: "assistant", content: [{ type: "text", text: step.text }] };
    if (!body.stream) return json(200, { id: "standin", finish_reason: finish, message, usage });
    const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const frames = [ev("message-start", { id: "standin", delta: { message: { role: "assistant" } } })];
    if (calls.length) {
      frames.push(ev("tool-plan-delta", { delta: { message: { tool_plan: "I will call a tool." } } }));
      calls.forEach((c, index) => {
        frames.push(
          ev("tool-call-start", {
            index,
            delta: { message: { tool_calls: { ...c, function: { name: c.function.name, arguments: "" } } } },
          }),
        );
        const half = Math.floor(c.function.arguments.length / 2);
        for (const part of [c.function.arguments.slice(0, half), c.function.arguments.slice(half)])
          frames.push(ev("tool-call-delta", { index, delta: { message: { tool_calls: { function: { arguments: part } } } } }));
        frames.push(ev("tool-call-end", { index }));
      });
    } else {
      frames.push(ev("content-start", { index: 0, delta: { message: { content: { type: "text", text: "" } } } }));
      for (const t of tokensOf(step.text)) frames.push(ev("content-delta", { index: 0, delta: { message: { content: { text: t } } } }));
      frames.push(ev("content-end", { index: 0 }));
    }
    frames.push(ev("message-end", { delta: { finish_reason: finish, usage } }));
    sse(res, frames);
  });
}
