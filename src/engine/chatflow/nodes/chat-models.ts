// Chat model (and text LLM) nodes: thin mappings onto the chat model registry (src/providers/chat/registry.ts),
// one node per provider name; the node's inputs are the provider's config, its credential by id.
import { buildChatModel, chatModelCategory, supportedChatModels } from "../../../providers/chat/registry";
import { providerConfig } from "../../core/inputs";
import { providerDeps } from "../../core/ports";
import type { NodeDefinition } from "../types";

export const chatModelNodes: NodeDefinition[] = supportedChatModels().map((name) => ({
  name,
  category: chatModelCategory(name),
  build: ({ node, inputs, ctx }) => buildChatModel(name, providerConfig(node, inputs), providerDeps(ctx)),
}));
