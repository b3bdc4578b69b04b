// The LlamaIndex node family, reproduced over our providers (its chat models and embeddings are
// aliases in the provider registries): engines, response synthesizers, LlamaIndex vector stores.
import type { NodeDefinition } from "../../types";
import { llamaIndexAgentNodes } from "./agents";
import { chatEngineNodes } from "./chat-engines";
import { queryEngineNodes } from "./query-engines";
import { synthesizerNodes } from "./synthesizers";
import { llamaIndexStoreNodes } from "./vector-stores";

export const llamaIndexNodes: NodeDefinition[] = [
  ...chatEngineNodes,
  ...queryEngineNodes,
  ...synthesizerNodes,
  ...llamaIndexStoreNodes,
  ...llamaIndexAgentNodes,
];
