// The Gemini API's embeddings (what @google/generative-ai behind @langchain/google-genai calls):
// POST {base}/v1beta/models/{model}:batchEmbedContents, key in `x-goog-api-key`, one request per
// text ({model, content: {parts: [{text}]}, taskType}), at most 100 a call; answered as
// `embeddings[].values`. A query goes the same way, as a batch of one.
import type { Deadline } from "../../lib/run-control";
import { type EmbeddingsEndpoint, HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";

const GEMINI_MAX_BATCH = 100;

export interface GeminiEmbeddingsFields {
  /** Its url is the model's :batchEmbedContents. */
  endpoint: EmbeddingsEndpoint;
  model: string;
  /** The node's Task Type (TASK_TYPE_UNSPECIFIED or unset: none sent). */
  taskType?: string;
  stripNewLines?: boolean;
}

export class GeminiEmbeddings extends HttpEmbeddings {
  constructor(private readonly fields: GeminiEmbeddingsFields) {
    super(fields.endpoint, GEMINI_MAX_BATCH, fields.stripNewLines === true);
  }

  /** Either retrieval type means retrieval: documents are embedded as documents, queries as queries. */
  private taskType(kind: "document" | "query"): string | undefined {
    const chosen = this.fields.taskType;
    if (chosen === "RETRIEVAL_DOCUMENT" || chosen === "RETRIEVAL_QUERY")
      return kind === "document" ? "RETRIEVAL_DOCUMENT" : "RETRIEVAL_QUERY";
    return chosen && chosen !== "TASK_TYPE_UNSPECIFIED" ? chosen : undefined;
  }

  protected async request(texts: string[], kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const model = `models/${this.fields.model}`;
    const taskType = this.taskType(kind);
    const requests = texts.map((text) => ({ model, content: { role: "user", parts: [{ text }] }, ...(taskType ? { taskType } : {}) }));
    const headers: Record<string, string> = ep.apiKey ? { "x-goog-api-key": ep.apiKey } : {};
    const parsed = (await jsonOf(ep, deadline, await postJson(ep, deadline, headers, { requests }))) as {
      embeddings?: Array<{ values?: unknown }>;
    };
    const embeddings = parsed?.embeddings;
    return vectorsOf(ep, Array.isArray(embeddings) ? embeddings.map((e) => e?.values) : undefined, texts.length);
  }
}
