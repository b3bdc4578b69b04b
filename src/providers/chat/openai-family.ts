// The chat model nodes that speak the OpenAI chat completions API, each with its endpoint (URL,
// auth) and extra body fields. A model name starting with "@cf/" goes to Workers AI instead,
// whatever the node (so an exported flow runs on Cloudflare's models by renaming the model).
import { fail } from "../../errors";
import { bool, num, str } from "../../lib/inputs";
import { credentialOf, modelNameOf } from "../config";
import type { ProviderDeps } from "../types";
import { openAICompatibleModel, workersAIModel } from "./build";
import {
  type ChatEndpoint,
  type HostedApi,
  azureEndpoint,
  bearerEndpoint,
  hostedEndpoint,
  mistralEndpoint,
  ollamaEndpoint,
  openAIEndpoint,
} from "./endpoints";
import { type WireDialect, alphanumericId } from "./openai-dialect";
import type { ChatModelDefinition } from "./types";

type EndpointOf = (config: Record<string, unknown>, credential: Record<string, unknown>, deps: ProviderDeps) => ChatEndpoint;
/** The rules of its own a service holds for the model named (openai-dialect.ts); none when it has only OpenAI's. */
type DialectOf = (model: string, config: Record<string, unknown>) => WireDialect | undefined;

