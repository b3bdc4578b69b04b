// Bedrock's Converse API shapes: LangChain messages → `system` and alternating user/assistant
// turns of content blocks (text, image bytes, toolUse, toolResult); tools → toolConfig; an answer
// or a stream event → LangChain's message and chunks.
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { EMPTY_USER_TEXT, contentText, pairToolCalls, toolResultText } from "./messages";
import { dataUrl, imageUrlOf } from "./native";
import { forcedToolName, toolChoiceMode } from "./tool-choice";

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: Block[] };

const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** A text block, or none for blank text (Converse: "The text field in the ContentBlock object … is blank"). */
const textBlocks = (text: string): Block[] => (text.trim() ? [{ text }] : []);

function userBlocks(content: unknown): Block[] {
  const blocks: Block[] = [];
  for (const part of Array.isArray(content) ? (content as Array<Record<string, unknown> | string>) : [contentText(content)]) {
    if (typeof part === "string") blocks.push(...textBlocks(part));
    else if (part?.type === "text") blocks.push(...textBlocks(String(part.text ?? "")));
    else if (part?.type === "image_url") {
      // Converse takes image bytes only: a data: URL is sent, a link cannot be.
      const url = imageUrlOf(part);
      const inline = url ? dataUrl(url) : undefined;
      const format = inline ? IMAGE_FORMATS[inline.mime] : undefined;
      if (inline && format) blocks.push({ image: { format, source: { bytes: inline.data } } });
    }
  }
  return blocks.length ? blocks : textBlocks(EMPTY_USER_TEXT);
}

/**
 * LangChain messages → Converse's `system` blocks and turns (same-role neighbours merged, as Converse
 * requires). Without `tools`, tool calls and results go as text: Converse refuses toolUse / toolResult
 * blocks in a request without toolConfig (an LLM node after an agent, an agent whose tools were all rejected).
 */
export function toConverseMessages(messages: BaseMessage[], tools = true): { system: Block[]; messages: Turn[] } {
  const system: Block[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of pairToolCalls(messages)) {
    const type = m.getType();
    if (type === "system") system.push(...textBlocks(contentText(m.content)));
    else if (type === "ai") {
      const blocks: Block[] = textBlocks(contentText(m.content));
      for (const [i, c] of ((m as AIMessage).tool_calls ?? []).entries())
        blocks.push(
          tools
            ? { toolUse: { toolUseId: c.id ?? `tooluse_${i}`, name: c.name, input: c.args ?? {} } }
            : { text: `Tool call ${c.name}: ${JSON.stringify(c.args ?? {})}` },
        );
      push("assistant", blocks);
    } else if (type === "tool") {
      const { tool_call_id: id, name } = m as unknown as { tool_call_id?: string; name?: string };
      const result = toolResultText(m.content);
      push("user", [
        tools ? { toolResult: { toolUseId: id, content: [{ text: result }] } } : { text: `Tool result ${name ?? id}: ${result}` },
      ]);
    } else push("user", userBlocks(m.content));
  }
  // "A conversation must start with a user message": history opening with a greeting, or nothing but a system prompt.
  if (turns[0]?.role !== "user") turns.unshift({ role: "user", content: textBlocks(EMPTY_USER_TEXT) });
  return { system, messages: turns };
}

/** LangChain's tool_choice → Converse's toolChoice (which has no "none": left unset). */
export function converseToolChoice(choice: unknown): Block | undefined {
  const name = forcedToolName(choice);
  if (name) return { tool: { name } };
  const mode = toolChoiceMode(choice);
  return mode === "auto" ? { auto: {} } : mode === "required" ? { any: {} } : undefined;
}

const usageOf = (u: unknown) => {
  const usage = u as { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined;
  if (!usage) return undefined;
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: usage.totalTokens ?? input + output };
};

/** A Converse answer → LangChain's result. */
export function converseResult(json: Record<string, unknown>): ChatResult {
  const message = (json.output as { message?: { content?: Block[] } } | undefined)?.message;
  if (!message) throw fail("MODEL_FAILED", "AWS Bedrock answered without an output message");
  const blocks = message.content ?? [];
  const text = blocks
    .filter((b) => typeof b.text === "string")
    .map((b) => String(b.text))
    .join("");
  const toolCalls = blocks
    .filter((b) => b.toolUse)
    .map((b) => {
      const use = b.toolUse as { toolUseId: string; name: string; input?: Record<string, unknown> };
      return { id: use.toolUseId, name: use.name, args: use.input ?? {}, type: "tool_call" as const };
    });
  const ai = new AIMessage({
    content: text,
    tool_calls: toolCalls,
    usage_metadata: usageOf(json.usage),
    response_metadata: { stopReason: json.stopReason },
  });
  return { generations: [{ text, message: ai, generationInfo: { finish_reason: json.stopReason } }] };
}

const chunk = (text: string, fields: Partial<ConstructorParameters<typeof AIMessageChunk>[0] & object> = {}) =>
  new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, tool_call_chunks: [], ...fields }) });

/** One ConverseStream event (its `:event-type` and JSON payload) → the chunks it carries. */
export function converseChunks(type: string, event: Record<string, unknown>): ChatGenerationChunk[] {
  const index = Number(event.contentBlockIndex ?? 0);
  switch (type) {
    case "contentBlockStart": {
      const use = (event.start as { toolUse?: { toolUseId: string; name: string } } | undefined)?.toolUse;
      if (!use) return [];
      return [chunk("", { tool_call_chunks: [{ index, id: use.toolUseId, name: use.name, args: "", type: "tool_call_chunk" }] })];
    }
    case "contentBlockDelta": {
      const delta = (event.delta ?? {}) as { text?: string; toolUse?: { input?: string } };
      if (delta.text) return [chunk(delta.text)];
      if (delta.toolUse?.input) return [chunk("", { tool_call_chunks: [{ index, args: delta.toolUse.input, type: "tool_call_chunk" }] })];
      return [];
    }
    case "messageStop":
      return [chunk("", { response_metadata: { stopReason: event.stopReason } })];
    case "metadata": {
      const usage = usageOf(event.usage);
      return usage ? [chunk("", { usage_metadata: usage })] : [];
    }
    default:
      return []; // messageStart, contentBlockStop
  }
}
