// What every chat model of ours shares: the sampling fields, the per-call deadline and default
// signal, and the chat-completions request body (OpenAI's shape, which Workers AI takes too).
// A native provider (Anthropic, Gemini) extends this and writes its own body from the same fields.
import { BaseChatModel, type BaseChatModelCallOptions, type BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { EndpointPolicy } from "../../lib/outbound";
import { DEFAULT_TIMEOUT_MS, type Deadline } from "../../lib/run-control";
import { contentText, toWireMessages } from "./messages";

export interface ChatModelFields extends BaseChatModelParams {
  model: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
  /** Per call; a stream's clock restarts with every chunk. Default 60 s. */
  timeoutMs?: number;
  /** Used when a call brings no signal of its own (the run's ctx.signal). */
  signal?: AbortSignal;
}

/** A model that calls an HTTP endpoint: the outbound policy its calls go under (checkEndpoint's answer). */
export interface RemoteModelFields extends ChatModelFields {
  policy: EndpointPolicy;
  /** Headers got per attempt, under its deadline (a bearer token from a sign-in that expires: Vertex AI, watsonx). */
  auth?: (deadline: Deadline) => Promise<Record<string, string>>;
}

export abstract class ChatModelBase<O extends BaseChatModelCallOptions = BaseChatModelCallOptions> extends BaseChatModel<O> {
  readonly model: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
  timeoutMs: number;
  private readonly defaultSignal?: AbortSignal;

  constructor(fields: ChatModelFields) {
    // Retries are ours (at most one, before any token): LangChain's would repeat a streamed answer.
    super({ ...fields, maxRetries: 0 });
    this.model = fields.model;
    this.temperature = fields.temperature;
    this.maxTokens = fields.maxTokens;
    this.topP = fields.topP;
    this.stop = fields.stop;
    this.timeoutMs = fields.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.defaultSignal = fields.signal;
  }

  /**
   * Whether a call may skip LangChain's wrapper (callbacks, tracing, the model serialised for them,
   * a message per chunk merged into the whole): no handler would hear it — none on the model, none in
   * the async-local run config (the OpenAI API's usage collector puts one there), no verbose log.
   */
  get direct(): boolean {
    if (this.callbacks || this.verbose || this.disableStreaming || this.cache) return false;
    return !(AsyncLocalStorageProviderSingleton.getRunnableConfig() as { callbacks?: unknown } | undefined)?.callbacks;
  }

  /**
   * The answer's text as it streams, straight from the provider (callers check `direct` first); a
   * model that cannot stream (a text LLM) answers it as one piece, as LangChain's stream() does.
   */
  async *textStream(messages: BaseMessage[], signal: AbortSignal): AsyncGenerator<string> {
    if (this._streamResponseChunks === BaseChatModel.prototype._streamResponseChunks) {
      const text = contentText((await this.generateText(messages, signal)).content);
      if (text) yield text;
      return;
    }
    for await (const chunk of this._streamResponseChunks(messages, { signal } as this["ParsedCallOptions"])) {
      if (chunk.text) yield chunk.text;
    }
  }

  /** The whole answer, straight from the provider (callers check `direct` first). */
  async generateText(messages: BaseMessage[], signal: AbortSignal): Promise<BaseMessage> {
    const result = await this._generate(messages, { signal } as this["ParsedCallOptions"]);
    const generation = result.generations[0];
    if (!generation) throw new Error(`${this._llmType()} answered no generation`);
    return generation.message;
  }

  /** The call's signal, else the run's. */
  protected signalOf(options: this["ParsedCallOptions"]): AbortSignal | undefined {
    return options.signal ?? this.defaultSignal;
  }

  /** temperature, max_tokens, top_p and stop, as chat completions APIs name them (unset ones left out). */
  protected samplingParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const params: Record<string, unknown> = {};
    if (this.temperature !== undefined) params.temperature = this.temperature;
    if (this.maxTokens !== undefined) params.max_tokens = this.maxTokens;
    if (this.topP !== undefined) params.top_p = this.topP;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) params.stop = stop;
    return params;
  }

  /** The chat completions body: invocation params, the messages (`textOnly`: content as plain text), stream. */
  protected requestBody(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    stream: boolean,
    textOnly = false,
  ): Record<string, unknown> {
    return { ...this.invocationParams(options), messages: toWireMessages(messages, textOnly), stream };
  }
}
