// A chat model speaking the OpenAI chat completions API over fetch: OpenAI, Azure OpenAI, Mistral,
// Ollama (its /v1 API), LM Studio, vLLM, … Streaming (server-sent events), tool calls, a deadline
// per call (504), provider failures as 502 with the provider's message, at most one retry on a
// network failure or 5xx before any token was produced, and the caller's abort signal honoured
// (that call loop is RemoteChatModel's; this module writes the body and reads the answer).
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { fail } from "../../errors";
import type { Deadline } from "../../lib/run-control";
import { chatCompletionEvents, messageOf } from "./http";
import { contentText } from "./messages";
import { type WireDialect, dialectMessages } from "./openai-dialect";
import { type OpenAIWireFields, OpenAIWireModel } from "./openai-wire";
import type { BodyResponse, RemoteCallOptions } from "./remote";
import { forcedToolName, toolChoiceMode } from "./tool-choice";

export type OpenAICompatibleCallOptions = RemoteCallOptions;

export type OpenAICompatibleFields = OpenAIWireFields;

type Usage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
type WireToolCall = { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } };
type WireAnswer = { content?: unknown; tool_calls?: WireToolCall[]; reasoning_content?: unknown };

/**
 * The reasoning an answer (or a stream delta) came with, kept on the message: DeepSeek's thinking mode
 * refuses a later request whose tool-calling turn does not send it back (WireDialect.reasoningBack).
 */
const reasoningKwargs = (answer: WireAnswer | undefined): Record<string, unknown> =>
  typeof answer?.reasoning_content === "string" && answer.reasoning_content ? { reasoning_content: answer.reasoning_content } : {};

export class OpenAICompatibleChatModel extends OpenAIWireModel<OpenAICompatibleCallOptions> {
  /** The service's own rules for a conversation (its endpoint's, from openai-family.ts). */
  readonly dialect?: WireDialect;

  constructor(fields: OpenAICompatibleFields) {
    super(fields);
    this.dialect = fields.endpoint.dialect;
  }

  static lc_name() {
    return "OpenAICompatibleChatModel";
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
    const params = this.baseParams(options);
    if (options?.tools?.length) params.tools = options.tools;
    const forced = forcedToolName(options?.tool_choice);
    const mode = toolChoiceMode(options?.tool_choice);
    if (forced) params.tool_choice = { type: "function", function: { name: forced } };
    else if (mode) params.tool_choice = mode;
    return { ...params, ...this.extraBody };
  }

  protected body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): Record<string, unknown> {
    if (!this.dialect) return this.requestBody(messages, options, stream);
    const params = this.invocationParams(options);
    for (const field of this.dialect.refusedFields ?? []) delete params[field];
    return { ...params, messages: dialectMessages(messages, this.dialect), stream };
  }

  /** A whole answer; asked as a stream and gathered when the service refuses this max_tokens unstreamed (wholeMaxTokens). */
  override async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const cap = this.dialect?.wholeMaxTokens;
    if (cap === undefined || (this.maxTokens ?? 0) <= cap) return super._generate(messages, options, runManager);
    let whole: ChatGenerationChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) whole = whole ? whole.concat(chunk) : chunk;
    if (!whole) throw fail("MODEL_FAILED", `${this.provider} answered an empty stream`);
    return { generations: [{ text: whole.text, message: whole.message, generationInfo: whole.generationInfo }] };
  }

  protected result(json: Record<string, unknown>): ChatResult {
    if (json.error) throw fail("MODEL_FAILED", `${this.provider}: ${messageOf(json.error)}`);
    const choice = (json.choices as Array<Record<string, unknown>> | undefined)?.[0];
    const message = choice?.message as WireAnswer | undefined;
    if (!message) throw fail("MODEL_FAILED", `${this.provider} answered without a message`);
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
      additional_kwargs: reasoningKwargs(message),
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

  /** One stream event's first choice, its delta and the delta's text (an error event throws). */
  private deltaOf(event: Record<string, unknown>) {
    if (event.error) throw fail("MODEL_FAILED", `${this.provider}: ${messageOf(event.error)}`);
    const choice = (event.choices as Array<Record<string, unknown>> | undefined)?.[0];
    const delta = choice?.delta as WireAnswer | undefined;
    return { choice, delta, text: typeof delta?.content === "string" ? delta.content : "" };
  }

  protected eventText(event: Record<string, unknown>): string {
    return this.deltaOf(event).text;
  }

  protected async *streamChunks(res: BodyResponse, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
    if (!(res.headers.get("content-type") ?? "").includes("event-stream")) {
      // A server that ignores `stream: true` answers one JSON body: its tool calls too (a wholeMaxTokens call is gathered from this).
      const { text, message } = this.result((await deadline.race(res.json())) as Record<string, unknown>).generations[0];
      const calls = (message as AIMessage).tool_calls ?? [];
      const toolCallChunks = calls.map((c, index) => ({
        index,
        id: c.id,
        name: c.name,
        args: JSON.stringify(c.args),
        type: "tool_call_chunk" as const,
      }));
      yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text, tool_call_chunks: toolCallChunks }) });
      return;
    }
    for await (const event of chatCompletionEvents(res.body, deadline, this.provider)) {
      const { choice, delta, text } = this.deltaOf(event);
      const toolCallChunks = (delta?.tool_calls ?? []).map((c) => ({
        index: c.index,
        id: c.id,
        name: c.function?.name,
        args: c.function?.arguments,
        type: "tool_call_chunk" as const,
      }));
      const usage = event.usage as Usage | undefined;
      const reasoning = reasoningKwargs(delta);
      if (!text && !toolCallChunks.length && !usage && !choice?.finish_reason && !reasoning.reasoning_content) continue;
      yield new ChatGenerationChunk({
        text,
        message: new AIMessageChunk({
          content: text,
          tool_call_chunks: toolCallChunks,
          additional_kwargs: reasoning,
          usage_metadata: usage
            ? { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 }
            : undefined,
          response_metadata: choice?.finish_reason ? { finish_reason: choice.finish_reason } : {},
        }),
        generationInfo: choice?.finish_reason ? { finish_reason: choice.finish_reason } : undefined,
      });
    }
  }
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
