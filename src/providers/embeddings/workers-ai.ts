// Workers AI embeddings through the AI binding (the REST client in @langchain/cloudflare needs an
// account token; the binding does not). At most 100 texts per call, a deadline per call and one
// retry on a failure that is not the caller's; failures are 502, timeouts 504.
import { Embeddings } from "@langchain/core/embeddings";
import { ApiError, fail } from "../../errors";
import { DEFAULT_TIMEOUT_MS, Deadline, withOneRetry } from "../../lib/run-control";
import type { AiRunner } from "../chat/workers-ai";

export const WORKERS_AI_EMBEDDING_MODEL = "@cf/baai/bge-base-en-v1.5";
const WORKERS_AI_MAX_BATCH = 100;
const PROVIDER = "Workers AI embeddings";

export interface WorkersAIEmbeddingsFields {
  ai: AiRunner | undefined;
  model?: string;
  batchSize?: number;
  timeoutMs?: number;
}

export function isAiBound(ai: unknown): ai is AiRunner {
  return !!ai && typeof (ai as AiRunner).run === "function";
}

export class WorkersAIEmbeddings extends Embeddings {
  readonly model: string;
  readonly batchSize: number;
  private readonly ai: AiRunner;
  private readonly timeoutMs: number;

  constructor(fields: WorkersAIEmbeddingsFields) {
    super({ maxRetries: 0 });
    if (!isAiBound(fields.ai))
      throw fail(
        "MISSING_CREDENTIAL",
        "Workers AI binding AI is not configured: cloudflareWorkersAIEmbeddings needs it (use localHashEmbeddings locally)",
      );
    this.ai = fields.ai;
    this.model = fields.model ?? WORKERS_AI_EMBEDDING_MODEL;
    this.batchSize = Math.max(1, Math.min(WORKERS_AI_MAX_BATCH, fields.batchSize ?? WORKERS_AI_MAX_BATCH));
    this.timeoutMs = fields.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) out.push(...(await this.call(texts.slice(i, i + this.batchSize))));
    return out;
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await this.call([text]))[0];
  }

  private call(batch: string[]): Promise<number[][]> {
    return withOneRetry(
      () => this.attempt(batch),
      () => false,
    );
  }

  private async attempt(batch: string[]): Promise<number[][]> {
    const deadline = new Deadline(this.timeoutMs);
    try {
      const result = (await deadline.race(this.ai.run(this.model, { text: batch }))) as { data?: unknown };
      const data = result?.data;
      if (!Array.isArray(data) || data.length !== batch.length || !data.every((v) => Array.isArray(v))) {
        throw fail("MODEL_FAILED", `${PROVIDER} (${this.model}) answered without one vector per text`);
      }
      return data as number[][];
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw deadline.failure(err, `${PROVIDER} (${this.model})`);
    } finally {
      deadline.done();
    }
  }
}
