// The call loop every native (non-OpenAI-shaped) chat API shares: one POST per attempt under a
// Deadline, non-2xx → 502 with the provider's message (5xx and network failures retried once
// before anything was produced), a JSON answer or a server-sent-event stream. A provider module
// (Anthropic, Gemini, …) only says what to send and how to read what comes back.
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk, ChatResult } from "@langchain/core/outputs";
import { badGateway, badRequest } from "../../errors";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { ChatModelBase, type RemoteModelFields } from "./base";
import { providerErrorMessage, sseData } from "./http";
import { type Deadline, RetryableProviderError, callWithRetry, streamWithRetry } from "../../lib/run-control";

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface NativeCallOptions extends BaseChatModelCallOptions {
  tools?: Array<Record<string, unknown>>;
}

export abstract class NativeChatModel<O extends NativeCallOptions = NativeCallOptions> extends ChatModelBase<O> {
  /** Named in error messages ("Anthropic answered 401: …"). */
  abstract readonly provider: string;
  protected readonly policy: EndpointPolicy;

  constructor(fields: RemoteModelFields) {
    super(fields);
    this.policy = fields.policy;
  }

  protected abstract request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest;
  /** A whole JSON answer → the result (throw badGateway for an error body). */
  protected abstract result(json: Record<string, unknown>): ChatResult;
  /**
   * One stream event's JSON → the chunks it carries. `state` lives for one attempt (for APIs
   * that announce blocks before filling them).
   */
  protected abstract chunks(event: Record<string, unknown>, state: Record<string, unknown>): ChatGenerationChunk[];

  private post(req: WireRequest, deadline: Deadline): Promise<Response> {
    const init = { method: "POST", headers: { "content-type": "application/json", ...req.headers }, body: JSON.stringify(req.body) };
    return providerFetch(req.url, init, deadline, this.provider, this.policy);
  }

  private rules(options: this["ParsedCallOptions"]) {
    return { timeoutMs: this.timeoutMs, signal: this.signalOf(options), provider: this.provider };
  }

  async _generate(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const req = this.request(messages, options, false);
    return callWithRetry(this.rules(options), async (deadline) =>
      this.result(await readJson(await this.post(req, deadline), deadline, this.provider)),
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

  private async *attempt(req: WireRequest, deadline: Deadline, runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const res = await this.post(req, deadline);
    if (!res.body) throw badGateway(`${this.provider} answered without a body`);
    const state: Record<string, unknown> = {};
    for await (const data of sseData(res.body, () => deadline.touch(), deadline.signal)) {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(data) as Record<string, unknown>;
      } catch {
        continue; // keep-alive noise
      }
      for (const chunk of this.chunks(event, state)) {
        yield chunk;
        if (chunk.text) await runManager?.handleLLMNewToken(chunk.text);
      }
    }
  }
}

/**
 * One request under `deadline` and the outbound policy (`policy`: the URL and every redirect hop
 * checked; a refusal is its 400): non-2xx → 502 naming the provider (retryable when 5xx), network
 * failure → retryable 502. Every chat provider's request goes out here.
 */
export async function providerFetch(
  url: string,
  init: RequestInit,
  deadline: Deadline,
  provider: string,
  policy: EndpointPolicy,
): Promise<Response> {
  let res: Response;
  try {
    res = await endpointFetch(url, { ...init, signal: deadline.signal }, policy);
  } catch (err) {
    throw deadline.failure(err, provider);
  }
  if (!res.ok) {
    const message = `${provider} answered ${res.status}: ${await deadline.race(providerErrorMessage(res)).catch(() => res.statusText)}`;
    throw res.status >= 500 ? new RetryableProviderError(message) : badGateway(message);
  }
  return res;
}

/** The JSON body of a 2xx answer; a body that is not JSON → 502. */
export async function readJson<T = Record<string, unknown>>(res: Response, deadline: Deadline, provider: string): Promise<T> {
  try {
    return (await deadline.race(res.json())) as T;
  } catch (err) {
    if (deadline.timedOut || deadline.aborted) throw err;
    throw badGateway(`${provider} answered with a body that is not JSON`);
  }
}

/** `data:` URLs → {mime, base64}; undefined for anything else. */
export function dataUrl(url: string): { mime: string; data: string } | undefined {
  const m = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (!m?.[2]) return undefined;
  return { mime: m[1] ?? "application/octet-stream", data: m[3] };
}

/** The URL of a LangChain image_url content part (a string or {url}). */
export function imageUrlOf(part: Record<string, unknown>): string | undefined {
  const v = part.image_url;
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as { url?: unknown }).url === "string") return (v as { url: string }).url;
  return undefined;
}

export function messageOf(error: unknown): string {
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return JSON.stringify(error);
}

/** A configured base URL, checked (http(s) only, 400 otherwise), without trailing slashes. */
export function httpUrl(base: string, what: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw badRequest(`${what} is not a valid URL: ${base}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest(`${what} must be an http(s) URL: ${base}`);
  return base.replace(/\/+$/, "");
}

/**
 * `base` (checked) + `version/rest`, or + `rest` when the base already ends with the version
 * ("https://api.anthropic.com" and "https://api.anthropic.com/v1" both work).
 */
export function apiUrl(base: string, version: string, rest: string, what: string): string {
  const trimmed = httpUrl(base, what);
  const joined = new URL(trimmed).pathname.replace(/\/+$/, "").endsWith(`/${version}`) ? trimmed : `${trimmed}/${version}`;
  return rest ? `${joined}/${rest}` : joined;
}
