// LangChain's values (messages, LLM results, serialized runnables) as they go into a trace:
// JSON-safe, long text cut, token usage read from whichever field the provider filled.
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { Usage } from "./trace-types";

/** A field's text is cut past this many characters: a trace is diagnostics, not storage. */
const MAX_FIELD_CHARS = 32_000;

/** A value as it goes into a trace: JSON-safe, long text cut. */
export function clip(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (typeof value === "string")
    return value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS)}… (${value.length} characters)` : value;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return String(value);
  }
  if (text === undefined) return undefined;
  return text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}… (${text.length} characters)` : JSON.parse(text);
}

const roleOf = (m: BaseMessage): string => {
  const type = m.getType?.() ?? "user";
  return type === "human" ? "user" : type === "ai" ? "assistant" : type;
};

const contentOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === "string" ? p : ((p as { text?: string }).text ?? ""))).join("")
      : "";

export interface ChatMessageOut {
  role: string;
  content: string;
  tool_calls?: unknown[];
}

export function messagesOf(list: BaseMessage[]): ChatMessageOut[] {
  return list.map((m) => {
    const calls = (m as { tool_calls?: unknown[] }).tool_calls;
    return { role: roleOf(m), content: contentOf(m.content), ...(calls?.length ? { tool_calls: calls } : {}) };
  });
}

type Counts = { input_tokens?: number; output_tokens?: number; total_tokens?: number };

export function usageOf(output: LLMResult): Usage | undefined {
  const reported = output.llmOutput?.tokenUsage as { promptTokens?: number; completionTokens?: number; totalTokens?: number } | undefined;
  if (reported && (reported.promptTokens || reported.completionTokens || reported.totalTokens)) {
    const input = reported.promptTokens ?? 0;
    const out = reported.completionTokens ?? 0;
    return { input, output: out, total: reported.totalTokens || input + out };
  }
  for (const generation of output.generations.flat()) {
    const counts = (generation as { message?: { usage_metadata?: Counts } }).message?.usage_metadata;
    if (counts && (counts.input_tokens || counts.output_tokens || counts.total_tokens)) {
      const input = counts.input_tokens ?? 0;
      const out = counts.output_tokens ?? 0;
      return { input, output: out, total: counts.total_tokens || input + out };
    }
  }
  return undefined;
}

export function outputOf(output: LLMResult): ChatMessageOut[] {
  return output.generations.flat().map((g) => {
    const message = (g as { message?: BaseMessage }).message;
    return message ? messagesOf([message])[0] : { role: "assistant", content: g.text };
  });
}

export const nameOf = (serialized: Serialized | undefined, runName: string | undefined, fallback: string): string =>
  runName ||
  (serialized && "name" in serialized && typeof serialized.name === "string" ? serialized.name : undefined) ||
  serialized?.id?.at(-1) ||
  fallback;

/** What LangChain passes as `metadata` and `extraParams` to a model's start. */
export type Meta = Record<string, unknown> | undefined;