function openAIFamily(
  name: string,
  defaultModel: string,
  endpointOf: EndpointOf,
  extraBody?: (config: Record<string, unknown>) => Record<string, unknown>,
  aliases?: string[],
  dialectOf?: DialectOf,
): ChatModelDefinition {
  return {
    name,
    aliases,
    async build(config, deps) {
      const model = modelNameOf(config, defaultModel);
      if (model.startsWith("@cf/")) return workersAIModel(config, model, deps);
      const credential = await credentialOf(config, deps);
      const endpoint = endpointOf(config, credential, deps);
      const dialect = dialectOf?.(model, config);
      return openAICompatibleModel(config, dialect ? { ...endpoint, dialect } : endpoint, model, deps, extraBody?.(config));
    },
  };
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A hosted service's node: its endpoint from the node's input, its var or the public API (endpoints.ts hostedEndpoint). */
const hosted = (
  name: string,
  defaultModel: string,
  api: HostedApi,
  extraBody?: (config: Record<string, unknown>) => Record<string, unknown>,
  dialectOf?: DialectOf,
) =>
  openAIFamily(
    name,
    defaultModel,
    (config, credential, deps) => hostedEndpoint(name, api, config, credential, deps.env),
    extraBody,
    undefined,
    dialectOf,
  );

// Mistral refuses (as its mistral-common validator does) a tool call id that is not 9 letters and digits, a
// user turn right after a tool result, a system message after an assistant turn or a tool result, and a
// last message other than a user turn or a tool result.
const MISTRAL: WireDialect = {
  toolCallId: (id) => alphanumericId(id, 9),
  systemFirst: true,
  assistantAfterTools: true,
  lastRoles: ["user", "tool"],
};

// Perplexity: "After the (optional) system message(s), user or tool message(s) should alternate with
// assistant message(s)", and the last message is the user's.
const PERPLEXITY: WireDialect = { systemFirst: true, alternate: true, lastRoles: ["user", "tool"] };

/**
 * DeepSeek: deepseek-reasoner refuses successive user (or assistant) messages and an assistant message
 * first; in thinking mode (deepseek-reasoner, the node's thinking input, and by default every model but
 * deepseek-chat) a turn that called tools must come back with its reasoning_content.
 */
const deepSeekDialect: DialectOf = (model, config) => {
  const reasoner = model === "deepseek-reasoner";
  return { alternate: reasoner, userFirst: reasoner, reasoningBack: bool(config.thinking) || model !== "deepseek-chat" };
};

/**
 * xAI: "presencePenalty, frequencyPenalty and stop parameters are not supported by reasoning models" (docs.x.ai
 * guides/reasoning: grok-3-mini, grok-4 and its -reasoning kin, grok-code-fast), a 400 "Model … does not support
 * parameter presencePenalty."; the grok-4 non-reasoning models refuse the penalties too. Left out: nothing maps to them.
 */
const xaiDialect: DialectOf = (model) => {
  const reasoning = /^grok-(3-mini|4|code)/.test(model) && !model.includes("non-reasoning");
  if (reasoning) return { refusedFields: ["presence_penalty", "frequency_penalty", "stop"] };
  return model.startsWith("grok-4") ? { refusedFields: ["presence_penalty", "frequency_penalty"] } : undefined;
};

// Cerebras: "frequency_penalty, logit_bias, presence_penalty … will result in a 400 error" (inference-docs.cerebras.ai
// resources/openai); the node's penalty inputs are left out.
const CEREBRAS: WireDialect = { refusedFields: ["frequency_penalty", "presence_penalty"] };

// Fireworks: "Requests with max_tokens > 4096 must have stream=true": such a call is streamed and gathered.
const FIREWORKS: WireDialect = { wholeMaxTokens: 4096 };

// Flowise 3.1.4's nodes for hosted OpenAI-compatible services. The default model is the node's
// default (or placeholder, or what its LangChain class falls back to) for a flow that names none.
const hostedModels: ChatModelDefinition[] = [
  hosted(
    "chatDeepseek",
    "deepseek-chat",
    { provider: "DeepSeek", key: "deepseekApiKey", envVar: "DEEPSEEK_BASE_URL", base: "https://api.deepseek.com" },
    (config) => compact({ thinking: bool(config.thinking) ? { type: "enabled" } : undefined }),
    deepSeekDialect,
  ),
  hosted("chatOpenRouter", "openai/gpt-3.5-turbo", {
    provider: "OpenRouter",
    key: "openRouterApiKey",
    input: "basepath",
    envVar: "OPENROUTER_BASE_URL",
    base: "https://openrouter.ai/api/v1",
  }),
  {
    ...hosted("chatTogetherAI", "mistralai/Mixtral-8x7B-Instruct-v0.1", {
      provider: "TogetherAI",
      key: "togetherAIApiKey",
      envVar: "TOGETHER_BASE_URL",
      base: "https://api.together.xyz/v1",
    }),
    aliases: ["chatTogetherAI_LlamaIndex"],
  },
  hosted(
    "chatFireworks",
    "accounts/fireworks/models/llama-v3p1-8b-instruct",
    { provider: "Fireworks AI", key: "fireworksApiKey", envVar: "FIREWORKS_BASE_URL", base: "https://api.fireworks.ai/inference/v1" },
    undefined,
    () => FIREWORKS,
  ),
  hosted(
    "chatXAI",
    "grok-beta",
    { provider: "xAI", key: "xaiApiKey", envVar: "XAI_BASE_URL", base: "https://api.x.ai/v1" },
    undefined,
    xaiDialect,
  ),
  hosted(
    "chatCerebras",
    "llama3.1-8b",
    { provider: "Cerebras", key: "cerebrasApiKey", input: "basepath", envVar: "CEREBRAS_BASE_URL", base: "https://api.cerebras.ai/v1" },
    undefined,
    () => CEREBRAS,
  ),
  // Flowise's node without a basePath falls to OpenAI's URL; NVIDIA's hosted API (its placeholder) is what was meant.
  hosted("chatNvidiaNIM", "microsoft/phi-3-mini-4k-instruct", {
    provider: "NVIDIA NIM",
    key: "nvidiaNIMApiKey",
    input: "basePath",
    envVar: "NVIDIA_NIM_BASE_URL",
    base: "https://integrate.api.nvidia.com/v1",
  }),
  // A LiteLLM proxy is always the user's own: no public default.
  hosted("chatLitellm", "gpt-3.5-turbo", { provider: "LiteLLM", key: "litellmApiKey", input: "basePath" }),
  hosted("chatSambanova", "Meta-Llama-3.3-70B-Instruct", {
    provider: "SambaNova",
    key: "sambanovaApiKey",
    input: "basepath",
    brokenDefault: "htps://api.sambanova.ai/v1",
    envVar: "SAMBANOVA_BASE_URL",
    base: "https://api.sambanova.ai/v1",
  }),
  hosted(
    "chatPerplexity",
    "sonar",
    { provider: "Perplexity", key: "perplexityApiKey", envVar: "PERPLEXITY_BASE_URL", base: "https://api.perplexity.ai" },
    (config) => compact({ top_k: num(config.topK) }),
    () => PERPLEXITY,
  ),
  hosted("chatCometAPI", "gpt-5-mini", {
    provider: "CometAPI",
    key: "cometApiKey",
    envVar: "COMETAPI_BASE_URL",
    base: "https://api.cometapi.com/v1",
  }),
];

export const openAIFamilyModels: ChatModelDefinition[] = [
  // The LlamaIndex nodes take the same inputs and credentials as their LangChain twins.
  openAIFamily("chatOpenAI", "gpt-4o-mini", (config, credential, deps) => openAIEndpoint(config, credential, deps.env), undefined, [
    "chatOpenAI_LlamaIndex",
  ]),
  openAIFamily("chatOpenAICustom", "gpt-4o-mini", (config, credential, deps) =>
    openAIEndpoint(config, credential, deps.env, "chatOpenAICustom"),
  ),
  openAIFamily("chatLocalAI", "gpt-4", (config, credential) => {
    if (!str(config.basePath)) throw fail("INVALID_FLOW", "chatLocalAI needs its basePath input (e.g. http://localhost:8080/v1)");
    return bearerEndpoint(String(config.basePath).trim(), str(credential.localAIApiKey), "LocalAI", "chatLocalAI basePath");
  }),
  openAIFamily(
    "groqChat",
    "llama-3.3-70b-versatile",
    (config, credential) =>
      bearerEndpoint(str(config.basepath) ?? "https://api.groq.com/openai/v1", str(credential.groqApiKey), "Groq", "groqChat basepath"),
    undefined,
    ["chatGroq_LlamaIndex"],
  ),
  openAIFamily("azureChatOpenAI", "gpt-4o-mini", (config, credential) => azureEndpoint(config, credential), undefined, [
    "azureChatOpenAI_LlamaIndex",
  ]),
  openAIFamily(
    "chatMistralAI",
    "mistral-small-latest",
    (config, credential) => mistralEndpoint(config, credential),
    (config) =>
      compact({
        random_seed: num(config.randomSeed),
        safe_prompt: config.safeMode === true || config.safeMode === "true" ? true : undefined,
      }),
    ["chatMistral_LlamaIndex"],
    () => MISTRAL,
  ),
  openAIFamily(
    "chatOllama",
    "llama3.2",
    (config) => ollamaEndpoint(config),
    (config) => compact({ top_k: num(config.topK), seed: num(config.seed) }),
    ["chatOllama_LlamaIndex"],
  ),
  ...hostedModels,
];
