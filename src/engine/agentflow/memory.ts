// The messages an LLM, Agent or Condition Agent node sends (AGENTFLOW.md §5): the request's history
// (first node only), the node's own messages (system first), the memory block, the user input.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { contentText } from "../../providers/chat/messages";
import { modelFailure } from "../core/errors";
import type { NodeRuntime } from "./node-types";
import type { AgentflowMessage } from "./types";
import { listOf, num } from "./util";

const DEFAULT_SUMMARIZER_TEMPLATE =
  `Progressively summarize the conversation provided and return a new summary.

EXAMPLE:
Human: Why do you think artificial intelligence is a force for good?
AI: Because artificial intelligence will help humans reach their full potential.

New summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for ` +
  `good because it will help humans reach their full potential.
END OF EXAMPLE

Conversation:
{conversation}

New summary:`;

export interface MemorySettings {
  enabled: boolean;
  type: string;
  windowSize: number;
  maxTokenLimit: number;
}

/** `<prefix>EnableMemory` (default on), `<prefix>MemoryType`, `…WindowSize` (20), `…MaxTokenLimit` (2000). */
export function memorySettings(inputs: Record<string, unknown>, prefix: string): MemorySettings {
  const enabled = inputs[`${prefix}EnableMemory`];
  return {
    enabled: enabled === undefined || enabled === "" ? true : enabled === true || enabled === "true",
    type:
      typeof inputs[`${prefix}MemoryType`] === "string" && inputs[`${prefix}MemoryType`]
        ? String(inputs[`${prefix}MemoryType`])
        : "allMessages",
    windowSize: Math.max(1, Math.floor(num(inputs[`${prefix}MemoryWindowSize`]) ?? 20)),
    maxTokenLimit: Math.max(1, num(inputs[`${prefix}MemoryMaxTokenLimit`]) ?? 2000),
  };
}

/** The request's `history`, for the first node of a run only. */
export function prependedHistory(rt: NodeRuntime): AgentflowMessage[] {
  if (rt.runtimeChatHistory.length) return [];
  return (rt.request.history ?? []).map((t) => ({ role: t.role === "apiMessage" ? "assistant" : "user", content: t.content ?? "" }));
}

/** The node's own `[{role, content}]` messages: system ones in front, empty ones dropped. */
export function ownMessages(raw: unknown): AgentflowMessage[] {
  const out: AgentflowMessage[] = [];
  for (const m of listOf<{ role?: unknown; content?: unknown }>(raw)) {
    if (typeof m.role !== "string" || !m.role || typeof m.content !== "string" || !m.content) continue;
    const role = (["system", "developer", "assistant", "user"].includes(m.role) ? m.role : "user") as AgentflowMessage["role"];
    if (role === "system") out.unshift({ role, content: m.content });
    else out.push({ role, content: m.content });
  }
  return out;
}

// Rough token count (about four characters a token): the buffer only needs an order of magnitude.
const tokens = (text: string) => Math.ceil(text.length / 4);
const lines = (messages: AgentflowMessage[]) => messages.map((m) => `${m.role}: ${m.content}`).join("\n");

async function summarise(model: BaseChatModel, messages: AgentflowMessage[], signal: AbortSignal): Promise<string> {
  try {
    const reply = await model.invoke([new HumanMessage(DEFAULT_SUMMARIZER_TEMPLATE.replace("{conversation}", lines(messages)))], {
      signal,
    });
    return contentText(reply.content);
  } catch (err) {
    throw modelFailure(err, { signal });
  }
}

/** The memory block appended to `messages`, per memory type. */
export async function appendMemory(
  messages: AgentflowMessage[],
  past: AgentflowMessage[],
  settings: MemorySettings,
  model: BaseChatModel,
  signal: AbortSignal,
): Promise<void> {
  if (!past.length) return;
  switch (settings.type) {
    case "windowSize":
      messages.push(...past.slice(-settings.windowSize * 2));
      return;
    case "conversationSummary":
      messages.push({ role: "assistant", content: await summarise(model, past, signal) });
      return;
    case "conversationSummaryBuffer": {
      if (tokens(lines(past)) <= settings.maxTokenLimit) {
        messages.push(...past);
        return;
      }
      const remaining = [...past];
      const older: AgentflowMessage[] = [];
      while (remaining.length && tokens(lines(remaining)) > settings.maxTokenLimit) older.push(remaining.shift()!);
      const role = messages.some((m) => m.role === "system") ? "user" : "system";
      messages.push({ role, content: `Previous conversation summary: ${await summarise(model, older, signal)}` });
      messages.push(...remaining);
      return;
    }
    default:
      messages.push(...past);
  }
}

/**
 * LLM and Agent message assembly: history (first node) + own messages, then with memory the
 * memory block (past + runtime, the user input after it on the first node) and the node's user
 * message; without memory, the user input on the first node unless the node has its own user message.
 * `images`: the question's image message (./images.ts), just before the question on the first node;
 * `past`: the session's past messages as this node sees them (with earlier turns' images: ./images.ts).
 */
export async function conversation(
  rt: NodeRuntime,
  own: AgentflowMessage[],
  input: string | undefined,
  settings: MemorySettings,
  userMessage: string | undefined,
  model: BaseChatModel,
  images?: AgentflowMessage,
  past: AgentflowMessage[] = rt.pastChatHistory,
): Promise<AgentflowMessage[]> {
  const messages = [...prependedHistory(rt), ...own.filter((m) => m.role !== "system")];
  messages.unshift(...own.filter((m) => m.role === "system"));
  const first = !rt.runtimeChatHistory.length;
  const pictured = first && images ? [images] : [];
  if (settings.enabled) {
    const remembered = [...past, ...rt.runtimeChatHistory];
    // Flowise folds the question into a conversation summary; it is kept as the last turn instead.
    const asked = first && input ? [...pictured, { role: "user" as const, content: input }] : [];
    if (settings.type === "conversationSummary") {
      await appendMemory(messages, remembered, settings, model, rt.signal);
      messages.push(...asked);
    } else await appendMemory(messages, [...remembered, ...asked], settings, model, rt.signal);
    if (userMessage) messages.push({ role: "user", content: userMessage });
  } else {
    messages.push(...pictured);
    if (first && input && !own.some((m) => m.role === "user")) messages.push({ role: "user", content: input });
  }
  return messages;
}

/** What an LLM/Agent adds to the runtime history before its answer (first node only): the question's images first. */
export function inputHistory(
  rt: NodeRuntime,
  own: AgentflowMessage[],
  input: string | undefined,
  memory: boolean,
  images?: AgentflowMessage,
): AgentflowMessage[] {
  if (rt.runtimeChatHistory.length || !input) return [];
  const pictured = images ? [images] : [];
  if (memory || !own.some((m) => m.role === "user")) return [...pictured, { role: "user", content: input }];
  return [...pictured, ...own.filter((m) => m.role === "user").map((m) => ({ role: "user" as const, content: m.content }))];
}
