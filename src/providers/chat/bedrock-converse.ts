// Bedrock's Converse API shapes: LangChain messages → `system` and alternating user/assistant
// turns of content blocks (text, image bytes, toolUse, toolResult); tools → toolConfig; an answer
// or a stream event → LangChain's message and chunks.
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { contentText } from "./messages";
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

function userBlocks(content: unknown): Block[] {
  if (!Array.isArray(content)) return [{ text: contentText(content) }];
  const blocks: Block[] = [];
  for (const part of content as Array<Record<string, unknown> | string>) {
    if (typeof part === "string") blocks.push({ text: part });
    else if (part?.type === "text") blocks.push({ text: String(part.text ?? "") });
    else if (part?.type === "image_url") {
      // Converse takes image bytes only: a data: URL is sent, a link cannot be.
      const url = imageUrlOf(part);
      const inline = url ? dataUrl(url) : undefined;
      const format = inline ? IMAGE_FORMATS[inline.mime] : undefined;
      if (inline && format) blocks.push({ image: { format, source: { bytes: inline.data } } });
    }
  }
  return blocks.filter((b) => !("text" in b) || b.text !== "");
}

/** LangChain messages → Converse's `system` blocks and turns (same-role neighbours merged, as Converse requires). */
export function toConverseMessages(messages: BaseMessage[]): { system: Block[]; messages: Turn[] } {
  const system: Block[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const m of messages) {
    const type = m.getType();
    if (type === "system") system.push({ text: contentText(m.content) });
    else if (type === "ai") {
      const blocks: Block[] = [];
      const text = contentText(m.content);
      if (text) blocks.push({ text });
      for (const [i, c] of ((m as AIMessage).tool_calls ?? []).entries())
        blocks.push({ toolUse: { toolUseId: c.id ?? `tooluse_${i}`, name: c.name, input: c.args ?? {} } });
      push("assistant", blocks);
    } else if (type === "tool") {
      const id = (m as unknown as { tool_call_id?: string }).tool_call_id;
      push("user", [{ toolResult: { toolUseId: id, content: [{ text: contentText(m.content) }] } }]);
    } else push("user", userBlocks(m.content));
  }
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
