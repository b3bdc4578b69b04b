// chatAnthropic (and chatAnthropic_LlamaIndex): Anthropic's native Messages API over fetch —
// system prompt as `system`, images as base64 or URL sources, tools as `tools` with tool_use /
// tool_result blocks, streaming over server-sent events (text and input_json deltas).
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { fail } from "../../errors";
import { headerSecrets } from "../../lib/redact";
import type { RemoteModelFields } from "./base";
import { EMPTY_USER_TEXT, contentText, pairToolCalls, toolResultText } from "./messages";
import { type WireRequest, messageOf } from "./http";
import { type NativeCallOptions, NativeChatModel, dataUrl, imageUrlOf } from "./native";
import { forcedToolName, toolChoiceMode } from "./tool-choice";

export const ANTHROPIC_VERSION = "2023-06-01";
/** Anthropic requires max_tokens; LangChain's ChatAnthropic default. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 2048;

export interface AnthropicFields extends RemoteModelFields {
  /** The full …/v1/messages URL. */
  url: string;
  apiKey?: string;
  topK?: number;
  headers?: Record<string, string>;
}

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: Block[] };

/** A text block, or none for blank text (Anthropic: "text content blocks must contain non-whitespace text"). */
const textBlocks = (text: string): Block[] => (text.trim() ? [{ type: "text", text }] : []);

function userBlocks(content: unknown): Block[] {
  const blocks: Block[] = [];
  for (const part of Array.isArray(content) ? (content as Array<Record<string, unknown> | string>) : [contentText(content)]) {
    if (typeof part === "string") blocks.push(...textBlocks(part));
    else if (part?.type === "text") blocks.push(...textBlocks(String(part.text ?? "")));
    else if (part?.type === "image_url") {
      const url = imageUrlOf(part);
      const inline = url ? dataUrl(url) : undefined;
      if (inline) blocks.push({ type: "image", source: { type: "base64", media_type: inline.mime, data: inline.data } });
      else if (url) blocks.push({ type: "image", source: { type: "url", url } });
    }
  }
  return blocks.length ? blocks : textBlocks(EMPTY_USER_TEXT);
}

/** LangChain messages → Anthropic's `system` and alternating user/assistant turns. */
export function toAnthropicMessages(messages: BaseMessage[]): { system?: string; messages: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    const last = turns.at(-1);
    if (last?.role === role)
      last.content.push(...blocks); // consecutive same-role turns (tool results) merge
    else turns.push({ role, content: blocks });
  };
  for (const m of pairToolCalls(messages)) {
    const type = m.getType();
    if (type === "system") system.push(contentText(m.content));
    else if (type === "ai") {
      const blocks: Block[] = textBlocks(contentText(m.content));
      for (const [i, c] of ((m as AIMessage).tool_calls ?? []).entries())
        blocks.push({ type: "tool_use", id: c.id ?? `toolu_${i}`, name: c.name, input: c.args ?? {} });
      if (blocks.length) push("assistant", blocks); // Anthropic refuses empty text blocks: an empty turn is left out
    } else if (type === "tool") {
      const id = (m as unknown as { tool_call_id?: string }).tool_call_id;
      push("user", [{ type: "tool_result", tool_use_id: id, content: toolResultText(m.content) }]);
    } else push("user", userBlocks(m.content));
  }
  // Anthropic needs at least one message: a system prompt alone is asked with a stand-in user turn.
  if (!turns.length) push("user", textBlocks(EMPTY_USER_TEXT));
  const prompt = system.filter((s) => s.trim()).join("\n\n");
  return { system: prompt || undefined, messages: turns };
}

/** LangChain's tool_choice (a mode, a tool's name, OpenAI's or Anthropic's object) → Anthropic's. */
function toolChoice(choice: unknown): Record<string, unknown> | undefined {
  const name = forcedToolName(choice);
  if (name) return { type: "tool", name };
  const mode = toolChoiceMode(choice);
  return mode ? { type: mode === "required" ? "any" : mode } : undefined;
}

export class AnthropicChatModel extends NativeChatModel {
  readonly provider = "Anthropic";
  readonly url: string;
  topK?: number;
  private readonly apiKey?: string;
  private readonly headers: Record<string, string>;

  static lc_name() {
    return "AnthropicChatModel";
  }

  constructor(fields: AnthropicFields) {
    super(fields);
    this.url = fields.url;
    this.apiKey = fields.apiKey;
    this.topK = fields.topK;
    this.headers = fields.headers ?? {};
  }

