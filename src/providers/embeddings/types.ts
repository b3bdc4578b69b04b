import type { Embeddings } from "@langchain/core/embeddings";
import type { ProviderDeps } from "../types";

export type { ProviderDeps };

/**
 * Embeddings computed in this isolate, with no remote model to wait for (`inIsolate: true`): an
 * upsert gains nothing from writing their vectors early, so it writes them in full groups.
 */
export const inIsolate = (embeddings: object): boolean => (embeddings as { inIsolate?: unknown }).inIsolate === true;

/** One embeddings provider per Flowise node name (plus aliases). */
export interface EmbeddingsDefinition {
  name: string;
  aliases?: string[];
  build(config: Record<string, unknown>, deps: ProviderDeps): Promise<Embeddings> | Embeddings;
}
