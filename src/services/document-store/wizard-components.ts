// What the studio's document store wizard offers (GET /document-store/components/*, and the loader
// page's GET /nodes/category/{name}): the catalogue's descriptors of a category, limited to what a
// document store here actually runs — a name its provider registry knows and, for Workers AI and
// Vectorize, only when the deployment binds them. Flowise's own exclusions are kept (the document
// store itself as a loader or vector store, LlamaIndex nodes, the in-memory store).
import type { Env } from "../../env";
import { notFound } from "../../errors";
import { supportedEmbeddings } from "../../providers/embeddings/registry";
import { isAiBound } from "../../providers/embeddings/workers-ai";
import { supportedLoaders } from "../../providers/loaders/registry";
import { supportedRecordManagers } from "../../providers/recordmanager/registry";
import { supportedSplitters } from "../../providers/splitters/registry";
import { isVectorizeBound } from "../../providers/vectorstores/vectorize";
import { supportedVectorStores } from "../../providers/vectorstores/registry";
import { nodeList } from "../catalogue/files";

export type Descriptor = { name: string; category?: string; tags?: string[]; hidden?: boolean } & Record<string, unknown>;

interface Kind {
  category: string;
  supported: () => string[];
  /** Flowise leaves these out of the wizard's lists. */
  excluded?: string[];
}

const KINDS: Record<string, Kind> = {
  loaders: { category: "Document Loaders", supported: supportedLoaders, excluded: ["documentStore"] },
  embeddings: { category: "Embeddings", supported: supportedEmbeddings },
  vectorstore: { category: "Vector Stores", supported: supportedVectorStores, excluded: ["documentStoreVS", "memoryVectorStore"] },
  recordmanager: { category: "Record Manager", supported: supportedRecordManagers },
  splitters: { category: "Text Splitters", supported: supportedSplitters },
};

/** Providers that run only where their binding is (elsewhere building them fails). */
const NEEDS_BINDING: Record<string, (env: Env) => boolean> = {
  cloudflareWorkersAIEmbeddings: (env) => isAiBound(env.AI),
  workersAIEmbeddings: (env) => isAiBound(env.AI),
  vectorize: (env) => isVectorizeBound(env.VECTORIZE),
  cloudflareVectorize: (env) => isVectorizeBound(env.VECTORIZE),
};

async function catalogueNodes(): Promise<Descriptor[]> {
  const file = await nodeList(undefined);
  return file.body ? ((await new Response(file.body).json()) as Descriptor[]) : [];
}

const runs = (env: Env, kind: Kind, supported: Set<string>) => (node: Descriptor) =>
  node.category === kind.category &&
  supported.has(node.name) &&
  !kind.excluded?.includes(node.name) &&
  !node.tags?.includes("LlamaIndex") &&
  (NEEDS_BINDING[node.name]?.(env) ?? true);

/** The descriptors of one of the wizard's lists: loaders, embeddings, vectorstore, recordmanager (or splitters). */
export async function wizardComponents(env: Env, kind: keyof typeof KINDS | string): Promise<Descriptor[]> {
  const k = KINDS[kind];
  if (!k) throw notFound(`No component list ${kind}`);
  return (await catalogueNodes()).filter(runs(env, k, new Set(k.supported())));
}

/** Flowise's GET /nodes/category/{name}: the listed nodes of a category (the wizard's ones limited as above). */
export async function nodesOfCategory(env: Env, category: string): Promise<Descriptor[]> {
  const kind = Object.values(KINDS).find((k) => k.category === category);
  const nodes = await catalogueNodes();
  if (kind) return nodes.filter(runs(env, kind, new Set(kind.supported())));
  return nodes.filter((n) => n.category === category);
}
