// Agentflow messages ({role, content, …}, what executed data stores) ↔ LangChain messages (what
// chat models take), and stored chat turns → agentflow messages.
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { contentText } from "../../providers/chat/messages";
import { type ImagePart, type RunUpload, humanWithImages } from "../core/images";
import type { ChatTurn } from "../core/types";
import type { AgentflowMessage } from "./types";

/** A node's way to turn a message's image references into content parts (./images.ts). */
export type ImageResolver = (refs: RunUpload[]) => ImagePart[];

/**
 * Agentflow messages as LangChain's. A message's image references become image parts through
 * `images`; without it (a model that takes no images), or when none resolves, they are left out, and
 * so is a message that held nothing else.
 */
export function toLangChain(messages: AgentflowMessage[], images?: ImageResolver): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const m of messages) {
    if (!m.images?.length) out.push(one(m));
    else {
      const parts = images ? images(m.images) : [];
      if (parts.length) out.push(humanWithImages(m.content, parts));
      else if (m.content) out.push(one(m));
    }
  }
  return out;
}

function one(m: AgentflowMessage): BaseMessage {
  switch (m.role) {
    case "system":
    case "developer":
      return new SystemMessage(m.content);
    case "assistant":
      return new AIMessage({
        content: m.content,
        tool_calls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" as const })),
      });
    case "tool":
      return new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id ?? "", name: m.name });
    default:
      return new HumanMessage(m.content);
  }
}

/** An assistant reply as an agentflow message (tool calls kept, so a paused Agent can resume them). */
export function fromReply(reply: BaseMessage): AgentflowMessage {
  const calls = (reply as AIMessage).tool_calls ?? [];
  const out: AgentflowMessage = { role: "assistant", content: contentText(reply.content) };
  if (calls.length)
    out.tool_calls = calls.map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.name, args: (c.args ?? {}) as Record<string, unknown> }));
  return out;
}

// The stored turn a past user message came from when it recorded uploads (its images: ./images.ts).
// Kept beside the message, not on it: past messages reach executed data and $flow.chatHistory as they are.
const uploaded = new WeakMap<AgentflowMessage, ChatTurn>();

/** Stored messages (userMessage/apiMessage) as the memory nodes read them. */
export const fromTurns = (turns: ChatTurn[]): AgentflowMessage[] =>
  turns.map((t) => {
    const m: AgentflowMessage = { role: t.role === "apiMessage" ? "assistant" : "user", content: t.content };
    if (t.fileUploads && t.role === "userMessage") uploaded.set(m, t);
    return m;
  });

/** The stored turn with uploads a past message came from, if any. */
export const turnWithUploads = (m: AgentflowMessage): ChatTurn | undefined => uploaded.get(m);

/** `{{ chat_history }}`: one `Human: …` / `Assistant: …` line per non-empty message. */
export function historyText(messages: AgentflowMessage[]): string {
  return messages
    .filter((m) => m.content?.trim())
    .map((m) => (m.role === "assistant" ? `Assistant: ${m.content}` : m.role === "user" ? `Human: ${m.content}` : m.content))
    .join("\n");
}
