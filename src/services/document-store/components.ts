// Resolving the providers a store uses: the request's choice, else the store's saved config, else
// the deployment's default (Workers AI + Vectorize when bound, the local ones otherwise).
import type { Embeddings } from "@langchain/core/embeddings";
import { buildEmbeddings, defaultEmbeddingsName, embeddingsDefinition } from "../../providers/embeddings/registry";
import { buildRecordManager, assertRecordManagerName, type RecordManagerSettings } from "../../providers/recordmanager/registry";
import { buildVectorStore, defaultVectorStoreName, vectorStoreDefinition } from "../../providers/vectorstores/registry";
import type { DocVectorStore } from "../../providers/vectorstores/types";
import type { Env } from "../../env";
import type { ComponentConfig, DocStoreDeps } from "./types";

export interface VectorComponents {
  embedding: ComponentConfig;
  vectorStore: ComponentConfig;
  recordManager?: ComponentConfig;
}

const merged = (
  given: { name: string; config?: Record<string, unknown> } | undefined,
  saved: ComponentConfig | undefined,
): ComponentConfig | undefined => {
  if (given) return { name: given.name, config: { ...(saved && saved.name === given.name ? saved.config : {}), ...(given.config ?? {}) } };
  return saved;
};

/** Picks the components and checks every name (400 listing the supported ones) before any work. */
export function resolveComponents(
  env: Env,
  given: {
    embedding?: { name: string; config?: Record<string, unknown> };
    vectorStore?: { name: string; config?: Record<string, unknown> };
    recordManager?: { name: string; config?: Record<string, unknown> };
  },
  saved: { embedding?: ComponentConfig; vectorStore?: ComponentConfig; recordManager?: ComponentConfig },
): VectorComponents {
  const embedding = merged(given.embedding, saved.embedding) ?? { name: defaultEmbeddingsName(env), config: {} };
  const vectorStore = merged(given.vectorStore, saved.vectorStore) ?? { name: defaultVectorStoreName(env), config: {} };
  const recordManager = merged(given.recordManager, saved.recordManager);
  embeddingsDefinition(embedding.name);
  vectorStoreDefinition(vectorStore.name);
  if (recordManager) assertRecordManagerName(recordManager.name);
  return { embedding, vectorStore, recordManager };
}

export interface BuiltComponents {
  embeddings: Embeddings;
  store: DocVectorStore;
  recordManager?: RecordManagerSettings;
}

/** Builds them for a store (its id is the vector namespace and the record manager's default). */
export async function buildComponents(deps: DocStoreDeps, storeId: string, c: VectorComponents): Promise<BuiltComponents> {
  const embeddings = await buildEmbeddings(c.embedding.name, c.embedding.config, deps);
  const store = buildVectorStore(c.vectorStore.name, c.vectorStore.config, {
    env: deps.env,
    db: deps.db,
    embeddings,
    namespace: storeId,
    getCredential: deps.getCredential,
  });
  const recordManager = c.recordManager ? buildRecordManager(c.recordManager.name, c.recordManager.config, deps.db, storeId) : undefined;
  return { embeddings, store, recordManager };
}
