// Flowise's googlevertexaiEmbeddings: Vertex AI's :predict for a Google embedding model
// ({instances: [{content}]} → predictions[].embeddings.values), with a service account's bearer
// token (providers/google/). Gemini embedding models take one text a call, the others a few.
import { num, str } from "../../lib/inputs";
import type { Deadline } from "../../lib/run-control";
import { VERTEX_PROVIDER, type VertexTarget, vertexTarget } from "../google/vertex";
import { HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";
import type { EmbeddingsDefinition } from "./types";

const BATCH = 5;

export class VertexEmbeddings extends HttpEmbeddings {
  constructor(
    private readonly target: VertexTarget,
    model: string,
    stripNewLines: boolean,
    timeoutMs?: number,
  ) {
    const url = `${target.modelsUrl}/${encodeURIComponent(model)}:predict`;
    super(
      { url, policy: target.policy, provider: `${VERTEX_PROVIDER} embeddings`, timeoutMs },
      model.startsWith("gemini") ? 1 : BATCH,
      stripNewLines,
    );
  }

  protected async request(texts: string[], _kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const headers = await this.target.auth(deadline);
    const parsed = (await jsonOf(
      ep,
      deadline,
      await postJson(ep, deadline, headers, { instances: texts.map((content) => ({ content })) }),
    )) as {
      predictions?: Array<{ embeddings?: { values?: unknown } }>;
    };
    const predictions = parsed?.predictions;
    return vectorsOf(ep, Array.isArray(predictions) ? predictions.map((p) => p?.embeddings?.values) : undefined, texts.length);
  }
}

export const googleVertexAIEmbeddings: EmbeddingsDefinition = {
  name: "googlevertexaiEmbeddings",
  async build(config, deps) {
    const target = await vertexTarget(config, "googlevertexaiEmbeddings", deps);
    const model = str(config.modelName) ?? str(config.model) ?? "text-embedding-004";
    const strip = config.stripNewLines === true || config.stripNewLines === "true";
    return new VertexEmbeddings(target, model, strip, num(config.timeout));
  },
};
