// OpenAI-compatible embeddings over fetch (OpenAI, Azure-style proxies, Ollama's /v1, LM Studio,
// vLLM…): `basepath`, credential `openAIApi`, OPENAI_BASE_URL / OPENAI_API_KEY as defaults.
// Batched, a deadline per call, one retry on a network failure or 5xx; failures 502, timeouts 504.
// The URL is under the outbound policy's endpoint rule: refused at build (a 400 naming `field`).
import { Embeddings } from "@langchain/core/embeddings";
import { ApiError, fail } from "../../errors";
import { fromBase64 } from "../../lib/crypto";
import type { Float32Embeddings } from "./types";
import { type EndpointEnv, type EndpointPolicy, checkEndpoint, endpointFetch } from "../../lib/outbound";
import { redactError } from "../../lib/redact";
import { providerErrorMessage } from "../chat/http";
import { DEFAULT_TIMEOUT_MS, Deadline, RetryableProviderError, withOneRetry } from "../../lib/run-control";

const PROVIDER = "OpenAI-compatible embeddings endpoint";

export interface OpenAIEmbeddingsFields {
  baseUrl: string;
  /** Where baseUrl came from ("openAIEmbeddings basepath", "OPENAI_BASE_URL", …), for messages. */
  field: string;
  /** The outbound policy's settings (OUTBOUND_ALLOW, ENVIRONMENT). */
  env: EndpointEnv;
  apiKey?: string;
  model: string;
  dimensions?: number;
  batchSize?: number;
  stripNewLines?: boolean;
  timeoutMs?: number;
}

export function embeddingsUrl(base: string, field = "openAIEmbeddings basepath"): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw fail("INVALID_FLOW", `${field} is not a valid URL: ${base}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw fail("INVALID_FLOW", `${field} must be an http(s) URL: ${base}`);
  const trimmed = base.replace(/\/+$/, "");
  return /\/embeddings$/.test(url.pathname) ? trimmed : `${trimmed}/embeddings`;
}

/** Embedding requests of one upsert in flight at once. */
const BATCHES_IN_FLIGHT = 4;

/** Endpoints that refused encoding_format (learnt once per isolate). */
const floatsOnly = new Set<string>();

type Vector = Float32Array | number[];

/**
 * A vector as JSON numbers, or base64 of little-endian float32s (encoding_format "base64", what
 * OpenAI's own SDK asks for: about a third of the bytes, and decoded without parsing numbers).
 * Base64 is answered as float32s viewed where they were decoded (no copy), numbers as they came.
 */
function decodeEmbedding(value: unknown): Vector | undefined {
  if (Array.isArray(value)) return value as number[];
  if (typeof value !== "string") return undefined;
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(value);
  } catch {
    return undefined;
  }
  if (bytes.byteLength % 4) return undefined;
  // fromBase64 gives a fresh buffer (offset 0, so aligned for float32s).
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** A vector as an array of numbers. A counted loop, not Array.from, which walks an iterator: ~4x slower. */
function toNumbers(floats: Vector): number[] {
  if (Array.isArray(floats)) return floats;
  const out = new Array<number>(floats.length);
  for (let i = 0; i < floats.length; i++) out[i] = floats[i];
  return out;
}

export class OpenAICompatibleEmbeddings extends Embeddings implements Float32Embeddings {
  readonly url: string;
  readonly model: string;
  private readonly fields: OpenAIEmbeddingsFields;
  private readonly policy: EndpointPolicy;

  constructor(fields: OpenAIEmbeddingsFields) {
    super({ maxRetries: 0 });
    this.fields = fields;
    this.url = embeddingsUrl(fields.baseUrl, fields.field);
    this.policy = checkEndpoint(this.url, fields.field, fields.env);
    this.model = fields.model;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return (await this.embedVectors(texts)).map(toNumbers);
  }

  async embedDocumentsFloat32(texts: string[]): Promise<Float32Array[]> {
    return (await this.embedVectors(texts)).map((v) => (Array.isArray(v) ? Float32Array.from(v) : v));
  }

  /** Batches go out a few at a time (order kept): an upsert waits for the slowest, not their sum. */
  private async embedVectors(texts: string[]): Promise<Vector[]> {
    const size = Math.max(1, Math.min(2048, this.fields.batchSize ?? 512));
    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += size) batches.push(texts.slice(i, i + size));
    const results = new Array<Vector[]>(batches.length);
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const i = next++;
        results[i] = await this.call(batches[i]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
    return results.flat();
  }

  async embedQuery(text: string): Promise<number[]> {
    return toNumbers((await this.call([text]))[0]);
  }

  private call(batch: string[]): Promise<Vector[]> {
    const input = this.fields.stripNewLines === false ? batch : batch.map((t) => t.replace(/\n/g, " "));
    return withOneRetry(
      () => this.attempt(input),
      () => false,
    );
  }

  private async attempt(input: string[]): Promise<Vector[]> {
    const deadline = new Deadline(this.fields.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (this.fields.apiKey) headers.Authorization = `Bearer ${this.fields.apiKey}`;
      const base64 = !floatsOnly.has(this.url);
      const body: Record<string, unknown> = { model: this.model, input, ...(base64 ? { encoding_format: "base64" } : {}) };
      if (this.fields.dimensions) body.dimensions = this.fields.dimensions;
      let res: Response;
      try {
        res = await endpointFetch(this.url, { method: "POST", headers, body: JSON.stringify(body), signal: deadline.signal }, this.policy);
      } catch (err) {
        throw deadline.failure(err, PROVIDER);
      }
      if (base64 && (res.status === 400 || res.status === 422)) {
        // A compatible server that does not know encoding_format: floats from now on, for this URL.
        await res.body?.cancel();
        floatsOnly.add(this.url);
        return this.attempt(input);
      }
      if (!res.ok) {
        const message = `${PROVIDER} answered ${res.status}: ${await deadline.race(providerErrorMessage(res)).catch(() => res.statusText)}`;
        throw res.status >= 500 ? new RetryableProviderError(message) : fail("MODEL_FAILED", message);
      }
      let parsed: { data?: Array<{ embedding?: unknown; index?: number }> };
      try {
        parsed = (await deadline.race(res.json())) as typeof parsed;
      } catch (err) {
        if (deadline.timedOut) throw deadline.failure(err, PROVIDER);
        throw fail("MODEL_FAILED", `${PROVIDER} answered something that is not JSON`);
      }
      const data = parsed?.data;
      const vectors =
        Array.isArray(data) && data.length === input.length
          ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => decodeEmbedding(d?.embedding))
          : [];
      if (vectors.length !== input.length || vectors.some((v) => !v))
        throw fail("MODEL_FAILED", `${PROVIDER} answered without one embedding per input`);
      return vectors as Vector[];
    } catch (err) {
      // A provider may echo the key it was sent: the error carries the message without it.
      throw redactError(err instanceof ApiError ? err : deadline.failure(err, PROVIDER), this.fields.apiKey ? [this.fields.apiKey] : []);
    } finally {
      deadline.done();
    }
  }
}
