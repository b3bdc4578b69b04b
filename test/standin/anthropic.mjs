// Anthropic Messages API stand-in (POST /v1/messages), answering per chatScript (base.mjs): text,
// tool_use blocks, errors in Anthropic's shape; with `stream: true` the SSE events Anthropic sends
// (message_start, content_block_start/delta/stop, message_delta, message_stop). A request that breaks
// one of the rules below is refused with Anthropic's 400, as the real API does.
import { chatScript, forcedCall, hang, serveStandin, sse, tokensOf } from "./base.mjs";

// Request rules the Messages API documents (and answers with a 400 invalid_request_error), checked
// before the script runs: the API reference (platform.claude.com/docs/en/api/messages: required
// model / max_tokens / messages, roles "user" | "assistant" with no "system" role, consecutive
// same-role turns combined, sampling ranges), the tool-use guides (tool names
// ^[a-zA-Z0-9_-]{1,64}$, input_schema an object schema; handle-tool-calls: every tool_use answered
// by a tool_result in the next message, tool_result blocks first in it, each answering a tool_use of
// the previous message) and the service's own refusal of empty or whitespace-only text. Not enforced,
// because the service no longer does: alternation (same-role turns are combined) and tools being defined
// when the history holds tool blocks (optional since February 2025).
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
// A string is shorthand for one text block ("" for no content at all).
const blocksOf = (content) => (typeof content === "string" ? (content ? [{ type: "text", text: content }] : []) : content);

