// Rules some OpenAI-compatible services hold that OpenAI does not (Mistral, Perplexity, DeepSeek, xAI,
// Cerebras, Fireworks: their registry entries in openai-family.ts say which), and the conversation and body
// reshaped to them before they go (openai-compatible.ts). Each rule is a refusal our flows can hit: memory ending with a question whose
// answer failed (two user turns), a greeting first, a system prompt after the question, tool call ids made
// by another provider, a tool result cut from the answer that followed it.
import type { BaseMessage } from "@langchain/core/messages";
import { cyrb53 } from "../../lib/crypto";
import { EMPTY_USER_TEXT, type WireMessage, pairToolCalls, toWireMessages } from "./messages";

export interface WireDialect {
  /** Tool call ids as the service takes them (a call and its result get the same new id). */
  toolCallId?: (id: string) => string;
  /** System messages first: the service refuses one once the conversation has started. */
  systemFirst?: boolean;
  /** Consecutive user (or assistant) turns sent as one: the service wants them alternating. */
  alternate?: boolean;
  /** A user turn before an opening assistant turn (memory opening with a greeting). */
  userFirst?: boolean;
  /** An assistant turn between tool results and the user turn after them. */
  assistantAfterTools?: boolean;
  /** The roles the last message may have; after any other, a user turn saying EMPTY_USER_TEXT. */
  lastRoles?: WireMessage["role"][];
  /** The reasoning_content an answer came with, sent back with its tool calls (stored answers' or ""). */
  reasoningBack?: boolean;
  /** Body fields the service (or this model) refuses with a 400, left out: none has an equivalent it takes. */
  refusedFields?: string[];
  /** The most max_tokens the service allows a request not streamed; above it the answer is asked as a stream and gathered. */
  wholeMaxTokens?: number;
}

type DialectMessage = WireMessage & { reasoning_content?: string };

/** What an assistant turn says between tool results and the next user turn (assistantAfterTools). */
export const TOOL_RESULTS_READ = "I have read the tool results.";

/** `messages` as chat completions messages shaped to `dialect`'s rules. */
export function dialectMessages(messages: BaseMessage[], dialect: WireDialect): WireMessage[] {
  const paired = pairToolCalls(messages);
  // toWireMessages pairs again (a no-op now), so wire[i] is paired[i]: what the reasoning is read from.
  let out: DialectMessage[] = toWireMessages(paired);
  if (dialect.reasoningBack) out = out.map((m, i) => (m.tool_calls ? { ...m, reasoning_content: reasoningOf(paired[i]) } : m));
  if (dialect.systemFirst) out = [...out.filter((m) => m.role === "system"), ...out.filter((m) => m.role !== "system")];
  if (dialect.alternate) out = alternating(out);
  const opening = out.findIndex((m) => m.role !== "system");
  if (dialect.userFirst && out[opening]?.role === "assistant") out.splice(opening, 0, { role: "user", content: EMPTY_USER_TEXT });
  if (dialect.assistantAfterTools) out = out.flatMap((m, i) => (m.role === "user" && out[i - 1]?.role === "tool" ? [bridge(), m] : [m]));
  if (dialect.lastRoles && !dialect.lastRoles.includes(out.at(-1)?.role ?? "system")) out.push({ role: "user", content: EMPTY_USER_TEXT });
  return dialect.toolCallId ? withToolCallIds(out, dialect.toolCallId) : out;
}

const bridge = (): DialectMessage => ({ role: "assistant", content: TOOL_RESULTS_READ });

function reasoningOf(m: BaseMessage): string {
  const reasoning = m.additional_kwargs?.reasoning_content;
  return typeof reasoning === "string" ? reasoning : "";
}

/** Consecutive user turns, and consecutive assistant turns, as one (the later one's tool calls kept). */
function alternating(messages: DialectMessage[]): DialectMessage[] {
  const out: DialectMessage[] = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (!last || last.role !== m.role || (m.role !== "user" && m.role !== "assistant")) out.push(m);
    else out[out.length - 1] = { ...last, ...m, content: joinContent(last.content, m.content) };
  }
  return out;
}

function joinContent(a: WireMessage["content"], b: WireMessage["content"]): WireMessage["content"] {
  if (a == null || a === "") return b;
  if (b == null || b === "") return a;
  if (typeof a === "string" && typeof b === "string") return `${a}\n\n${b}`;
  const parts = (c: string | Array<Record<string, unknown>>) => (typeof c === "string" ? [{ type: "text", text: c }] : c);
  return [...parts(a), ...parts(b)];
}

/** Every tool call id (and the tool_call_id answering it) as `rename` makes it, kept distinct within the request. */
function withToolCallIds(messages: DialectMessage[], rename: (id: string) => string): DialectMessage[] {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  const idFor = (id: string): string => {
    let renamed = ids.get(id);
    if (renamed) return renamed;
    renamed = rename(id);
    for (let n = 1; taken.has(renamed); n++) renamed = rename(`${id}#${n}`);
    ids.set(id, renamed);
    taken.add(renamed);
    return renamed;
  };
  return messages.map((m) => {
    if (m.tool_calls) return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: idFor(c.id) })) };
    if (m.role === "tool" && m.tool_call_id !== undefined) return { ...m, tool_call_id: idFor(m.tool_call_id) };
    return m;
  });
}

const ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * An id of `length` letters and digits for `id`: the id itself when it already is one, else one derived from
 * it (the same id always gives the same one, so a call and its result still match).
 */
export function alphanumericId(id: string, length: number): string {
  if (id.length === length && /^[a-zA-Z0-9]+$/.test(id)) return id;
  // A 53-bit hash of the id, spread over the letters and digits.
  let n = cyrb53(id);
  let out = "";
  for (let i = 0; i < length; i++) {
    out += ALPHANUMERIC[n % 62];
    n = Math.floor(n / 62);
  }
  return out;
}
