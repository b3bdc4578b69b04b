import type { Embeddings } from "@langchain/core/embeddings";
import type { ProviderDeps } from "../types";

export type { ProviderDeps };

/** One embeddings provider per Flowise node name (plus aliases). */
export interface EmbeddingsDefinition {
  name: string;
  aliases?: string[];
  build(config: Record<string, unknown>, deps: ProviderDeps): Promise<Embeddings> | Embeddings;
}
