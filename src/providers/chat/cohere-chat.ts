// chatCohere: Cohere's Chat API v2 (POST {base}/v2/chat, what @langchain/cohere's ChatCohere calls
// through cohere-ai): OpenAI-shaped messages and tools, answered as {message: {content: [{text}],
// tool_calls}}; streaming as server-sent events (content-delta, tool-call-start/-delta, message-end).
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf, firstSet, modelNameOf } from "../config";
import { sampling } from "./build";
import { apiUrl } from "./endpoints";
import type { ChatModelDefinition } from "./types";
import type { RemoteModelFields } from "./base";
import { type WireRequest, messageOf } from "./http";
import { toWireMessages } from "./messages";
import { type NativeCallOptions, NativeChatModel } from "./native";
import { forcedToolName, toolChoiceMode } from "./tool-choice";

export interface CohereChatFields extends RemoteModelFields {
  /** The full …/v2/chat URL. */
  url: string;
  apiKey?: string;
}

type Call = { id?: string; function?: { name?: string; arguments?: string } };

const usageOf = (u: unknown) => {
  const t = ((u as { tokens?: unknown; billed_units?: unknown } | undefined)?.tokens ??
    (u as { billed_units?: unknown } | undefined)?.billed_units) as { input_tokens?: number; output_tokens?: number } | undefined;
  if (!t) return undefined;
  const input = t.input_tokens ?? 0;
  const output = t.output_tokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
};

function argsOf(text: string | undefined): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text || "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    throw fail("MODEL_FAILED", `Cohere answered tool arguments that are not JSON: ${String(text).slice(0, 80)}`);
  }
}

export class CohereChatModel extends NativeChatModel {
  readonly provider = "Cohere";
  readonly url: string;
  private readonly apiKey?: string;

  static lc_name() {
    return "CohereChatModel";
  }

  constructor(fields: CohereChatFields) {
    super(fields);
    this.url = fields.url;
    this.apiKey = fields.apiKey;
  }

  _llmType(): string {
    return "cohere-chat";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<NativeCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, NativeCallOptions> {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t as never) as unknown as Record<string, unknown>), ...kwargs });
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const params: Record<string, unknown> = { model: this.model };
    if (this.temperature !== undefined) params.temperature = this.temperature;
    if (this.maxTokens !== undefined) params.max_tokens = this.maxTokens;
    if (this.topP !== undefined) params.p = this.topP;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) params.stop_sequences = stop;
    if (options?.tools?.length) params.tools = options.tools;
    // Cohere's v2 names no tool: a forced one is REQUIRED (callers that force bind just that tool).
    const choice = options?.tool_choice;
    if (options?.tools?.length && (forcedToolName(choice) || toolChoiceMode(choice) === "required")) params.tool_choice = "REQUIRED";
    return params;
  }

  protected secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  protected request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    // Cohere refuses a null content: an assistant turn that only calls tools leaves it out.
    const wire = toWireMessages(messages).map((m) => (m.content === null || m.content === "" ? { ...m, content: undefined } : m));
    const headers: Record<string, string> = { accept: stream ? "text/event-stream" : "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    return { url: this.url, headers, body: { ...this.invocationParams(options), messages: wire, stream } };
  }

  protected result(json: Record<string, unknown>): ChatResult {
    const message = json.message as { content?: Array<{ type?: string; text?: string }>; tool_calls?: Call[] } | undefined;
    if (!message) throw fail("MODEL_FAILED", "Cohere answered without a message");
    const text = (message.content ?? [])
      .filter((c) => c.type === "text")
      .map((c) => c.text ?? "")
      .join("");
    const toolCalls = (message.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${i}`,
      name: String(c.function?.name),
      args: argsOf(c.function?.arguments),
      type: "tool_call" as const,
    }));
    const ai = new AIMessage({
      content: text,
      tool_calls: toolCalls,
      usage_metadata: usageOf(json.usage),
      response_metadata: { finish_reason: json.finish_reason },
    });
    return { generations: [{ text, message: ai, generationInfo: { finish_reason: json.finish_reason } }] };
  }

  protected chunks(event: Record<string, unknown>, state: Record<string, unknown>): ChatGenerationChunk[] {
    const chunk = (text: string, fields: Partial<ConstructorParameters<typeof AIMessageChunk>[0] & object> = {}) =>
      new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, tool_call_chunks: [], ...fields }) });
    const delta = (event.delta ?? {}) as {
      message?: { content?: { text?: string }; tool_calls?: Call };
      finish_reason?: string;
      usage?: unknown;
    };
    const index = Number(event.index ?? 0);
    switch (event.type) {
      case "content-delta": {
        const text = delta.message?.content?.text;
        return text ? [chunk(text)] : [];
      }
      case "tool-call-start": {
        const call = delta.message?.tool_calls;
        state.tools = true;
        const args = call?.function?.arguments ?? "";
        return [chunk("", { tool_call_chunks: [{ index, id: call?.id, name: call?.function?.name, args, type: "tool_call_chunk" }] })];
      }
      case "tool-call-delta": {
        const args = delta.message?.tool_calls?.function?.arguments;
        return args ? [chunk("", { tool_call_chunks: [{ index, args, type: "tool_call_chunk" }] })] : [];
      }
      case "message-end":
        return [chunk("", { usage_metadata: usageOf(delta.usage), response_metadata: { finish_reason: delta.finish_reason } })];
      default:
        if (event.type === undefined && (event.message || event.error))
          throw fail("MODEL_FAILED", `Cohere: ${messageOf(event.message ?? event.error)}`);
        return []; // message-start, content-start/-end, tool-plan-delta, tool-call-end
    }
  }
}

/** A Cohere API URL: the deployment's var when set, else Cohere's own API; `field` names where it came from. */
export function cohereUrl(source: [unknown, string], node: string, version: string, rest: string): { url: string; field: string } {
  const base = firstSet(source) ?? { value: "https://api.cohere.com", field: `${node} endpoint` };
  return { url: apiUrl(base.value, version, rest, base.field), field: base.field };
}

/** Flowise's chatCohere: model, temperature, the cohereApi key; COHERE_CHAT_BASE_URL else Cohere's API. */
export const chatCohere: ChatModelDefinition = {
  name: "chatCohere",
  async build(config, deps) {
    const credential = await credentialOf(config, deps);
    const { url, field } = cohereUrl([deps.env.COHERE_CHAT_BASE_URL, "COHERE_CHAT_BASE_URL"], "chatCohere", "v2", "chat");
    return new CohereChatModel({
      url,
      policy: checkEndpoint(url, field, deps.env),
      apiKey: str(credential.cohereApiKey),
      model: modelNameOf(config, "command-r7b-12-2024"),
      ...sampling(config),
      signal: deps.signal,
    });
  },
};
