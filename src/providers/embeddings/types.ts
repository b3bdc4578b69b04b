import type { Embeddings } from "@langchain/core/embeddings";
import type { ProviderDeps } from "../types";

export type { ProviderDeps };

/**
 * Embeddings computed in this isolate, with no remote model to wait for (`inIsolate: true`): an
 * upsert gains nothing from writing their vectors early, so it writes them in full groups.
 */
export const inIsolate = (embeddings: object): boolean => (embeddings as { inIsolate?: unknown }).inIsolate === true;

/**
 * Embeddings that can answer each vector as the float32s it came as (OpenAI's base64 wire format)
 * without making an array of numbers of it: a store that quantises them (the local store) reads
 * them as they are, sparing an upsert a copy and its garbage per vector.
 */
export interface Float32Embeddings {
  embedDocumentsFloat32(texts: string[]): Promise<Float32Array[]>;
}

export const float32Embeddings = (embeddings: object): Float32Embeddings | undefined =>
  typeof (embeddings as Partial<Float32Embeddings>).embedDocumentsFloat32 === "function" ? (embeddings as Float32Embeddings) : undefined;

/** One embeddings provider per Flowise node name (plus aliases). */
export interface EmbeddingsDefinition {
  name: string;
  aliases?: string[];
  build(config: Record<string, unknown>, deps: ProviderDeps): Promise<Embeddings> | Embeddings;
}
