// Flowise's ibmEmbedding: watsonx.ai's POST {serviceUrl}/ml/v1/text/embeddings?version=…
// ({inputs, model_id, project_id, parameters} → results[].embedding), signed in as
// providers/ibm/watsonx.ts says.
import { num, str } from "../../lib/inputs";
import type { Deadline } from "../../lib/run-control";
import { WATSONX_PROVIDER, type WatsonxTarget, watsonxTarget, watsonxUrl } from "../ibm/watsonx";
import { HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";
import type { EmbeddingsDefinition } from "./types";

const BATCH = 100;

export class WatsonxEmbeddings extends HttpEmbeddings {
  constructor(
    private readonly target: WatsonxTarget,
    private readonly model: string,
    private readonly truncate?: number,
  ) {
    super({ url: watsonxUrl(target, "embeddings"), policy: target.policy, provider: `${WATSONX_PROVIDER} embeddings` }, BATCH, false);
  }

  protected async request(texts: string[], _kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const body = {
      inputs: texts,
      model_id: this.model,
      project_id: this.target.projectId,
      ...(this.truncate ? { parameters: { truncate_input_tokens: this.truncate } } : {}),
    };
    const parsed = (await jsonOf(ep, deadline, await postJson(ep, deadline, await this.target.auth(deadline), body))) as {
      results?: Array<{ embedding?: unknown }>;
    };
    const results = parsed?.results;
    return vectorsOf(ep, Array.isArray(results) ? results.map((r) => r?.embedding) : undefined, texts.length);
  }
}

export const ibmEmbedding: EmbeddingsDefinition = {
  name: "ibmEmbedding",
  async build(config, deps) {
    const target = await watsonxTarget(config, "ibmEmbedding", deps);
    return new WatsonxEmbeddings(target, str(config.modelName) ?? "ibm/slate-30m-english-rtrvr", num(config.truncateInputTokens));
  },
};
