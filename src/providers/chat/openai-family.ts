// The chat model nodes that speak the OpenAI chat completions API, each with its endpoint (URL,
// auth) and extra body fields. A model name starting with "@cf/" goes to Workers AI instead,
// whatever the node (so an exported flow runs on Cloudflare's models by renaming the model).
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { credentialOf, modelNameOf } from "../config";
import type { ProviderDeps } from "../types";
import { openAICompatibleModel, workersAIModel } from "./build";
import { type ChatEndpoint, azureEndpoint, bearerEndpoint, mistralEndpoint, ollamaEndpoint, openAIEndpoint } from "./endpoints";
import type { ChatModelDefinition } from "./types";

type EndpointOf = (config: Record<string, unknown>, credential: Record<string, unknown>, deps: ProviderDeps) => ChatEndpoint;

function openAIFamily(
  name: string,
  defaultModel: string,
  endpointOf: EndpointOf,
  extraBody?: (config: Record<string, unknown>) => Record<string, unknown>,
  aliases?: string[],
): ChatModelDefinition {
  return {
    name,
    aliases,
    async build(config, deps) {
      const model = modelNameOf(config, defaultModel);
      if (model.startsWith("@cf/")) return workersAIModel(config, model, deps);
      const credential = await credentialOf(config, deps);
      return openAICompatibleModel(config, endpointOf(config, credential, deps), model, deps, extraBody?.(config));
    },
  };
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

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
  openAIFamily("groqChat", "llama-3.3-70b-versatile", (config, credential) =>
    bearerEndpoint(str(config.basepath) ?? "https://api.groq.com/openai/v1", str(credential.groqApiKey), "Groq", "groqChat basepath"),
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
  ),
  openAIFamily(
    "chatOllama",
    "llama3.2",
    (config) => ollamaEndpoint(config),
    (config) => compact({ top_k: num(config.topK), seed: num(config.seed) }),
  ),
];
