// Chat model providers by Flowise node name: chatflow chat model nodes, assistants and Agentflow's
// `llmModel` + `llmModelConfig` all build through buildChatModel. Adding a provider is a module in
// this folder exporting a ChatModelDefinition (or a list) and one line in `definitions` below.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { fail } from "../../errors";
import type { ProviderDeps } from "../types";
import { chatBaiduWenxin } from "./baidu";
import { awsChatBedrock } from "./bedrock";
import { awsBedrockLLM } from "./bedrock-llm";
import { chatCloudflareWorkersAI } from "./cloudflare";
import { chatCohere } from "./cohere-chat";
import { chatHuggingFace } from "./huggingface-chat";
import { chatNemoGuardrails } from "./nemo-guardrails";
import { chatAlibabaTongyi } from "./tongyi";
import { textLLMModels } from "./llm-family";
import { nativeChatModels } from "./native-family";
import { openAIFamilyModels } from "./openai-family";
import { vertexChatModels } from "./vertex";
import { watsonxChatModels } from "./watsonx";
import type { ChatModelDefinition } from "./types";

const definitions: ChatModelDefinition[] = [
  ...openAIFamilyModels,
  chatCloudflareWorkersAI,
  ...nativeChatModels,
  awsChatBedrock,
  awsBedrockLLM,
  chatCohere,
  chatHuggingFace,
  chatNemoGuardrails,
  chatAlibabaTongyi,
  chatBaiduWenxin,
  ...textLLMModels,
  ...vertexChatModels,
  ...watsonxChatModels,
];

const byName = new Map<string, ChatModelDefinition>();
for (const def of definitions) {
  for (const n of [def.name, ...(def.aliases ?? [])]) {
    if (byName.has(n)) throw new Error(`Chat model ${n} is registered twice`);
    byName.set(n, def);
  }
}

/** Every chat model name (and alias), sorted. */
export const supportedChatModels = (): string[] => [...byName.keys()].sort();

/** The node's Flowise category ("Chat Models" or "LLMs"). */
export const chatModelCategory = (name: string): string => byName.get(name)?.category ?? "Chat Models";

export const isChatModelName = (name: string): boolean => byName.has(name);

/** Builds the named provider's model from Flowise's inputs; 400 for a name we do not have. */
export async function buildChatModel(name: string, config: Record<string, unknown>, deps: ProviderDeps): Promise<BaseChatModel> {
  const def = byName.get(name);
  if (!def) throw fail("UNKNOWN_NODE", `Unknown chat model "${name}". Supported: ${supportedChatModels().join(", ")}`);
  return def.build(config, deps);
}
