// A chat model speaking the OpenAI chat completions API over fetch: OpenAI, Azure OpenAI, Mistral,
// Ollama (its /v1 API), LM Studio, vLLM, … Streaming (server-sent events), tool calls, a deadline
// per call (504), provider failures as 502 with the provider's message, at most one retry on a
// network failure or 5xx before any token was produced, and the caller's abort signal honoured.
import type { BaseChatModelCallOptions, BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { badGateway } from "../../errors";
import { headerSecrets, redactError } from "../../lib/redact";
import type { EndpointPolicy } from "../../lib/outbound";
import { ChatModelBase, type RemoteModelFields } from "./base";
import type { ChatEndpoint } from "./endpoints";
import { sseData, streamCutShort, streamEvent } from "./http";
import { type AttemptRules, type Deadline, callWithRetry, streamWithRetry } from "../../lib/run-control";
import { providerFetch, readJson } from "./native";
import { contentText } from "./messages";

export interface OpenAICompatibleCallOptions extends BaseChatModelCallOptions {
  tools?: Array<Record<string, unknown>>;
}

export interface OpenAICompatibleFields extends RemoteModelFields {
  endpoint: ChatEndpoint;
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** Provider-specific body fields (e.g. Mistral's random_seed). */
  extraBody?: Record<string, unknown>;
}

type Usage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
type WireToolCall = { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } };

export class OpenAICompatibleChatModel extends ChatModelBase<OpenAICompatibleCallOptions> {
  readonly endpoint: ChatEndpoint;
  private readonly policy: EndpointPolicy;
  frequencyPenalty?: number;
  presencePenalty?: number;
  extraBody?: Record<string, unknown>;

  static lc_name() {
    return "OpenAICompatibleChatModel";
  }

  constructor(fields: OpenAICompatibleFields) {
    super(fields);
    this.endpoint = fields.endpoint;
    this.policy = fields.policy;
    this.frequencyPenalty = fields.frequencyPenalty;
    this.presencePenalty = fields.presencePenalty;
    this.extraBody = fields.extraBody;
  }

  _llmType(): string {
    return "openai-compatible";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<OpenAICompatibleCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, OpenAICompatibleCallOptions> {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t as never) as unknown as Record<string, unknown>), ...kwargs });
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const params: Record<string, unknown> = { model: this.model, ...this.samplingParams(options) };
    if (this.frequencyPenalty !== undefined) params.frequency_penalty = this.frequencyPenalty;
    if (this.presencePenalty !== undefined) params.presence_penalty = this.presencePenalty;
    if (options?.tools?.length) params.tools = options.tools;
    if (options?.tool_choice !== undefined) params.tool_choice = options.tool_choice;
    return { ...params, ...this.extraBody };
  }

  private body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): string {
    return JSON.stringify(this.requestBody(messages, options, stream));
  }

  /** One POST; non-2xx → 502 (retryable when 5xx), network failure → retryable 502. */
  private post(body: string, deadline: Deadline): Promise<Response> {
    const { url, headers, provider } = this.endpoint;
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
    };
    return providerFetch(url, init, deadline, provider, this.policy);
  }

  private rules(options: this["ParsedCallOptions"]): AttemptRules {
    const secrets = headerSecrets(this.endpoint.headers);
    // a provider may echo the key it was sent
    return {
      timeoutMs: this.timeoutMs,
      signal: this.signalOf(options),
      provider: this.endpoint.provider,
      scrub: (err) => redactError(err, secrets),
    };
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const body = this.body(messages, options, false);
    return callWithRetry(this.rules(options), async (deadline) =>
      this.result(await readJson(await this.post(body, deadline), deadline, this.endpoint.provider)),
    );
  }

  private result(json: Record<string, unknown>): ChatResult {
    if (json.error) throw badGateway(`${this.endpoint.provider}: ${messageOf(json.error)}`);
    const choice = (json.choices as Array<Record<string, unknown>> | undefined)?.[0];
    const message = choice?.message as { content?: unknown; tool_calls?: WireToolCall[] } | undefined;
    if (!message) throw badGateway(`${this.endpoint.provider} answered without a message`);
    const text = contentText(message.content);
    const usage = json.usage as Usage | undefined;
    const toolCalls = (message.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function?.name ?? "",
      args: parseArgs(c.function?.arguments),
      type: "tool_call" as const,
    }));
    const aiMessage = new AIMessage({
      content: text,
      tool_calls: toolCalls,
      usage_metadata: usage
        ? { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 }
        : undefined,
      response_metadata: { finish_reason: choice?.finish_reason, model: json.model },
    });
    return {
      generations: [{ text, message: aiMessage, generationInfo: { finish_reason: choice?.finish_reason } }],
      llmOutput: usage
        ? { tokenUsage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens } }
        : undefined,
    };
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const body = this.body(messages, options, true);
    yield* streamWithRetry(this.rules(options), (deadline) => this.attempt(body, deadline, runManager));
  }

  private async *attempt(body: string, deadline: Deadline, runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const res = await this.post(body, deadline);
    if (!res.body) throw badGateway(`${this.endpoint.provider} answered without a body`);
    if (!(res.headers.get("content-type") ?? "").includes("event-stream")) {
      // Some servers ignore `stream: true` and answer one JSON body.
      const result = this.result((await deadline.race(res.json())) as Record<string, unknown>);
      const text = result.generations[0].text;
      yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, tool_call_chunks: [] }) });
      if (text) await runManager?.handleLLMNewToken(text);
      return;
    }
    let complete = false; // [DONE] or a finish_reason seen: anything less is a cut-off answer
    for await (const data of sseData(res.body, () => deadline.touch(), deadline.signal)) {
      if (data.trim() === "[DONE]") {
        complete = true;
        break;
      }
      if (!data.trim()) continue; // an empty keep-alive event
      const event = streamEvent(data, this.endpoint.provider);
      if (event.error) throw badGateway(`${this.endpoint.provider}: ${messageOf(event.error)}`);
      const choice = (event.choices as Array<Record<string, unknown>> | undefined)?.[0];
      const delta = choice?.delta as { content?: unknown; tool_calls?: WireToolCall[] } | undefined;
      const text = typeof delta?.content === "string" ? delta.content : "";
      const toolCallChunks = (delta?.tool_calls ?? []).map((c) => ({
        index: c.index,
        id: c.id,
        name: c.function?.name,
        args: c.function?.arguments,
        type: "tool_call_chunk" as const,
      }));
      const usage = event.usage as Usage | undefined;
      if (choice?.finish_reason) complete = true;
      if (!text && !toolCallChunks.length && !usage && !choice?.finish_reason) continue;
      yield new ChatGenerationChunk({
        text,
        message: new AIMessageChunk({
          content: text,
          tool_call_chunks: toolCallChunks,
          usage_metadata: usage
            ? { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 }
            : undefined,
          response_metadata: choice?.finish_reason ? { finish_reason: choice.finish_reason } : {},
        }),
        generationInfo: choice?.finish_reason ? { finish_reason: choice.finish_reason } : undefined,
      });
      if (text) await runManager?.handleLLMNewToken(text);
    }
    if (!complete) throw streamCutShort(this.endpoint.provider);
  }
}

function messageOf(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return JSON.stringify(error);
}

function parseArgs(args: string | undefined): Record<string, unknown> {
  if (!args) return {};
  try {
    const parsed = JSON.parse(args);
    return parsed && typeof parsed === "object" ? parsed : { input: parsed };
  } catch {
    return { input: args };
  }
}
