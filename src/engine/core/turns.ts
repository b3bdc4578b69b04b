// Conversation turns (Flowise's userMessage / apiMessage) as LangChain messages or as text.
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatTurn } from "./types";

// The stored turn a human message was made from, when that turn recorded uploads: a model that takes
// images gets them back on it (./past-images.ts, withPastImages). Keyed by the message, so whatever a
// memory does with its messages (a window, a summary buffer's kept ones), the link goes with them.
const uploaded = new WeakMap<BaseMessage, ChatTurn>();

export const turnsToMessages = (turns: ChatTurn[]): BaseMessage[] =>
  turns.map((t) => {
    if (t.role === "apiMessage") return new AIMessage(t.content);
    const m = new HumanMessage(t.content);
    if (t.fileUploads) uploaded.set(m, t);
    return m;
  });

/** The stored turn with uploads a human message was made from, if any. */
export const turnWithUploads = (m: BaseMessage): ChatTurn | undefined => uploaded.get(m);

/** Chat history as text, the way `{{chat_history}}` shows it. */
export const turnsToText = (turns: ChatTurn[]): string =>
  turns.map((t) => `${t.role === "apiMessage" ? "Assistant" : "Human"}: ${t.content}`).join("\n");
