import type { Embeddings } from "@langchain/core/embeddings";
import type { Env } from "../../env";

/** What building a provider may need from outside: bindings, vars and stored credentials. */
export interface ProviderDeps {
  env: Env;
  /** Decrypted credential values by credential id (404 when missing). */
  getCredential(id: string): Promise<Record<string, unknown>>;
}

/** One embeddings provider per Flowise node name (plus aliases). */
export interface EmbeddingsDefinition {
  name: string;
  aliases?: string[];
  build(config: Record<string, unknown>, deps: ProviderDeps): Promise<Embeddings> | Embeddings;
}
