// Conversation turns (Flowise's userMessage / apiMessage) as LangChain messages or as text.
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatTurn } from "./types";

export const turnsToMessages = (turns: ChatTurn[]): BaseMessage[] =>
  turns.map((t) => (t.role === "apiMessage" ? new AIMessage(t.content) : new HumanMessage(t.content)));

/** Chat history as text, the way `{{chat_history}}` shows it. */
export const turnsToText = (turns: ChatTurn[]): string =>
  turns.map((t) => `${t.role === "apiMessage" ? "Assistant" : "Human"}: ${t.content}`).join("\n");