  _llmType(): string {
    return "anthropic";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<NativeCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, NativeCallOptions> {
    const wire = tools.map((t) => {
      const fn = (convertToOpenAITool(t as never) as { function: { name: string; description?: string; parameters?: unknown } }).function;
      return { name: fn.name, description: fn.description, input_schema: fn.parameters ?? { type: "object", properties: {} } };
    });
    return this.withConfig({ tools: wire, ...kwargs });
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const params: Record<string, unknown> = { model: this.model, max_tokens: this.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
    if (this.temperature !== undefined) params.temperature = this.temperature;
    if (this.topP !== undefined) params.top_p = this.topP;
    if (this.topK !== undefined) params.top_k = this.topK;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) params.stop_sequences = stop;
    if (options?.tools?.length) params.tools = options.tools;
    const choice = toolChoice(options?.tool_choice);
    if (choice && options?.tools?.length) params.tool_choice = choice;
    return params;
  }

  /** A provider may echo the key it was sent. */
  protected secrets(): string[] {
    return [...(this.apiKey ? [this.apiKey] : []), ...headerSecrets(this.headers)];
  }

  protected request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    const { system, messages: turns } = toAnthropicMessages(messages);
    const headers: Record<string, string> = {
      "anthropic-version": ANTHROPIC_VERSION,
      accept: stream ? "text/event-stream" : "application/json",
      ...this.headers,
    };
    if (this.apiKey) headers["x-api-key"] = this.apiKey;
    return { url: this.url, headers, body: { ...this.invocationParams(options), ...(system ? { system } : {}), messages: turns, stream } };
  }

  protected result(json: Record<string, unknown>): ChatResult {
    if (json.type === "error" || json.error) throw fail("MODEL_FAILED", `Anthropic: ${messageOf(json.error)}`);
    const blocks = (json.content as Block[] | undefined) ?? [];
    const text = blocks
      .filter((b) => b.type === "text")
      .map((b) => String(b.text ?? ""))
      .join("");
    const toolCalls = blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({
        id: String(b.id),
        name: String(b.name),
        args: (b.input as Record<string, unknown>) ?? {},
        type: "tool_call" as const,
      }));
    const usage = json.usage as { input_tokens?: number; output_tokens?: number } | undefined;
    const tokens = usage
      ? {
          input_tokens: usage.input_tokens ?? 0,
          output_tokens: usage.output_tokens ?? 0,
          total_tokens: (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0),
        }
      : undefined;
    const message = new AIMessage({
      content: text,
      tool_calls: toolCalls,
      usage_metadata: tokens,
      response_metadata: { stop_reason: json.stop_reason, model: json.model },
    });
    return { generations: [{ text, message, generationInfo: { finish_reason: json.stop_reason } }] };
  }

  protected chunks(event: Record<string, unknown>, _state: Record<string, unknown>): ChatGenerationChunk[] {
    const chunk = (text: string, fields: Partial<ConstructorParameters<typeof AIMessageChunk>[0] & object> = {}) =>
      new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, tool_call_chunks: [], ...fields }) });
    switch (event.type) {
      case "error":
        throw fail("MODEL_FAILED", `Anthropic: ${messageOf(event.error)}`);
      case "content_block_start": {
        const block = event.content_block as Block | undefined;
        const index = Number(event.index ?? 0);
        if (block?.type === "tool_use")
          return [
            chunk("", { tool_call_chunks: [{ index, id: String(block.id), name: String(block.name), args: "", type: "tool_call_chunk" }] }),
          ];
        if (block?.type === "text" && block.text) return [chunk(String(block.text))];
        return [];
      }
      case "content_block_delta": {
        const delta = event.delta as Block | undefined;
        if (delta?.type === "text_delta" && delta.text) return [chunk(String(delta.text))];
        if (delta?.type === "input_json_delta" && delta.partial_json)
          return [
            chunk("", {
              tool_call_chunks: [{ index: Number(event.index ?? 0), args: String(delta.partial_json), type: "tool_call_chunk" }],
            }),
          ];
        return [];
      }
      case "message_start": {
        const usage = ((event.message as Block | undefined)?.usage ?? {}) as { input_tokens?: number };
        return usage.input_tokens
          ? [chunk("", { usage_metadata: { input_tokens: usage.input_tokens, output_tokens: 0, total_tokens: usage.input_tokens } })]
          : [];
      }
      case "message_delta": {
        const usage = (event.usage ?? {}) as { output_tokens?: number };
        const stop = (event.delta as Block | undefined)?.stop_reason;
        return [
          chunk("", {
            usage_metadata: usage.output_tokens
              ? { input_tokens: 0, output_tokens: usage.output_tokens, total_tokens: usage.output_tokens }
              : undefined,
            response_metadata: stop ? { stop_reason: stop } : {},
          }),
        ];
      }
      default:
        return []; // ping, content_block_stop, message_stop
    }
  }
}
