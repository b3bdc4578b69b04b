// Cohere's embed API (POST {base}/v1/embed, what the cohere-ai SDK behind @langchain/cohere calls):
// {texts, model, input_type, embedding_types: ["float"], truncate}, at most 96 texts a call;
// answered as `embeddings.float` (by type) or a plain `embeddings` list (older models).
import type { Deadline } from "../../lib/run-control";
import { type EmbeddingsEndpoint, HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";

const COHERE_MAX_BATCH = 96;

export interface CohereEmbeddingsFields {
  endpoint: EmbeddingsEndpoint;
  model: string;
  /** The node's Type: classification and clustering are used for both; search_* pick per kind. */
  inputType?: string;
}

export class CohereEmbeddings extends HttpEmbeddings {
  constructor(private readonly fields: CohereEmbeddingsFields) {
    super(fields.endpoint, COHERE_MAX_BATCH, false);
  }

  /** Retrieval is asymmetric (documents stored, queries asked), as @langchain/cohere sends it whatever the node says. */
  private inputType(kind: "document" | "query"): string {
    const chosen = this.fields.inputType;
    if (chosen === "classification" || chosen === "clustering") return chosen;
    return kind === "document" ? "search_document" : "search_query";
  }

  protected async request(texts: string[], kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const body = { texts, model: this.fields.model, input_type: this.inputType(kind), embedding_types: ["float"], truncate: "END" };
    const headers: Record<string, string> = ep.apiKey ? { Authorization: `Bearer ${ep.apiKey}` } : {};
    const parsed = (await jsonOf(ep, deadline, await postJson(ep, deadline, headers, body))) as { embeddings?: unknown };
    const embeddings = parsed?.embeddings;
    return vectorsOf(ep, Array.isArray(embeddings) ? embeddings : (embeddings as { float?: unknown } | undefined)?.float, texts.length);
  }
}
