// OpenAI-compatible embeddings over fetch (OpenAI, Azure-style proxies, Ollama's /v1, LM Studio,
// vLLM…): `basepath`, credential `openAIApi`, OPENAI_BASE_URL / OPENAI_API_KEY as defaults.
// Batched, a deadline per call, one retry on a network failure or 5xx; failures 502, timeouts 504.
import { Embeddings } from "@langchain/core/embeddings";
import { ApiError, badGateway, badRequest } from "../../errors";
import { redactError } from "../../lib/redact";
import { DEFAULT_TIMEOUT_MS, Deadline, RetryableProviderError, providerErrorMessage, withOneRetry } from "../chat/http";

const PROVIDER = "OpenAI-compatible embeddings endpoint";

export interface OpenAIEmbeddingsFields {
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  batchSize?: number;
  stripNewLines?: boolean;
  timeoutMs?: number;
}

export function embeddingsUrl(base: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw badRequest(`openAIEmbeddings basepath is not a valid URL: ${base}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest(`openAIEmbeddings basepath must be an http(s) URL: ${base}`);
  const trimmed = base.replace(/\/+$/, "");
  return /\/embeddings$/.test(url.pathname) ? trimmed : `${trimmed}/embeddings`;
}

export class OpenAICompatibleEmbeddings extends Embeddings {
  readonly url: string;
  readonly model: string;
  private readonly fields: OpenAIEmbeddingsFields;

  constructor(fields: OpenAIEmbeddingsFields) {
    super({ maxRetries: 0 });
    this.fields = fields;
    this.url = embeddingsUrl(fields.baseUrl);
    this.model = fields.model;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const size = Math.max(1, Math.min(2048, this.fields.batchSize ?? 512));
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.call(texts.slice(i, i + size))));
    return out;
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await this.call([text]))[0];
  }

  private call(batch: string[]): Promise<number[][]> {
    const input = this.fields.stripNewLines === false ? batch : batch.map((t) => t.replace(/\n/g, " "));
    return withOneRetry(() => this.attempt(input), () => false);
  }

  private async attempt(input: string[]): Promise<number[][]> {
    const deadline = new Deadline(this.fields.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (this.fields.apiKey) headers.Authorization = `Bearer ${this.fields.apiKey}`;
      const body: Record<string, unknown> = { model: this.model, input };
      if (this.fields.dimensions) body.dimensions = this.fields.dimensions;
      let res: Response;
      try {
        res = await fetch(this.url, { method: "POST", headers, body: JSON.stringify(body), signal: deadline.signal });
      } catch (err) {
        throw deadline.failure(err, PROVIDER);
      }
      if (!res.ok) {
        const message = `${PROVIDER} answered ${res.status}: ${await deadline.race(providerErrorMessage(res)).catch(() => res.statusText)}`;
        throw res.status >= 500 ? new RetryableProviderError(message) : badGateway(message);
      }
      let parsed: { data?: Array<{ embedding?: unknown; index?: number }> };
      try {
        parsed = (await deadline.race(res.json())) as typeof parsed;
      } catch (err) {
        if (deadline.timedOut) throw deadline.failure(err, PROVIDER);
        throw badGateway(`${PROVIDER} answered something that is not JSON`);
      }
      const data = parsed?.data;
      if (!Array.isArray(data) || data.length !== input.length || !data.every((d) => Array.isArray(d?.embedding))) {
        throw badGateway(`${PROVIDER} answered without one embedding per input`);
      }
      return [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding as number[]);
    } catch (err) {
      // A provider may echo the key it was sent: the error carries the message without it.
      throw redactError(err instanceof ApiError ? err : deadline.failure(err, PROVIDER), this.fields.apiKey ? [this.fields.apiKey] : []);
    } finally {
      deadline.done();
    }
  }
}
