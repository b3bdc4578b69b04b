// Chat model (and text LLM) nodes: thin mappings onto the chat model registry (src/providers/chat/registry.ts),
// one node per provider name; the node's inputs are the provider's config, its credential by id.
import { buildChatModel, chatModelCategory, supportedChatModels } from "../../../providers/chat/registry";
import { markVision } from "../../core/images";
import { providerConfig } from "../../core/inputs";
import { providerDeps } from "../../core/ports";
import type { NodeDefinition } from "../types";
import { llmCacheOf } from "./caches";

export const chatModelNodes: NodeDefinition[] = supportedChatModels().map((name) => ({
  name,
  category: chatModelCategory(name),
  build: async ({ node, inputs, ctx }) => {
    const model = await buildChatModel(name, providerConfig(node, inputs), providerDeps(ctx));
    // A Cache node on the `cache` input (caches.ts): LangChain's generate reads and fills it.
    const cache = llmCacheOf(inputs.cache);
    if (cache && model && typeof model === "object") (model as { cache?: unknown }).cache = cache;
    // Allow Image Uploads: the chains and agents that take images show it the run's (core/images.ts).
    markVision(model, inputs);
    return model;
  },
}));
