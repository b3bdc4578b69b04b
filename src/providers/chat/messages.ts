// LangChain messages ↔ the OpenAI chat completions wire format (also what Workers AI takes).
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";

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

/**
 * A user turn's text when it has nothing to send (an empty question, say from an agentflow started by a
 * form, or a system prompt alone): Anthropic, Gemini and Converse refuse blank text and a request without
 * a user turn. LiteLLM's convention for the same problem.
 */
export const EMPTY_USER_TEXT = "Please continue.";

/**
 * A tool result's text, never blank: a tool that answered nothing (a custom tool returning nothing, an
 * empty search) is said to have, since Converse refuses a blank text block in a tool result.
 */
export function toolResultText(content: unknown): string {
  const text = contentText(content);
  return text.trim() ? text : "(the tool answered nothing)";
}

type Call = { id?: string; name: string; args: unknown };
const callsOf = (m: BaseMessage): Call[] => (m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []) : []);
/** A call's id as the wire gives it (toWireMessages numbers a call without one). */
const callId = (c: Call, n: number): string => c.id ?? `call_${n}`;
const callIdOf = (m: BaseMessage): string | undefined => (m as unknown as { tool_call_id?: string }).tool_call_id;

/**
 * Tool calls and results as the chat APIs take them: each result right after the AI turn whose call it answers,
 * each call answered before the next turn (OpenAI, Gemini and Anthropic refuse either alone). Our flows can
 * cut one from the other (a V1 node reading only the last message after a Tool Node, a memory window): a lone
 * result goes as a user message saying what the tool answered, a call left unanswered is left out of its turn.
 */
export function pairToolCalls(messages: BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.getType() === "tool") {
      out.push(toolResultAsText(m));
      continue;
    }
    const calls = callsOf(m);
    if (!calls.length) {
      out.push(m);
      continue;
    }
    let end = i + 1;
    while (end < messages.length && messages[end].getType() === "tool") end++;
    const results = messages.slice(i + 1, end);
    const open = new Set(calls.map(callId));
    const answers = results.filter((r) => open.delete(callIdOf(r) ?? "")); // the first result for each call
    const answered = calls.map((c, n) => ({ ...c, id: callId(c, n) })).filter((c) => !open.has(c.id));
    out.push(
      answered.length === calls.length
        ? m
        : new AIMessage({ content: m.content, tool_calls: answered as AIMessage["tool_calls"], additional_kwargs: m.additional_kwargs }),
    );
    out.push(...answers, ...results.filter((r) => !answers.includes(r)).map(toolResultAsText));
    i = end - 1;
  }
  return out;
}

/** A tool result with no call to answer, as the user telling the model what the tool said. */
function toolResultAsText(m: BaseMessage): BaseMessage {
  const name = (m as unknown as { name?: string }).name;
  return new HumanMessage(`The tool ${name || "(unnamed)"} answered: ${contentText(m.content)}`);
}

export function toWireMessages(messages: BaseMessage[], textOnly = false): WireMessage[] {
  return pairToolCalls(messages).map((m) => {
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
