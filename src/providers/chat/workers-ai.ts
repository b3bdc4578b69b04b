// A chat model over the Workers AI binding (`env.AI.run`), with streaming: with `stream: true` the
// binding answers a ReadableStream of server-sent events (`data: {"response":"…"}` … `data: [DONE]`).
// (@langchain/cloudflare's chat model calls the REST API, not the binding.)
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { ApiError, fail } from "../../errors";
import { errorMessage } from "../../lib/error-message";
import { type ChatModelFields, ChatModelBase } from "./base";
import { chatCompletionEvents } from "./http";
import { Deadline } from "../../lib/run-control";

/** The slice of the `Ai` binding this model uses. */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

export const WORKERS_AI_MISSING = "Workers AI binding AI is not configured";

export interface WorkersAIChatFields extends ChatModelFields {
  ai: AiRunner | undefined;
}

const PROVIDER = "Workers AI";

export class WorkersAIChatModel extends ChatModelBase {
  private readonly ai: AiRunner | undefined;

  static lc_name() {
    return "WorkersAIChatModel";
  }

  constructor(fields: WorkersAIChatFields) {
    super(fields);
    this.ai = fields.ai;
  }

  _llmType(): string {
    return "workers-ai";
  }

  private binding(): AiRunner {
    if (!this.ai || typeof this.ai.run !== "function") throw fail("MISSING_CREDENTIAL", WORKERS_AI_MISSING);
    return this.ai;
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    return this.samplingParams(options);
  }

  private async call(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean, deadline: Deadline): Promise<unknown> {
    const ai = this.binding();
    try {
      return await deadline.race(ai.run(this.model, this.requestBody(messages, options, stream, true)));
    } catch (err) {
      if (deadline.timedOut || deadline.aborted) throw deadline.failure(err, PROVIDER);
      throw fail("MODEL_FAILED", `${PROVIDER} (${this.model}) failed: ${errorMessage(err)}`);
    }
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const deadline = new Deadline(this.timeoutMs, this.signalOf(options));
    try {
      const out = await this.call(messages, options, false, deadline);
      const text = textOf(out);
      if (text === undefined) throw fail("MODEL_FAILED", `${PROVIDER} (${this.model}) answered without text`);
      return { generations: [{ text, message: new AIMessage(text) }] };
    } finally {
      deadline.done();
    }
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const deadline = new Deadline(this.timeoutMs, this.signalOf(options));
    try {
      const out = await this.call(messages, options, true, deadline);
      if (!(out instanceof ReadableStream)) {
        const text = textOf(out) ?? "";
        yield new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
        if (text) await runManager?.handleLLMNewToken(text);
        return;
      }
      try {
        // Workers AI ends every stream with [DONE]: without it the answer was cut off. No fetch signal
        // governs the binding's stream: the deadline is checked between frames.
        for await (const event of chatCompletionEvents(out as ReadableStream<Uint8Array>, deadline, PROVIDER, true)) {
          const text = textOf(event, true);
          if (!text) continue;
          yield new ChatGenerationChunk({ text, message: new AIMessageChunk(text) });
          await runManager?.handleLLMNewToken(text);
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw deadline.timedOut || deadline.aborted
          ? deadline.failure(err, PROVIDER)
          : fail("MODEL_FAILED", `${PROVIDER} stream failed: ${errorMessage(err)}`);
      }
    } finally {
      deadline.done();
    }
  }
}

/** `{response}` (classic models) or OpenAI-style `choices` (newer ones), whole or as a stream delta. */
function textOf(out: unknown, delta = false): string | undefined {
  if (typeof out === "string") return out;
  if (!out || typeof out !== "object") return undefined;
  const o = out as Record<string, unknown>;
  if (typeof o.response === "string") return o.response;
  if (o.response && typeof o.response === "object") return JSON.stringify(o.response);
  const choice = (o.choices as Array<Record<string, unknown>> | undefined)?.[0];
  const msg = (delta ? choice?.delta : choice?.message) as { content?: unknown } | undefined;
  if (typeof msg?.content === "string") return msg.content;
  if (delta && typeof choice?.text === "string") return choice.text;
  return undefined;
}
