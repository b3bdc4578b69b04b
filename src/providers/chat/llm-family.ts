// Flowise's text LLM nodes (category "LLMs") as chat models: huggingFaceInference_LLMs and
// replicate, their inputs and credentials as Flowise names them. Base URLs: HUGGINGFACE_BASE_URL
// (Hugging Face's serverless inference) unless the node names its own endpoint; REPLICATE_BASE_URL.
import { fail } from "../../errors";
import { jsonObject, num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf } from "../config";
import { sampling } from "./build";
import { completionLLMs } from "./completion-llms";
import { HuggingFaceInferenceModel } from "./huggingface";
import { apiUrl, httpUrl } from "./endpoints";
import { ReplicateModel } from "./replicate";
import type { ChatModelDefinition } from "./types";

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const huggingFaceInference: ChatModelDefinition = {
  name: "huggingFaceInference_LLMs",
  category: "LLMs",
  async build(config, deps) {
    const credential = await credentialOf(config, deps);
    const endpoint = str(config.endpoint);
    const model = str(config.model);
    if (!endpoint && !model) throw fail("INVALID_FLOW", "huggingFaceInference_LLMs needs its model input (or an endpoint)");
    const base = str(deps.env.HUGGINGFACE_BASE_URL) ?? "https://router.huggingface.co/hf-inference";
    const field = endpoint ? "huggingFaceInference_LLMs endpoint" : "HUGGINGFACE_BASE_URL";
    const url = endpoint ? httpUrl(endpoint, field) : apiUrl(base, "models", model!.split("/").map(encodeURIComponent).join("/"), field);
    return new HuggingFaceInferenceModel({
      url,
      policy: checkEndpoint(url, field, deps.env),
      apiKey: str(credential.huggingFaceApiKey),
      model: model ?? endpoint!,
      ...sampling(config),
      topK: num(config.hfTopK),
      repetitionPenalty: num(config.frequencyPenalty),
      signal: deps.signal,
    });
  },
};

export const replicate: ChatModelDefinition = {
  name: "replicate",
  category: "LLMs",
  async build(config, deps) {
    const credential = await credentialOf(config, deps);
    const model = str(config.model);
    if (!model || !/^[\w.-]+\/[\w.-]+(:[\w]+)?$/.test(model))
      throw fail("INVALID_FLOW", "replicate needs its model input as owner/name or owner/name:version");
    const additional = config.additionalInputs === undefined || config.additionalInputs === "" ? {} : jsonObject(config.additionalInputs);
    if (!additional) throw fail("INVALID_FLOW", "replicate additionalInputs must be a JSON object");
    const { timeoutMs } = sampling(config);
    const baseUrl = apiUrl(str(deps.env.REPLICATE_BASE_URL) ?? "https://api.replicate.com", "v1", "", "REPLICATE_BASE_URL");
    return new ReplicateModel({
      baseUrl,
      policy: checkEndpoint(baseUrl, "REPLICATE_BASE_URL", deps.env),
      apiKey: str(credential.replicateApiKey),
      model,
      modelRef: model,
      input: compact({
        temperature: num(config.temperature),
        max_length: num(config.maxTokens),
        top_p: num(config.topP),
        repetition_penalty: num(config.repetitionPenalty),
        ...additional,
      }),
      timeoutMs,
      signal: deps.signal,
    });
  },
};

// openAI, togetherAI, fireworks, sambanova, ollama, cohere: completion-llms.ts.
export const textLLMModels: ChatModelDefinition[] = [huggingFaceInference, replicate, ...completionLLMs];
