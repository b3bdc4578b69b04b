// The call loop every chat model behind an HTTP API shares (OpenAI-compatible and native ones):
// one JSON POST per attempt under a Deadline and the outbound policy, non-2xx → 502 with the
// provider's message (5xx and network failures retried once before anything was produced), a JSON
// answer or a stream. A provider module only says what to send (request) and how to read what
// comes back (result, streamChunks).
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { fail } from "../../errors";
import type { EndpointPolicy } from "../../lib/outbound";
import { headerSecrets, redactError } from "../../lib/redact";
import { type AttemptRules, type Deadline, callWithRetry, streamWithRetry } from "../../lib/run-control";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { type WireRequest, postJson, readJson } from "./http";

export interface RemoteCallOptions extends BaseChatModelCallOptions {
  tools?: Array<Record<string, unknown>>;
}

/** A 2xx answer that has a body. */
export type BodyResponse = Response & { body: ReadableStream<Uint8Array> };

export abstract class RemoteChatModel<O extends RemoteCallOptions = RemoteCallOptions> extends ChatModelBase<O> {
  /** Named in error messages ("Anthropic answered 401: …"). */
  abstract readonly provider: string;
  protected readonly policy: EndpointPolicy;
  private readonly auth?: RemoteModelFields["auth"];
  private authSecrets: string[] = [];

  constructor(fields: RemoteModelFields) {
    super(fields);
    this.policy = fields.policy;
    this.auth = fields.auth;
  }

  protected abstract request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest;
  /** A whole JSON answer → the result (throw MODEL_FAILED for an error body). */
  protected abstract result(json: Record<string, unknown>): ChatResult;
  /** One attempt's streamed answer → its chunks (the caller hands each chunk's text to the run manager). */
  protected abstract streamChunks(res: BodyResponse, deadline: Deadline): AsyncGenerator<ChatGenerationChunk>;
  /**
   * One attempt's streamed answer → its text only, for `textStream` (nothing listens for chunks):
   * a provider that can read its text without making LangChain's chunk and message per token (about
   * 10 µs each) says how; the others' text is their chunks'.
   */
  protected streamText?(res: BodyResponse, deadline: Deadline): AsyncGenerator<string>;

  /**
   * The values scrubbed, with anything shaped like a credential, from every error that leaves (a
   * provider may echo the key it was sent): the provider's key and credential-named headers.
   */
  protected abstract secrets(): string[];

  private rules(options: this["ParsedCallOptions"]): AttemptRules {
    const secrets = this.secrets();
    return {
      timeoutMs: this.timeoutMs,
      signal: this.signalOf(options),
      provider: this.provider,
      scrub: (err: Error) => redactError(err, [...secrets, ...this.authSecrets]),
    };
  }

  /** `req` with the model's per-attempt auth headers, when it has a sign-in. */
  private async signed(req: WireRequest, deadline: Deadline): Promise<WireRequest> {
    if (!this.auth) return req;
    const headers = await this.auth(deadline);
    this.authSecrets = headerSecrets(headers);
    return { ...req, headers: { ...req.headers, ...headers } };
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const req = this.request(messages, options, false);
    return callWithRetry(this.rules(options), async (deadline) =>
      this.result(
        await readJson(await postJson(await this.signed(req, deadline), deadline, this.provider, this.policy), deadline, this.provider),
      ),
    );
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const req = this.request(messages, options, true);
    yield* streamWithRetry(this.rules(options), (deadline) => this.attempt(req, deadline, runManager));
  }

  async *textStream(messages: BaseMessage[], signal: AbortSignal): AsyncGenerator<string> {
    const streamText = this.streamText?.bind(this);
    if (!streamText) return yield* super.textStream(messages, signal);
    const post = this.postBody.bind(this);
    const options = { signal } as this["ParsedCallOptions"];
    const req = this.request(messages, options, true);
    yield* streamWithRetry(this.rules(options), async function* (deadline) {
      yield* streamText(await post(req, deadline), deadline);
    });
  }

  private async *attempt(req: WireRequest, deadline: Deadline, runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    for await (const chunk of this.streamChunks(await this.postBody(req, deadline), deadline)) {
      yield chunk;
      if (chunk.text) await runManager?.handleLLMNewToken(chunk.text);
    }
  }

  /** One attempt's request, answered with a body (a 2xx without one is a model failure). */
  private async postBody(req: WireRequest, deadline: Deadline): Promise<BodyResponse> {
    const res = await postJson(await this.signed(req, deadline), deadline, this.provider, this.policy);
    if (!res.body) throw fail("MODEL_FAILED", `${this.provider} answered without a body`);
    return res as BodyResponse;
  }
}
