// A text LLM speaking OpenAI's (legacy) completions API — POST <base>/completions {model, prompt,
// …sampling, stream} answering choices[0].text, streamed as server-sent events of the same shape
// ending with [DONE] — for Flowise's openAI, togetherAI, fireworks and sambanova LLM nodes. The
// messages become one prompt as for the other text LLMs (text-llm.ts promptOf). The call loop
// (deadline, one retry before any token, 502/504, the key scrubbed) is RemoteChatModel's.
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import type { Deadline } from "../../lib/run-control";
import type { ChatEndpoint } from "./endpoints";
import { chatCompletionEvents, messageOf } from "./http";
import { type OpenAIWireFields, OpenAIWireModel } from "./openai-wire";
import type { BodyResponse } from "./remote";
import { promptOf } from "./text-llm";

export interface CompletionsFields extends OpenAIWireFields {
  /** url: the whole …/completions URL. */
  endpoint: ChatEndpoint;
}

type Usage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
type Choice = { text?: unknown; finish_reason?: unknown };

export class CompletionsModel extends OpenAIWireModel {
  static lc_name() {
    return "CompletionsModel";
  }

  _llmType(): string {
    return "openai-completions";
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    return { ...this.baseParams(options), ...this.extraBody };
  }

  protected body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): Record<string, unknown> {
    return { ...this.invocationParams(options), prompt: promptOf(messages), stream };
  }

  protected eventText(event: Record<string, unknown>): string {
    const text = this.choiceOf(event)?.text;
    return typeof text === "string" ? text : "";
  }

  private choiceOf(json: Record<string, unknown>): Choice | undefined {
    if (json.error) throw fail("MODEL_FAILED", `${this.provider}: ${messageOf(json.error)}`);
    return (json.choices as Choice[] | undefined)?.[0];
  }

  protected result(json: Record<string, unknown>): ChatResult {
    const choice = this.choiceOf(json);
    if (!choice || typeof choice.text !== "string") throw fail("MODEL_FAILED", `${this.provider} answered without a completion`);
    const text = choice.text;
    const usage = json.usage as Usage | undefined;
    const message = new AIMessage({
      content: text,
      usage_metadata: usage
        ? { input_tokens: usage.prompt_tokens ?? 0, output_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 }
        : undefined,
      response_metadata: { finish_reason: choice.finish_reason, model: json.model },
    });
    return { generations: [{ text, message, generationInfo: { finish_reason: choice.finish_reason } }] };
  }

  protected async *streamChunks(res: BodyResponse, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
    const whole = await this.wholeText(res, deadline);
    if (whole !== undefined) {
      yield new ChatGenerationChunk({ text: whole, message: new AIMessageChunk({ content: whole }) });
      return;
    }
    for await (const event of chatCompletionEvents(res.body, deadline, this.provider)) {
      const choice = this.choiceOf(event);
      const text = typeof choice?.text === "string" ? choice.text : "";
      if (!text && !choice?.finish_reason) continue;
      const finish = choice?.finish_reason ? { finish_reason: choice.finish_reason } : undefined;
      yield new ChatGenerationChunk({
        text,
        message: new AIMessageChunk({ content: text, response_metadata: finish ?? {} }),
        generationInfo: finish,
      });
    }
  }
}
