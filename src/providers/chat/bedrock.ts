// awsChatBedrock: AWS Bedrock Runtime's Converse API (POST /model/{id}/converse) and ConverseStream
// (…/converse-stream, answered in AWS's binary event-stream framing), every request signed with
// SigV4 over WebCrypto. Tools go as toolConfig, answers come back as toolUse blocks.
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { fail } from "../../errors";
import { bool, num, str } from "../../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../../lib/outbound";
import { redactError } from "../../lib/redact";
import { type AttemptRules, type Deadline, callWithRetry, streamWithRetry } from "../../lib/run-control";
import { converseChunks, converseResult, converseToolChoice, toConverseMessages } from "./bedrock-converse";
import { eventStreamMessages } from "../aws/event-stream";
import { awsCredentials, bedrockBase, regionOf } from "../aws/config";
import { type AwsCredentials, signRequest } from "../aws/sigv4";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { providerFetch, readJson } from "./http";
import { sampling } from "./build";
import type { RemoteCallOptions } from "./remote";
import type { ChatModelDefinition } from "./types";

export const BEDROCK_PROVIDER = "AWS Bedrock";

export interface BedrockFields extends RemoteModelFields {
  /** https://bedrock-runtime.<region>.amazonaws.com, or the configured stand-in / VPC endpoint. */
  baseUrl: string;
  region: string;
  credentials: AwsCredentials;
  latencyOptimized?: boolean;
}

/** A Bedrock Runtime request, signed (service `bedrock`), under providerFetch's rules. */
export async function bedrockFetch(
  url: string,
  body: string,
  opts: { region: string; credentials: AwsCredentials; accept: string; policy: EndpointPolicy; provider: string },
  deadline: Deadline,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: opts.accept };
  const signed = await signRequest({
    method: "POST",
    url,
    headers,
    body,
    region: opts.region,
    service: "bedrock",
    credentials: opts.credentials,
  });
  return providerFetch(url, { method: "POST", headers: { ...headers, ...signed }, body }, deadline, opts.provider, opts.policy);
}

/** The body's chunks under `deadline` (each restarts its clock; an abort ends a waiting read). */
async function* bytesOf(body: ReadableStream<Uint8Array>, deadline: Deadline): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  const onAbort = () => reader.cancel(deadline.signal.reason).catch(() => {});
  deadline.signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (done) return;
      deadline.touch();
      yield value;
    }
  } finally {
    deadline.signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {});
  }
}

export class BedrockChatModel extends ChatModelBase<RemoteCallOptions> {
  readonly provider = BEDROCK_PROVIDER;
  readonly baseUrl: string;
  readonly region: string;
  latencyOptimized: boolean;
  private readonly credentials: AwsCredentials;
  private readonly policy: EndpointPolicy;

  static lc_name() {
    return "BedrockChatModel";
  }

  constructor(fields: BedrockFields) {
    super(fields);
    this.baseUrl = fields.baseUrl.replace(/\/+$/, "");
    this.region = fields.region;
    this.credentials = fields.credentials;
    this.policy = fields.policy;
    this.latencyOptimized = fields.latencyOptimized ?? false;
  }

  _llmType(): string {
    return "bedrock-converse";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<RemoteCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, RemoteCallOptions> {
    const wire = tools.map((t) => {
      const fn = (convertToOpenAITool(t as never) as { function: { name: string; description?: string; parameters?: unknown } }).function;
      const schema = fn.parameters ?? { type: "object", properties: {} };
      return { toolSpec: { name: fn.name, description: fn.description || fn.name, inputSchema: { json: schema } } };
    });
    return this.withConfig({ tools: wire, ...kwargs });
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const inference: Record<string, unknown> = {};
    if (this.maxTokens !== undefined) inference.maxTokens = this.maxTokens;
    if (this.temperature !== undefined) inference.temperature = this.temperature;
    if (this.topP !== undefined) inference.topP = this.topP;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) inference.stopSequences = stop;
    const params: Record<string, unknown> = { inferenceConfig: inference };
    if (options?.tools?.length) {
      const choice = converseToolChoice(options.tool_choice);
      params.toolConfig = { tools: options.tools, ...(choice ? { toolChoice: choice } : {}) };
    }
    if (this.latencyOptimized) params.performanceConfig = { latency: "optimized" };
    return params;
  }

  private url(stream: boolean): string {
    return `${this.baseUrl}/model/${encodeURIComponent(this.model)}/${stream ? "converse-stream" : "converse"}`;
  }

