// AWSBedrockEmbeddings: Bedrock Runtime's InvokeModel (POST /model/{id}/invoke, SigV4-signed) as
// Flowise's node calls it: Titan models one text a call ({inputText} → {embedding}), Cohere
// models up to 96 texts a call ({texts, input_type, truncate: "END"} → {embeddings}); new lines
// become spaces for both, and Cohere's input type is the node's for documents and queries alike.
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { awsCredentials, bedrockBase, regionOf } from "../aws/config";
import type { AwsCredentials } from "../aws/sigv4";
import { bedrockFetch } from "../chat/bedrock";
import type { Deadline } from "../../lib/run-control";
import { type EmbeddingsEndpoint, HttpEmbeddings, jsonOf, vectorsOf } from "./http";
import type { EmbeddingsDefinition } from "./types";

const COHERE_MAX_BATCH = 96;

export interface BedrockEmbeddingsFields {
  /** …/model/<id>/invoke */
  endpoint: EmbeddingsEndpoint;
  model: string;
  region: string;
  credentials: AwsCredentials;
  inputType?: string;
}

export class BedrockEmbeddings extends HttpEmbeddings {
  private readonly cohere: boolean;

  constructor(private readonly fields: BedrockEmbeddingsFields) {
    super(fields.endpoint, fields.model.startsWith("cohere") ? COHERE_MAX_BATCH : 1, true);
    this.cohere = fields.model.startsWith("cohere");
  }

  protected async request(texts: string[], _kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const body = this.cohere ? { texts, input_type: this.fields.inputType, truncate: "END" } : { inputText: texts[0] };
    const opts = { region: this.fields.region, credentials: this.fields.credentials, accept: "application/json", policy: ep.policy };
    let res: Response;
    try {
      res = await bedrockFetch(ep.url, JSON.stringify(body), { ...opts, provider: ep.provider }, deadline);
    } catch (err) {
      throw deadline.failure(err, ep.provider);
    }
    const parsed = (await jsonOf(ep, deadline, res)) as { embedding?: unknown; embeddings?: unknown };
    return vectorsOf(ep, this.cohere ? parsed?.embeddings : [parsed?.embedding], texts.length);
  }
}

/** Flowise's AWSBedrockEmbeddings: region, model (customModel wins), inputType (required for Cohere models). */
export const awsBedrockEmbeddings: EmbeddingsDefinition = {
  name: "AWSBedrockEmbeddings",
  async build(config, deps) {
    const node = "AWSBedrockEmbeddings";
    const model = str(config.customModel) ?? str(config.model) ?? "amazon.titan-embed-text-v1";
    const inputType = str(config.inputType);
    if (model.startsWith("cohere") && !inputType)
      throw fail("INVALID_FLOW", "AWSBedrockEmbeddings inputType must be selected for Cohere models");
    const region = regionOf(config, node);
    const base = bedrockBase(config, region, node, deps);
    const url = `${base.value}/model/${encodeURIComponent(model)}/invoke`;
    const policy = checkEndpoint(url, base.field, deps.env);
    const credentials = await awsCredentials(config, deps, node);
    return new BedrockEmbeddings({
      endpoint: { url, policy, provider: "AWS Bedrock embeddings", apiKey: credentials.secretAccessKey, timeoutMs: num(config.timeout) },
      model,
      region,
      credentials,
      inputType,
    });
  },
};
