// Anthropic Messages API stand-in (POST /v1/messages), answering per chatScript (base.mjs): text,
// tool_use blocks, errors in Anthropic's shape; with `stream: true` the SSE events Anthropic sends
// (message_start, content_block_start/delta/stop, message_delta, message_stop).
import { chatScript, forcedCall, hang, serveStandin, sse, tokensOf } from "./base.mjs";

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
    if (!body?.max_tokens)
      return json(400, { type: "error", error: { type: "invalid_request_error", message: "max_tokens: Field required" } });
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