/** The first rule `body` breaks, as Anthropic words it; undefined when it keeps them all. */
export function validateMessages(body) {
  if (typeof body?.model !== "string" || !body.model) return "model: Field required";
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 0) return "max_tokens: Input should be a valid non-negative integer";
  for (const [key, max] of [
    ["temperature", 1],
    ["top_p", 1],
  ])
    if (body[key] !== undefined && !(typeof body[key] === "number" && body[key] >= 0 && body[key] <= max))
      return `${key}: Input should be a number between 0 and ${max}`;
  if (body.top_k !== undefined && !(Number.isInteger(body.top_k) && body.top_k >= 0))
    return "top_k: Input should be a non-negative integer";
  if (body.system !== undefined) {
    const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system;
    if (!Array.isArray(system) || system.some((b) => b?.type !== "text" || typeof b.text !== "string"))
      return "system: Input should be a string or a list of text blocks";
    if (system.some((b) => !b.text.trim())) return "system: text content blocks must contain non-whitespace text";
  }
  for (const [i, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    if (tool?.type && tool.type !== "custom") continue; // Anthropic-defined tools have their own shapes
    if (typeof tool?.name !== "string" || !TOOL_NAME.test(tool.name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (tool.input_schema?.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || !messages.length) return "messages: at least one message is required";
  for (const [i, m] of messages.entries()) {
    if (m?.role === "system")
      return (
        `messages.${i}.role: Unexpected role "system". The Messages API accepts a top-level \`system\` parameter, ` +
        'not "system" as an input message role.'
      );
    if (m?.role !== "user" && m?.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const blocks = blocksOf(m.content);
    if (!Array.isArray(blocks)) return `messages.${i}.content: Input should be a valid string or list`;
    const finalAssistant = i === messages.length - 1 && m.role === "assistant";
    if (!blocks.length && !finalAssistant)
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    for (const [j, b] of blocks.entries()) {
      if (b?.type === "text" && (typeof b.text !== "string" || !b.text)) return "messages: text content blocks must be non-empty";
      if (b?.type === "text" && !b.text.trim()) return "messages: text content blocks must contain non-whitespace text";
      if (b?.type === "tool_use" && m.role !== "assistant")
        return `messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`;
      if (b?.type === "tool_result" && m.role !== "user")
        return `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`;
    }
  }
  // Consecutive same-role messages are one turn; tool pairing is checked between turns.
  const turns = [];
  for (const [i, m] of messages.entries()) {
    const last = turns.at(-1);
    if (last?.role === m.role) last.blocks.push(...blocksOf(m.content));
    else turns.push({ role: m.role, at: i, blocks: [...blocksOf(m.content)] });
  }
  for (const [t, turn] of turns.entries()) {
    const results = turn.blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id);
    const asked = t > 0 ? turns[t - 1].blocks.filter((b) => b.type === "tool_use").map((b) => b.id) : [];
    const unexpected = results.filter((id) => !asked.includes(id));
    if (unexpected.length)
      return (
        `messages.${turn.at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(", ")}. ` +
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
      );
    const leading = turn.blocks.findIndex((b) => b.type !== "tool_result");
    if (leading >= 0 && leading < results.length)
      return (
        `messages.${turn.at}: Did not find ${results.length} tool_result block(s) at the beginning of this message. ` +
        "Messages following tool_use blocks must begin with a matching number of tool_result blocks."
      );
    const uses = turn.blocks.filter((b) => b.type === "tool_use").map((b) => b.id);
    const answered = turns[t + 1]?.blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) ?? [];
    const open = uses.filter((id) => !answered.includes(id));
    if (open.length)
      return (
        `messages.${turn.at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.join(", ")}. ` +
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
      );
  }
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

export function startAnthropicStandin() {
  return serveStandin(async ({ req, res, url, body, json }) => {
    if (req.method !== "POST" || url.pathname !== "/v1/messages")
      return json(404, { type: "error", error: { type: "not_found_error", message: `no route ${url.pathname}` } });
    if (!req.headers["x-api-key"])
      return json(401, { type: "error", error: { type: "authentication_error", message: "x-api-key header is required" } });
    const invalid = validateMessages(body);
    if (invalid) return json(400, { type: "error", error: { type: "invalid_request_error", message: invalid } });
    const messages = body.messages ?? [];
    const lastUserIdx = messages.findLastIndex((m) => m.role === "user" && textOf(m.content));
    const last = textOf(messages[lastUserIdx]?.content);
    const results = messages
      .slice(lastUserIdx + 1)
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === "tool_result")
      .map((b) => (typeof b.content === "string" ? b.content : textOf(b.content)));
    // tool_choice as Anthropic validates it; {type: "tool", name} forces that tool's call.
    const choice = body.tool_choice;
    const tools = Array.isArray(body.tools) ? body.tools : [];
    if (choice !== undefined) {
      const problem = !["auto", "any", "tool", "none"].includes(choice?.type)
        ? "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
        : choice.type === "tool" && !tools.some((t) => t.name === choice.name)
          ? `tool_choice.name: no tool named ${choice.name}`
          : undefined;
      if (problem) return json(400, { type: "error", error: { type: "invalid_request_error", message: problem } });
    }
    const forced = choice?.type === "tool" && !results.length ? tools.find((t) => t.name === choice.name) : undefined;
    const step = forced ? forcedCall(forced.name, forced.input_schema, last) : chatScript(last, results, tools.length > 0);
    if (step.fail)
      return json(step.fail, {
        type: "error",
        error: { type: step.fail === 500 ? "api_error" : "invalid_request_error", message: "stand-in refuses this request" },
      });
    if (step.hang) return hang(res);
    const blocks = step.calls
      ? step.calls.map((c, i) => ({ type: "tool_use", id: `toolu_${results.length + i}`, name: c.name, input: c.args }))
      : [{ type: "text", text: step.text }];
    const stop = step.calls ? "tool_use" : "end_turn";
    const message = {
      id: "msg_standin",
      type: "message",
      role: "assistant",
      model: body.model,
      content: blocks,
      stop_reason: stop,
      usage: { input_tokens: 3, output_tokens: 5 },
    };
    if (!body.stream) return json(200, message);
    const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const frames = [
      ev("message_start", { message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } }),
      ev("ping", {}),
    ];
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        frames.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
        for (const t of tokensOf(b.text)) frames.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: t } }));
      } else {
        frames.push(ev("content_block_start", { index, content_block: { ...b, input: {} } }));
        const args = JSON.stringify(b.input);
        const half = Math.floor(args.length / 2);
        frames.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args.slice(0, half) } }));
        frames.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args.slice(half) } }));
      }
      frames.push(ev("content_block_stop", { index }));
    });
    frames.push(ev("message_delta", { delta: { stop_reason: stop }, usage: { output_tokens: 5 } }), ev("message_stop", {}));
    sse(res, frames);
  });
}
