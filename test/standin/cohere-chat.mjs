// Cohere Chat API v2 stand-in (POST /v2/chat), answering per chatScript (base.mjs): Bearer key
// required; tool calls as message.tool_calls (OpenAI-shaped, arguments a JSON string); with
// `stream: true` Cohere's SSE events (message-start, content-start/-delta/-end, tool-plan-delta,
// tool-call-start/-delta/-end, message-end). Errors are Cohere's {message}; [echo-auth] → 401
// repeating the key it was sent.
import { chatScript, hang, serveStandin, sse, tokensOf } from "./base.mjs";

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
    const messages = body?.messages ?? [];
    const lastUserIdx = messages.findLastIndex((m) => m.role === "user" && textOf(m.content));
    const last = textOf(messages[lastUserIdx]?.content);
    if (last.includes("[echo-auth]")) return json(401, { message: `invalid api token: ${auth.slice(7)}` });
    const results = messages
      .slice(lastUserIdx + 1)
      .filter((m) => m.role === "tool")
      .map((m) => textOf(m.content));
    const step = chatScript(last, results, Array.isArray(body.tools) && body.tools.length > 0);
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
