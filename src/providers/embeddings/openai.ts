// OpenAI-compatible embeddings over fetch (OpenAI, Azure-style proxies, Ollama's /v1, LM Studio,
// vLLM…): `basepath`, credential `openAIApi`, OPENAI_BASE_URL / OPENAI_API_KEY as defaults.
// Batched (by count, and by size under OpenAI's per-request token cap), a deadline per call, one retry
// on a network failure or 5xx; failures 502, timeouts 504 (http.ts, shared with the providers of other
// shapes). Also Mistral's, Together's, Jina's, Voyage's.
// The URL is under the outbound policy's endpoint rule: refused at build (a 400 naming `field`).
import { Embeddings } from "@langchain/core/embeddings";
import { fail } from "../../errors";
import { fromBase64 } from "../../lib/crypto";
import { type EndpointEnv, checkEndpoint } from "../../lib/outbound";
import type { Deadline } from "../../lib/run-control";
import { type EmbeddingsEndpoint, embeddingsCall, inBatches, jsonOf, postJson } from "./http";
import type { Float32Embeddings } from "./types";

const PROVIDER = "OpenAI-compatible embeddings endpoint";

/**
 * OpenAI refuses a request whose inputs sum to more than 300,000 tokens (max_tokens_per_request),
 * however few they are; other services cap theirs lower (`maxRequestTokens`). A token is at least one
 * UTF-8 byte, so a batch of at most that many bytes is under the cap without a tokenizer (about a quarter
 * of it in English: a few more calls, never a 400), less a few tokens per input for what a service adds
 * to each (markers, Voyage's input_type prompt).
 */
const MAX_REQUEST_TOKENS = 300_000;
const TOKENS_ADDED_PER_INPUT = 8;

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
  /** The provider's name in messages (default: "OpenAI-compatible embeddings endpoint"). */
  provider?: string;
  /** Never ask for base64 (a provider whose base64 is not documented as OpenAI's float32s). */
  floats?: boolean;
  /** The body field that asks for base64 (default `encoding_format`; Jina's is `embedding_type`, it refuses the other). */
  base64Field?: string;
  /** Tokens summed over a request's inputs at most (default OpenAI's 300,000): Mistral's 16,384, Voyage's per model. */
  maxRequestTokens?: number;
  /** Provider-specific body fields for documents and for a query (Jina's `task`). */
  bodyFields?: Partial<Record<"document" | "query", Record<string, unknown>>>;
  /** The header carrying the key as it is (Azure's `api-key`); default `Authorization: Bearer <key>`. */
  keyHeader?: string;
  /** A query string for every call (Azure's `api-version=…`). */
  query?: string;
  /** Headers sent with every call (a node's Base Options); the key's header wins. */
  headers?: Record<string, string>;
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
  private readonly endpoint: EmbeddingsEndpoint;

  constructor(fields: OpenAIEmbeddingsFields) {
    super({ maxRetries: 0 });
    this.fields = fields;
    this.url = embeddingsUrl(fields.baseUrl, fields.field) + (fields.query ? `?${fields.query}` : "");
    const policy = checkEndpoint(this.url, fields.field, fields.env);
    this.endpoint = { url: this.url, policy, provider: fields.provider ?? PROVIDER, apiKey: fields.apiKey, timeoutMs: fields.timeoutMs };
    this.model = fields.model;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return (await this.embedVectors(texts)).map(toNumbers);
  }

  async embedDocumentsFloat32(texts: string[]): Promise<Float32Array[]> {
    return (await this.embedVectors(texts)).map((v) => (Array.isArray(v) ? Float32Array.from(v) : v));
  }

  private embedVectors(texts: string[]): Promise<Vector[]> {
    const size = Math.max(1, Math.min(2048, this.fields.batchSize ?? 512));
    const input = texts.map((t) => this.prepare(t));
    const maxBytes = this.fields.maxRequestTokens ?? MAX_REQUEST_TOKENS;
    return inBatches(input, size, (batch) => this.call(batch, "document"), maxBytes, TOKENS_ADDED_PER_INPUT);
  }

  async embedQuery(text: string): Promise<number[]> {
    return toNumbers((await this.call([this.prepare(text)], "query"))[0]);
  }

  /**
   * A text as sent: new lines as spaces unless the node keeps them. OpenAI refuses an empty string as an
   * input ("'$.input' is invalid"), failing the whole batch: an empty document (a retriever's text-less
   * hit) or question goes as one space, which it embeds.
   */
  private prepare(text: string): string {
    return (this.fields.stripNewLines === false ? text : text.replace(/\n/g, " ")) || " ";
  }

  private call(input: string[], kind: "document" | "query"): Promise<Vector[]> {
    return embeddingsCall(this.endpoint, (deadline) => this.attempt(input, kind, deadline));
  }

  private async attempt(input: string[], kind: "document" | "query", deadline: Deadline, mayBase64 = true): Promise<Vector[]> {
    const { apiKey, keyHeader } = this.fields;
    const headers: Record<string, string> = { ...this.fields.headers };
    if (apiKey) headers[keyHeader ?? "Authorization"] = keyHeader ? apiKey : `Bearer ${apiKey}`;
    const base64 = mayBase64 && !this.fields.floats && !floatsOnly.has(this.url);
    const body: Record<string, unknown> = {
      model: this.model,
      input,
      ...(base64 ? { [this.fields.base64Field ?? "encoding_format"]: "base64" } : {}),
      ...this.fields.bodyFields?.[kind],
    };
    if (this.fields.dimensions) body.dimensions = this.fields.dimensions;
    const res = await postJson(this.endpoint, deadline, headers, body);
    if (base64 && (res.status === 400 || res.status === 422)) {
      // Maybe a compatible server that does not know encoding_format: asked again for numbers. Only when
      // that works does the URL get numbers from now on — a request refused for another reason (a
      // dimensions the model lacks) fails as it is, and leaves base64 on for everyone else's requests.
      await res.body?.cancel();
      const vectors = await this.attempt(input, kind, deadline, false);
      floatsOnly.add(this.url);
      return vectors;
    }
    const parsed = (await jsonOf(this.endpoint, deadline, res)) as { data?: Array<{ embedding?: unknown; index?: number }> };
    const data = parsed?.data;
    const vectors =
      Array.isArray(data) && data.length === input.length
        ? [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => decodeEmbedding(d?.embedding))
        : [];
    if (vectors.length !== input.length || vectors.some((v) => !v))
      throw fail("MODEL_FAILED", `${this.endpoint.provider} answered without one embedding per input`);
    return vectors as Vector[];
  }
}
