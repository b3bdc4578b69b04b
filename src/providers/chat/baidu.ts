// chatBaiduWenxin: Baidu's ERNIE models on Qianfan, as LangChain's ChatBaiduQianfan calls them through
// @baiducloud/qianfan — POST …/wenxinworkshop/chat/{endpoint} (providers/chat/qianfan.ts: the URL
// and the bce-auth-v1 signature, renewed per attempt) with {messages: [{role: user|assistant,
// content}], system, stream, temperature, top_p, penalty_score, user_id}; answered {id, result,
// is_end, usage: {prompt_tokens, completion_tokens, total_tokens}}, streamed as server-sent events of
// the same shape, each holding the next piece. Errors come as 200 {error_code, error_msg} (→ 502).
import { AIMessage, AIMessageChunk, type BaseMessage, ChatMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import type { Deadline } from "../../lib/run-control";
import { type QianfanKeys, bceSign, qianfanError, qianfanTarget } from "./qianfan";
import { modelNameOf } from "../config";
import type { RemoteModelFields } from "./base";
import { sampling } from "./build";
import { type WireRequest, readJson } from "./http";
import { NativeChatModel } from "./native";
import { alternatingTurns } from "./tongyi";
import type { BodyResponse } from "./remote";
import type { ChatModelDefinition } from "./types";

export interface BaiduChatFields extends Omit<RemoteModelFields, "auth"> {
  url: string;
  keys: QianfanKeys;
  penaltyScore?: number;
  userId?: string;
}

const usageOf = (u: unknown) => {
  const t = u as { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | undefined;
  if (!t) return undefined;
  const input = t.prompt_tokens ?? 0;
  const output = t.completion_tokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: t.total_tokens ?? input + output };
};

const clamp = (v: number, min: number, max: number) => Math.min(Math.max(v, min), max);

function roleOf(m: BaseMessage): string {
  const type = m.getType();
  if (type === "ai") return "assistant";
  if (type === "human") return "user";
  if (type === "generic" && ChatMessage.isInstance(m)) return m.role;
  throw fail("INVALID_INPUT", `Baidu Wenxin takes user, assistant and system messages, not ${type} ones`);
}

export class BaiduChatModel extends NativeChatModel {
  readonly provider = "Baidu Qianfan";
  readonly url: string;
  private readonly keys: QianfanKeys;
  private readonly penaltyScore?: number;
  private readonly userId?: string;

  static lc_name() {
    return "BaiduChatModel";
  }

  constructor(fields: BaiduChatFields) {
    const keys = fields.keys;
    super({ ...fields, auth: (_deadline: Deadline) => bceSign(fields.url, keys) });
    this.url = fields.url;
    this.keys = keys;
    this.penaltyScore = fields.penaltyScore;
    this.userId = fields.userId;
  }

  _llmType(): string {
    return "baiduqianfan";
  }

  protected secrets(): string[] {
    return [this.keys.secretKey];
  }

  protected request(messages: BaseMessage[], _options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    for (const m of messages) if (m.getType() !== "system") roleOf(m); // a tool message is a 400 here
    // Qianfan takes an odd count of turns, user at even indexes and assistant at odd ones (336006).
    const { system, turns } = alternatingTurns(messages);
    const body: Record<string, unknown> = { messages: turns, stream };
    if (system !== undefined) body.system = system;
    // Qianfan's ranges: temperature (0, 1] (0 refused: the smallest step, 0.01, is sent), top_p [0, 1], penalty_score [1, 2].
    if (this.temperature !== undefined) body.temperature = clamp(this.temperature, 0.01, 1);
    if (this.topP !== undefined) body.top_p = clamp(this.topP, 0, 1);
    if (this.penaltyScore !== undefined) body.penalty_score = clamp(this.penaltyScore, 1, 2);
    if (this.userId) body.user_id = this.userId;
    return { url: this.url, headers: { accept: stream ? "text/event-stream" : "application/json" }, body };
  }

  protected result(json: Record<string, unknown>): ChatResult {
    const error = qianfanError(json);
    if (error) throw fail("MODEL_FAILED", error);
    if (typeof json.result !== "string") throw fail("MODEL_FAILED", "Baidu Qianfan answered without a result");
    const ai = new AIMessage({ content: json.result, usage_metadata: usageOf(json.usage), response_metadata: { request_id: json.id } });
    return { generations: [{ text: json.result, message: ai }] };
  }

  /** An error while streaming comes as one JSON body, not as events. */
  protected async *streamChunks(res: BodyResponse, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
    if (res.headers.get("content-type")?.includes("application/json")) {
      const json = await readJson(res, deadline, this.provider);
      throw fail("MODEL_FAILED", qianfanError(json) ?? "Baidu Qianfan answered JSON to a streamed request");
    }
    yield* super.streamChunks(res, deadline);
  }

  protected chunks(event: Record<string, unknown>): ChatGenerationChunk[] {
    const error = qianfanError(event);
    if (error) throw fail("MODEL_FAILED", error);
    const text = typeof event.result === "string" ? event.result : "";
    const done = event.is_end === true;
    const message = new AIMessageChunk({ content: text, ...(done ? { usage_metadata: usageOf(event.usage) } : {}) });
    return [new ChatGenerationChunk({ text, message, ...(done ? { generationInfo: { is_end: true, request_id: event.id } } : {}) })];
  }
}

/** Flowise's chatBaiduWenxin: modelName (customModelName overrides), temperature, topP, penaltyScore, userId. */
export const chatBaiduWenxin: ChatModelDefinition = {
  name: "chatBaiduWenxin",
  async build(config, deps) {
    const model = str(config.customModelName) ?? modelNameOf(config, "ernie-4.5-8k-preview");
    const { url, policy, keys } = await qianfanTarget("chatBaiduWenxin", "chat", model, config, deps);
    const { maxTokens: _unused, stop: _stop, ...rest } = sampling(config);
    return new BaiduChatModel({
      url,
      policy,
      keys,
      model,
      ...rest,
      penaltyScore: num(config.penaltyScore),
      userId: str(config.userId),
      signal: deps.signal,
    });
  },
};
