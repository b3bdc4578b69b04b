// baiduQianfanEmbeddings: Qianfan's embedding models as LangChain's BaiduQianfanEmbeddings calls them
// through @baiducloud/qianfan — POST …/wenxinworkshop/embeddings/{endpoint} (providers/chat/qianfan.ts:
// URL and bce-auth-v1 signature) with {input: [texts]}; answered {data: [{embedding}], usage}, or
// 200 {error_code, error_msg} (→ 502). LangChain's defaults: 16 texts a call (tao-8k: 1), new lines
// stripped.
import { fail } from "../../errors";
import { bool, num, str } from "../../lib/inputs";
import type { Deadline } from "../../lib/run-control";
import { type QianfanKeys, bceSign, qianfanError, qianfanTarget } from "../chat/qianfan";
import { modelNameOf } from "../config";
import { type EmbeddingsEndpoint, HttpEmbeddings, jsonOf, postJson, vectorsOf } from "./http";
import type { EmbeddingsDefinition } from "./types";

export class BaiduQianfanEmbeddings extends HttpEmbeddings {
  constructor(
    endpoint: EmbeddingsEndpoint,
    private readonly keys: QianfanKeys,
    batchSize: number,
    stripNewLines: boolean,
  ) {
    super(endpoint, batchSize, stripNewLines);
  }

  protected async request(texts: string[], _kind: "document" | "query", deadline: Deadline): Promise<number[][]> {
    const ep = this.endpoint;
    const headers = await bceSign(ep.url, this.keys);
    const json = (await jsonOf(ep, deadline, await postJson(ep, deadline, headers, { input: texts }))) as Record<string, unknown>;
    const error = qianfanError(json ?? {});
    if (error) throw fail("MODEL_FAILED", error);
    const data = json?.data as Array<{ embedding?: unknown }> | undefined;
    return vectorsOf(ep, Array.isArray(data) ? data.map((d) => d?.embedding) : undefined, texts.length);
  }
}

/** Flowise's baiduQianfanEmbeddings: modelName (customModelName overrides), stripNewLines, batchSize, timeout. */
export const baiduQianfanEmbeddings: EmbeddingsDefinition = {
  name: "baiduQianfanEmbeddings",
  async build(config, deps) {
    const model = str(config.customModelName) ?? modelNameOf(config, "Embedding-V1");
    const { url, policy, keys } = await qianfanTarget("baiduQianfanEmbeddings", "embeddings", model, config, deps);
    const chosen = num(config.batchSize);
    if (model === "tao-8k" && chosen !== undefined && chosen !== 1)
      throw fail("INVALID_FLOW", "baiduQianfanEmbeddings: the tao-8k model takes a batchSize of 1");
    const batchSize = model === "tao-8k" ? 1 : (chosen ?? 16);
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw fail("INVALID_FLOW", "baiduQianfanEmbeddings batchSize must be a whole number ≥ 1");
    const endpoint: EmbeddingsEndpoint = {
      url,
      policy,
      provider: "Baidu Qianfan embeddings",
      apiKey: keys.secretKey,
      timeoutMs: num(config.timeout),
    };
    return new BaiduQianfanEmbeddings(endpoint, keys, batchSize, bool(config.stripNewLines, true));
  },
};
