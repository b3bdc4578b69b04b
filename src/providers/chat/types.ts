import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ProviderDeps } from "../types";

/** One chat model provider per Flowise node name (plus aliases): chatOpenAI, chatMistralAI, … */
export interface ChatModelDefinition {
  name: string;
  aliases?: string[];
  /** Flowise's category for the node: "Chat Models" (default) or "LLMs" (text in, text out). */
  category?: "Chat Models" | "LLMs";
  /** `config`: the node's inputs (modelName, temperature, maxTokens, basepath, …) and `credential` (an id). */
  build(config: Record<string, unknown>, deps: ProviderDeps): Promise<BaseChatModel> | BaseChatModel;
}
