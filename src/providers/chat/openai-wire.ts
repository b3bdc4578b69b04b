// What the OpenAI chat completions model (openai-compatible.ts) and the legacy text completions
// model (completions.ts) share: one endpoint (URL and headers, whose secrets are scrubbed), the
// penalty and provider-specific body fields, the request, and a streamed answer read as server-sent
// events — or as one JSON body from a server that ignores `stream: true`. Each says what the body
// holds besides the parameters and where an event's text is.
import type { BaseMessage } from "@langchain/core/messages";
import { headerSecrets } from "../../lib/redact";
import type { Deadline } from "../../lib/run-control";
import type { RemoteModelFields } from "./base";
import type { ChatEndpoint } from "./endpoints";
import { type WireRequest, chatCompletionEvents } from "./http";
import { type BodyResponse, type RemoteCallOptions, RemoteChatModel } from "./remote";

export interface OpenAIWireFields extends RemoteModelFields {
  endpoint: ChatEndpoint;
  frequencyPenalty?: number;
  presencePenalty?: number;
  /** Provider-specific body fields (e.g. Mistral's random_seed, Together's top_k). */
  extraBody?: Record<string, unknown>;
}

export abstract class OpenAIWireModel<O extends RemoteCallOptions = RemoteCallOptions> extends RemoteChatModel<O> {
  readonly endpoint: ChatEndpoint;
  readonly provider: string;
  frequencyPenalty?: number;
  presencePenalty?: number;
  extraBody?: Record<string, unknown>;

  constructor(fields: OpenAIWireFields) {
    super(fields);
    this.endpoint = fields.endpoint;
    this.provider = fields.endpoint.provider;
    this.frequencyPenalty = fields.frequencyPenalty;
    this.presencePenalty = fields.presencePenalty;
    this.extraBody = fields.extraBody;
  }

  /** The body's model, sampling and penalty fields (the provider-specific ones go last, over them). */
  protected baseParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const params: Record<string, unknown> = { model: this.model, ...this.samplingParams(options) };
    if (this.frequencyPenalty !== undefined) params.frequency_penalty = this.frequencyPenalty;
    if (this.presencePenalty !== undefined) params.presence_penalty = this.presencePenalty;
    return params;
  }

  /** The whole JSON body of one call. */
  protected abstract body(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): Record<string, unknown>;
  /** One stream event's text ("" for none); an error event throws. */
  protected abstract eventText(event: Record<string, unknown>): string;

  protected request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    const { url, headers } = this.endpoint;
    return {
      url,
      headers: { accept: "application/json, text/event-stream", ...headers },
      body: this.body(messages, options, stream),
    };
  }

  /** A provider may echo the key it was sent. */
  protected override secrets(): string[] {
    return headerSecrets(this.endpoint.headers);
  }

  /** A server that ignores `stream: true` and answers one JSON body: its text; undefined for a stream. */
  protected async wholeText(res: BodyResponse, deadline: Deadline): Promise<string | undefined> {
    if ((res.headers.get("content-type") ?? "").includes("event-stream")) return undefined;
    return this.result((await deadline.race(res.json())) as Record<string, unknown>).generations[0].text;
  }

  protected async *streamText(res: BodyResponse, deadline: Deadline): AsyncGenerator<string> {
    const whole = await this.wholeText(res, deadline);
    if (whole !== undefined) {
      if (whole) yield whole;
      return;
    }
    for await (const event of chatCompletionEvents(res.body, deadline, this.provider)) {
      const text = this.eventText(event);
      if (text) yield text;
    }
  }
}
