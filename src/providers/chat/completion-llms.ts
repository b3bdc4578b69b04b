// Flowise 3.1.4's text LLM nodes (category "LLMs") over HTTP, as chat models (text-llm.ts promptOf):
// openAI, togetherAI, fireworks and sambanova on OpenAI's completions API (completions.ts; streamed),
// ollama on Ollama's /api/generate and cohere on Cohere's /v1/generate (text-generate.ts; one answer
// per call). Where calls go: the node's base URL input where Flowise's node has one, else the var the
// same service's chat model reads, else the public API; every URL under the outbound policy (a
// refusal is a 400 naming where the URL came from).
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import type { ProviderVar } from "../../env";
import { credentialOf, firstSet, modelNameOf } from "../config";
import type { ProviderDeps } from "../types";
import { headersOf, sampling } from "./build";
import { CompletionsModel } from "./completions";
import { apiUrl, httpUrl } from "./endpoints";
import { CohereGenerateModel, OllamaGenerateModel } from "./text-generate";
import { cohereUrl } from "./cohere-chat";
import type { ChatModelDefinition } from "./types";

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** `base` (checked) + /completions, unless it already ends so. */
const completionsUrl = (base: string, field: string): string => {
  const trimmed = httpUrl(base, field);
  return /\/completions$/.test(new URL(trimmed).pathname) ? trimmed : `${trimmed}/completions`;
};

interface CompletionsService {
  node: string;
  provider: string;
  /** The credential field holding the key. */
  key: string;
  defaultModel?: string;
  envVar: ProviderVar;
  base: string;
  /** Body fields the node adds (best_of, top_k, …). */
  extra?: (config: Record<string, unknown>) => Record<string, unknown>;
}

function completionsModel(
  service: CompletionsService,
  config: Record<string, unknown>,
  credential: Record<string, unknown>,
  deps: ProviderDeps,
  sources: Array<[unknown, string]> = [],
): CompletionsModel {
  const model = str(config.modelName) ?? str(config.model) ?? service.defaultModel;
  if (!model) throw fail("INVALID_FLOW", `${service.node} needs its modelName input`);
  const base = firstSet(...sources, [deps.env[service.envVar], service.envVar]) ?? {
    value: service.base,
    field: `${service.node} endpoint`,
  };
  const url = completionsUrl(base.value, base.field);
  const key = str(credential[service.key]) ?? (service.key === "openAIApiKey" ? str(deps.env.OPENAI_API_KEY) : undefined);
  return new CompletionsModel({
    endpoint: {
      url,
      headers: { ...headersOf(config.baseOptions), ...(key ? { Authorization: `Bearer ${key}` } : {}) },
      provider: service.provider,
      field: base.field,
    },
    policy: checkEndpoint(url, base.field, deps.env),
    model,
    ...sampling(config),
    frequencyPenalty: num(config.frequencyPenalty),
    presencePenalty: num(config.presencePenalty),
    extraBody: service.extra ? compact(service.extra(config)) : undefined,
    signal: deps.signal,
  });
}

const OPENAI: CompletionsService = {
  node: "openAI",
  provider: "OpenAI completions",
  key: "openAIApiKey",
  defaultModel: "gpt-3.5-turbo-instruct",
  envVar: "OPENAI_BASE_URL",
  base: "https://api.openai.com/v1",
  extra: (config) => ({ best_of: num(config.bestOf) }),
};

// Flowise's TogetherAI class posts to Together's older /inference route; its /v1/completions takes the same fields.
const TOGETHER: CompletionsService = {
  node: "togetherAI",
  provider: "TogetherAI completions",
  key: "togetherAIApiKey",
  envVar: "TOGETHER_BASE_URL",
  base: "https://api.together.xyz/v1",
  extra: (config) => ({ top_k: num(config.topK), repetition_penalty: num(config.repeatPenalty) }),
};

const FIREWORKS: CompletionsService = {
  node: "fireworks",
  provider: "Fireworks AI completions",
  key: "fireworksApiKey",
  defaultModel: "accounts/fireworks/models/llama-v3-70b-instruct-hf",
  envVar: "FIREWORKS_BASE_URL",
  base: "https://api.fireworks.ai/inference/v1",
};

const SAMBANOVA: CompletionsService = {
  node: "sambanova",
  provider: "SambaNova completions",
  key: "sambanovaApiKey",
  defaultModel: "Meta-Llama-3.3-70B-Instruct",
  envVar: "SAMBANOVA_BASE_URL",
  base: "https://api.sambanova.ai/v1",
};

const completionsNode = (service: CompletionsService, sources?: (config: Record<string, unknown>) => Array<[unknown, string]>) =>
  ({
    name: service.node,
    category: "LLMs",
    async build(config, deps) {
      return completionsModel(service, config, await credentialOf(config, deps), deps, sources?.(config));
    },
  }) satisfies ChatModelDefinition;

export const completionLLMs: ChatModelDefinition[] = [
  // As chatOpenAI: the basepath input, else the credential's basePath, else OPENAI_BASE_URL.
  {
    name: "openAI",
    category: "LLMs",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const sources: Array<[unknown, string]> = [
        [config.basepath, "openAI basepath"],
        [credential.basePath, "openAIApi credential basePath"],
      ];
      return completionsModel(OPENAI, config, credential, deps, sources);
    },
  },
  completionsNode(TOGETHER),
  completionsNode(FIREWORKS),
  completionsNode(SAMBANOVA),
  {
    name: "ollama",
    category: "LLMs",
    build(config, deps) {
      const field = "ollama baseUrl";
      const url = apiUrl(str(config.baseUrl) ?? "http://127.0.0.1:11434", "api", "generate", field);
      return new OllamaGenerateModel({
        url,
        policy: checkEndpoint(url, field, deps.env),
        model: modelNameOf(config, "llama3"),
        ...sampling(config),
        options: compact({
          top_k: num(config.topK),
          mirostat: num(config.mirostat),
          mirostat_eta: num(config.mirostatEta),
          mirostat_tau: num(config.mirostatTau),
          num_ctx: num(config.numCtx),
          num_gpu: num(config.numGpu),
          num_thread: num(config.numThread),
          repeat_last_n: num(config.repeatLastN),
          repeat_penalty: num(config.repeatPenalty),
          tfs_z: num(config.tfsZ),
        }),
        signal: deps.signal,
      });
    },
  },
  {
    name: "cohere",
    category: "LLMs",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const { url, field } = cohereUrl([deps.env.COHERE_GENERATE_BASE_URL, "COHERE_GENERATE_BASE_URL"], "cohere", "v1", "generate");
      return new CohereGenerateModel({
        url,
        policy: checkEndpoint(url, field, deps.env),
        apiKey: str(credential.cohereApiKey),
        model: modelNameOf(config, "command"),
        ...sampling(config),
        signal: deps.signal,
      });
    },
  },
];
