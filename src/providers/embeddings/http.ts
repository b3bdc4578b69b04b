// What the HTTP embeddings providers share (OpenAI-compatible, Cohere, Gemini): batches a few at a
// time in order, one deadline per call, one retry on a network failure or 5xx, failures 502 with
// the provider's message (its key scrubbed), timeouts 504. Each endpoint is under the outbound
// policy (checkEndpoint at build, endpointFetch per call).
import { Embeddings } from "@langchain/core/embeddings";
import { ApiError, fail } from "../../errors";
import { chunkBy } from "../../lib/chunk";
import { type EndpointPolicy, endpointFetch } from "../../lib/outbound";
import { redactError } from "../../lib/redact";
import { DEFAULT_TIMEOUT_MS, Deadline, RetryableProviderError, withOneRetry } from "../../lib/run-control";
import { utf8Length } from "../../lib/utf8";
import { providerErrorMessage } from "../chat/http";

/** Where a provider's calls go, and what its errors are named and scrubbed with. */
export interface EmbeddingsEndpoint {
  url: string;
  policy: EndpointPolicy;
  /** The provider's name in messages ("Cohere embeddings"). */
  provider: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** Embedding requests of one upsert in flight at once. */
const BATCHES_IN_FLIGHT = 4;

/**
 * `texts` in batches of `size` (and of `maxBytes` UTF-8 bytes at most, beyond a single text that is
 * larger), a few out at once, results in order: an upsert waits for the slowest, not their sum.
 */
export async function inBatches<T>(
  texts: string[],
  size: number,
  embed: (batch: string[]) => Promise<T[]>,
  maxBytes = Number.POSITIVE_INFINITY,
  bytesAddedPerText = 0,
): Promise<T[]> {
  const bytesOf = maxBytes === Number.POSITIVE_INFINITY ? () => 0 : (t: string) => utf8Length(t) + bytesAddedPerText;
  const batches = chunkBy(texts, size, maxBytes, bytesOf);
  const results = new Array<T[]>(batches.length);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const i = next++;
      results[i] = await embed(batches[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
  return results.flat();
}

/** One call under its own deadline, tried once more on a retryable failure; the error leaves without the key. */
export function embeddingsCall<T>(ep: EmbeddingsEndpoint, run: (deadline: Deadline) => Promise<T>): Promise<T> {
  const attempt = async () => {
    const deadline = new Deadline(ep.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    try {
      return await run(deadline);
    } catch (err) {
      // A provider may echo the key it was sent: the error carries the message without it.
      throw redactError(err instanceof ApiError ? err : deadline.failure(err, ep.provider), ep.apiKey ? [ep.apiKey] : []);
    } finally {
      deadline.done();
    }
  };
  return withOneRetry(attempt, () => false);
}

/** POSTs `body` as JSON to the endpoint (redirects checked by the policy); the response as it came. */
export async function postJson(
  ep: EmbeddingsEndpoint,
  deadline: Deadline,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  try {
    const init = { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
    return await endpointFetch(ep.url, { ...init, signal: deadline.signal }, ep.policy);
  } catch (err) {
    throw deadline.failure(err, ep.provider);
  }
}

/** A successful response's JSON; otherwise an error with the provider's message (5xx retryable). */
export async function jsonOf(ep: EmbeddingsEndpoint, deadline: Deadline, res: Response): Promise<unknown> {
  if (!res.ok) {
    const message = `${ep.provider} answered ${res.status}: ${await deadline.race(providerErrorMessage(res)).catch(() => res.statusText)}`;
    throw res.status >= 500 ? new RetryableProviderError(message) : fail("MODEL_FAILED", message);
  }
  try {
    return await deadline.race(res.json());
  } catch (err) {
    if (deadline.timedOut) throw deadline.failure(err, ep.provider);
    throw fail("MODEL_FAILED", `${ep.provider} answered something that is not JSON`);
  }
}

/** Vectors as numbers, one per input, or a 502 saying the answer was not that. */
export function vectorsOf(ep: EmbeddingsEndpoint, vectors: unknown, count: number): number[][] {
  const ok =
    Array.isArray(vectors) &&
    vectors.length === count &&
    vectors.every((v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number"));
  if (!ok) throw fail("MODEL_FAILED", `${ep.provider} answered without one embedding per input`);
  return vectors as number[][];
}

/** A provider with its own request shape: batching, retry and errors as above; `kind` says documents or a query. */
export abstract class HttpEmbeddings extends Embeddings {
  constructor(
    protected readonly endpoint: EmbeddingsEndpoint,
    private readonly batchSize: number,
    private readonly stripNewLines: boolean,
  ) {
    super({ maxRetries: 0 });
  }

  protected abstract request(texts: string[], kind: "document" | "query", deadline: Deadline): Promise<number[][]>;

  /** An empty text goes as one space, as to OpenAI: services refuse empty ones (OpenAI, OpenRouter), a space embeds as nothing much. */
  private prepare(text: string): string {
    return (this.stripNewLines ? text.replace(/\n/g, " ") : text) || " ";
  }

  embedDocuments(texts: string[]): Promise<number[][]> {
    return inBatches(
      texts.map((t) => this.prepare(t)),
      this.batchSize,
      (batch) => embeddingsCall(this.endpoint, (deadline) => this.request(batch, "document", deadline)),
    );
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await embeddingsCall(this.endpoint, (deadline) => this.request([this.prepare(text)], "query", deadline)))[0];
  }
}
