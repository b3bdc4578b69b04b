// chatAlibabaTongyi: Alibaba's Qwen models through DashScope's native text-generation API, as
// LangChain's ChatAlibabaTongyi calls it — POST {base}/api/v1/services/aigc/text-generation/generation
// {model, parameters: {stream, temperature, result_format: "text", incremental_output when streaming},
// input: {messages: [{role, content}]}} with a Bearer key; answered {output: {text, finish_reason},
// usage: {input_tokens, output_tokens}}, streamed as server-sent events of the same shape, each
// holding the next piece (incremental_output). An error is {code, message}. DASHSCOPE_BASE_URL,
// else DashScope's China region (LangChain's default, and what Flowise's node uses).
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf, firstSet, modelNameOf } from "../config";
import type { RemoteModelFields } from "./base";
import { sampling } from "./build";
import { httpUrl } from "./endpoints";
import type { WireRequest } from "./http";
import { contentText } from "./messages";
import { NativeChatModel } from "./native";
import { type WireDialect, dialectMessages } from "./openai-dialect";
import type { ChatModelDefinition } from "./types";

const ROLES: Record<string, string> = { ai: "assistant", human: "user", system: "system" };

// DashScope and Qianfan refuse turns that do not alternate user/assistant (DashScope: "User and assistant need
// to appear alternately"; Qianfan: an odd count, user at even indexes) or hold no user turn: memory after a
// failed answer (two user turns), a greeting first or a system-only prompt would fail every call.
const TURNS: WireDialect = { systemFirst: true, alternate: true, userFirst: true, lastRoles: ["user"] };

/** `messages` as these services take them: the system texts joined (undefined if none), then turns alternating from user to user. */
export function alternatingTurns(messages: BaseMessage[]): { system?: string; turns: Array<{ role: string; content: string }> } {
  const wire = dialectMessages(messages, TURNS).map((m) => ({ role: m.role, content: contentText(m.content ?? "") }));
  const system = wire.filter((m) => m.role === "system").map((m) => m.content);
  return { system: system.length ? system.join("\n\n") : undefined, turns: wire.filter((m) => m.role !== "system") };
}

export interface TongyiFields extends RemoteModelFields {
  url: string;
  apiKey: string;
}

const usageOf = (u: unknown) => {
  const t = u as { input_tokens?: number; output_tokens?: number } | undefined;
  if (!t) return undefined;
  return {
    input_tokens: t.input_tokens ?? 0,
    output_tokens: t.output_tokens ?? 0,
    total_tokens: (t.input_tokens ?? 0) + (t.output_tokens ?? 0),
  };
};

export class TongyiChatModel extends NativeChatModel {
  readonly provider = "Alibaba Tongyi";
  readonly url: string;
  private readonly apiKey: string;

  static lc_name() {
    return "TongyiChatModel";
  }

  constructor(fields: TongyiFields) {
    super(fields);
    this.url = fields.url;
    this.apiKey = fields.apiKey;
  }

  _llmType(): string {
    return "alibaba_tongyi";
  }

  protected secrets(): string[] {
    return [this.apiKey];
  }

  protected request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    const parameters: Record<string, unknown> = { stream, result_format: "text" };
    // DashScope takes a temperature in [0, 2) ("Temperature should be in [0.0, 2.0)"): 2, OpenAI's top, is sent as 1.99.
    if (this.temperature !== undefined) parameters.temperature = Math.min(Math.max(this.temperature, 0), 1.99);
    if (this.topP !== undefined) parameters.top_p = this.topP;
    if (this.maxTokens !== undefined) parameters.max_tokens = this.maxTokens;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) parameters.stop = stop;
    if (stream) parameters.incremental_output = true;
    for (const m of messages)
      if (!ROLES[m.getType()])
        throw fail("INVALID_INPUT", `Alibaba Tongyi takes user, assistant and system messages, not ${m.getType()} ones`);
    const { system, turns } = alternatingTurns(messages);
    const wire = system === undefined ? turns : [{ role: "system", content: system }, ...turns];
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.apiKey}`,
      accept: stream ? "text/event-stream" : "application/json",
    };
    return { url: this.url, headers, body: { model: this.model, parameters, input: { messages: wire } } };
  }

  protected result(json: Record<string, unknown>): ChatResult {
    const output = json.output as { text?: unknown; finish_reason?: unknown } | undefined;
    if (!output || typeof output.text !== "string")
      throw fail("MODEL_FAILED", `Alibaba Tongyi answered without text${json.code ? `: ${json.code} ${json.message ?? ""}` : ""}`);
    const ai = new AIMessage({
      content: output.text,
      usage_metadata: usageOf(json.usage),
      response_metadata: { finish_reason: output.finish_reason, request_id: json.request_id },
    });
    return { generations: [{ text: output.text, message: ai, generationInfo: { finish_reason: output.finish_reason } }] };
  }

  protected chunks(event: Record<string, unknown>): ChatGenerationChunk[] {
    const output = event.output as { text?: unknown; finish_reason?: unknown } | undefined;
    if (!output) {
      if (event.code) throw fail("MODEL_FAILED", `Alibaba Tongyi: ${event.code} ${str(event.message) ?? ""}`.trim());
      return [];
    }
    const text = typeof output.text === "string" ? output.text : "";
    const done = output.finish_reason === "stop";
    const message = new AIMessageChunk({ content: text, ...(done ? { usage_metadata: usageOf(event.usage) } : {}) });
    return [new ChatGenerationChunk({ text, message, ...(done ? { generationInfo: { finish_reason: "stop" } } : {}) })];
  }
}

/** Flowise's chatAlibabaTongyi: modelName (qwen-turbo when empty), temperature, the AlibabaApi credential's alibabaApiKey. */
export const chatAlibabaTongyi: ChatModelDefinition = {
  name: "chatAlibabaTongyi",
  async build(config, deps) {
    const base = firstSet([deps.env.DASHSCOPE_BASE_URL, "DASHSCOPE_BASE_URL"]) ?? {
      value: "https://dashscope.aliyuncs.com",
      field: "chatAlibabaTongyi endpoint",
    };
    const url = `${httpUrl(base.value, base.field)}/api/v1/services/aigc/text-generation/generation`;
    const policy = checkEndpoint(url, base.field, deps.env);
    const apiKey = str((await credentialOf(config, deps)).alibabaApiKey);
    if (!apiKey) throw fail("MISSING_CREDENTIAL", "chatAlibabaTongyi needs an AlibabaApi credential (its alibabaApiKey)");
    return new TongyiChatModel({ url, policy, apiKey, model: modelNameOf(config, "qwen-turbo"), ...sampling(config), signal: deps.signal });
  },
};
