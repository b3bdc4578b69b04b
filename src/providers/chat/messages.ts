// LangChain messages ↔ the OpenAI chat completions wire format (also what Workers AI takes).
import type { BaseMessage } from "@langchain/core/messages";

export type WireMessage = {
  role: "system" | "user" | "assistant" | "tool";
  content: string | Array<Record<string, unknown>> | null;
  tool_calls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
};

const ROLES: Record<string, WireMessage["role"]> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
};

/** Text of a message's content (string, or the text parts of a content array). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "string"
          ? part
          : part && typeof part === "object" && "text" in part
            ? String((part as { text: unknown }).text ?? "")
            : "",
      )
      .join("");
  }
  return content == null ? "" : String(content);
}

function wireContent(content: unknown): WireMessage["content"] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return contentText(content);
  const parts: Array<Record<string, unknown>> = [];
  for (const part of content) {
    if (typeof part === "string") parts.push({ type: "text", text: part });
    else if (part?.type === "text") parts.push({ type: "text", text: part.text });
    else if (part?.type === "image_url") parts.push({ type: "image_url", image_url: part.image_url });
  }
  return parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("") : parts;
}

export function toWireMessages(messages: BaseMessage[], textOnly = false): WireMessage[] {
  return messages.map((m) => {
    const type = m.getType();
    const role = ROLES[type] ?? (type === "generic" ? (ROLES[String((m as unknown as { role?: string }).role)] ?? "user") : "user");
    const out: WireMessage = { role, content: textOnly ? contentText(m.content) : wireContent(m.content) };
    const calls = (m as unknown as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> }).tool_calls;
    if (role === "assistant" && calls?.length) {
      out.tool_calls = calls.map((c, i) => ({
        id: c.id ?? `call_${i}`,
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
      }));
      if (out.content === "") out.content = null;
    }
    if (role === "tool") out.tool_call_id = (m as unknown as { tool_call_id?: string }).tool_call_id;
    return out;
  });
}