  private body(messages: BaseMessage[], options: this["ParsedCallOptions"]): string {
    const { system, messages: turns } = toConverseMessages(messages, Boolean(options?.tools?.length));
    return JSON.stringify({ ...this.invocationParams(options), ...(system.length ? { system } : {}), messages: turns });
  }

  private rules(options: this["ParsedCallOptions"]): AttemptRules {
    const secrets = [this.credentials.secretAccessKey, ...(this.credentials.sessionToken ? [this.credentials.sessionToken] : [])];
    return {
      timeoutMs: this.timeoutMs,
      signal: this.signalOf(options),
      provider: this.provider,
      scrub: (err) => redactError(err, secrets),
    };
  }

  private post(url: string, body: string, accept: string, deadline: Deadline): Promise<Response> {
    const opts = { region: this.region, credentials: this.credentials, accept, policy: this.policy, provider: this.provider };
    return bedrockFetch(url, body, opts, deadline);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"], _run?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const body = this.body(messages, options);
    return callWithRetry(this.rules(options), async (deadline) => {
      const res = await this.post(this.url(false), body, "application/json", deadline);
      return converseResult(await readJson(res, deadline, this.provider));
    });
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const body = this.body(messages, options);
    const attempt = async function* (this: BedrockChatModel, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
      const res = await this.post(this.url(true), body, "application/vnd.amazon.eventstream", deadline);
      if (!res.body) throw fail("MODEL_FAILED", `${this.provider} answered without a body`);
      for await (const chunk of this.events(res.body, deadline)) {
        yield chunk;
        if (chunk.text) await runManager?.handleLLMNewToken(chunk.text);
      }
    };
    yield* streamWithRetry(this.rules(options), (deadline) => attempt.call(this, deadline));
  }

  /** The stream's messages → chunks; an exception message is the provider's error, a stream without messageStop cut short. */
  private async *events(body: ReadableStream<Uint8Array>, deadline: Deadline): AsyncGenerator<ChatGenerationChunk> {
    let stopped = false;
    const messages = eventStreamMessages(bytesOf(body, deadline));
    for (;;) {
      let next: IteratorResult<{ headers: Record<string, unknown>; payload: Uint8Array }>;
      try {
        next = await messages.next();
      } catch (err) {
        if (deadline.signal.aborted) throw err;
        throw fail("MODEL_FAILED", `${this.provider} sent a broken event stream: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (next.done) break;
      const { headers, payload } = next.value;
      let event: Record<string, unknown> = {};
      try {
        event = payload.length ? (JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>) : {};
      } catch {
        throw fail("MODEL_FAILED", `${this.provider} sent an event that is not JSON`);
      }
      if (headers[":message-type"] !== "event") {
        const kind = String(headers[":exception-type"] ?? headers[":error-code"] ?? "error");
        throw fail("MODEL_FAILED", `${this.provider}: ${kind}: ${String(event.message ?? headers[":error-message"] ?? "")}`);
      }
      const type = String(headers[":event-type"] ?? "");
      if (type === "messageStop") stopped = true;
      yield* converseChunks(type, event);
    }
    if (!stopped) throw fail("MODEL_FAILED", `${this.provider}'s answer stream ended before the answer was complete (no messageStop)`);
  }
}

/** Flowise's awsChatBedrock: region, model (or a Bedrock ARN in customModel), its defaults (temperature 0.7, 200 tokens). */
export const awsChatBedrock: ChatModelDefinition = {
  name: "awsChatBedrock",
  async build(config, deps) {
    const node = "awsChatBedrock";
    const custom = str(config.customModel);
    if (custom && !custom.startsWith("arn:aws:bedrock:"))
      throw fail("INVALID_FLOW", `awsChatBedrock customModel "${custom}" is not a Bedrock ARN (arn:aws:bedrock:…)`);
    const region = regionOf(config, node);
    const base = bedrockBase(config, region, node, deps);
    const s = sampling(config);
    return new BedrockChatModel({
      baseUrl: base.value,
      policy: checkEndpoint(base.value, base.field, deps.env),
      region,
      credentials: await awsCredentials(config, deps, node),
      model: custom ?? str(config.model) ?? str(config.modelName) ?? "anthropic.claude-haiku-4-5-20251001-v1:0",
      ...s,
      temperature: s.temperature ?? 0.7,
      maxTokens: num(config.max_tokens_to_sample) ?? s.maxTokens ?? 200,
      latencyOptimized: bool(config.latencyOptimized),
      signal: deps.signal,
    });
  },
};
