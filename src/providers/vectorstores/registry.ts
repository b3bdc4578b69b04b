// Vector stores by Flowise node name. Flowise's in-process stores (memoryVectorStore, …) map to the
// local D1 store, so their exports run unchanged; faiss is an index in R2 per basePath; vectorize is
// Cloudflare's; pinecone, qdrant, chroma, supabase, upstash (Upstash Vector), weaviate,
// elasticsearch, openSearch and meilisearch are their services' REST APIs; milvus is Milvus's REST API
// v2 (its gRPC is out of a Worker's reach), Astra Astra DB's Data API, mongoDBAtlas MongoDB over its
// wire protocol, couchbase Couchbase's Query and Search HTTP services, singlestore SingleStore over
// MySQL's, zep and zepCloud Zep's collections, vectara
// Vectara's API v2 (it embeds text itself).
import type { Env } from "../../env";
import { fail } from "../../errors";
import { LocalD1VectorStore } from "./local";
import { pineconeVectorStore } from "./pinecone";
import { qdrantVectorStore } from "./qdrant";
import { chromaVectorStore } from "./chroma";
import { supabaseVectorStore } from "./supabase";
import { upstashVectorStore } from "./upstash";
import { weaviateVectorStore } from "./weaviate";
import { elasticsearchVectorStore, openSearchVectorStore } from "./elastic";
import { meilisearchVectorStore } from "./meilisearch";
import { postgresVectorStore } from "./postgres";
import { singleStoreVectorStore } from "./singlestore";
import { redisVectorStore } from "./redis";
import { milvusVectorStore } from "./milvus";
import { astraVectorStore } from "./astra";
import { mongoDBAtlasVectorStore } from "./mongodb";
import { couchbaseVectorStore } from "./couchbase";
import { zepCloudVectorStore, zepVectorStore } from "./zep";
import { vectaraVectorStore } from "./vectara";
import { FaissR2Store } from "./faiss-r2";
import { str } from "../../lib/inputs";
import type { DocVectorStore, VectorStoreContext, VectorStoreDefinition } from "./types";
import { VectorizeStore, isVectorizeBound } from "./vectorize";

const LOCAL_VECTOR_STORE = "localVectorStore";
const VECTORIZE_VECTOR_STORE = "vectorize";

const definitions: VectorStoreDefinition[] = [
  {
    name: LOCAL_VECTOR_STORE,
    aliases: ["memoryVectorStore", "inMemoryVectorStore", "simpleStore", "simpleStoreLlamaIndex", "hnswlib", "d1VectorStore"],
    build: (_config, ctx) => new LocalD1VectorStore(ctx.embeddings, ctx.db, ctx.namespace),
  },
  {
    name: VECTORIZE_VECTOR_STORE,
    aliases: ["cloudflareVectorize"],
    build: (_config, ctx) => VectorizeStore.create(ctx.env.VECTORIZE, ctx.embeddings, ctx.db, ctx.namespace),
  },
  pineconeVectorStore,
  qdrantVectorStore,
  chromaVectorStore,
  supabaseVectorStore,
  upstashVectorStore,
  weaviateVectorStore,
  elasticsearchVectorStore,
  openSearchVectorStore,
  meilisearchVectorStore,
  postgresVectorStore,
  singleStoreVectorStore,
  redisVectorStore,
  milvusVectorStore,
  astraVectorStore,
  mongoDBAtlasVectorStore,
  couchbaseVectorStore,
  zepVectorStore,
  zepCloudVectorStore,
  vectaraVectorStore,
  {
    // Flowise's faiss keeps an index on disk at basePath; here it is an R2 object per basePath (faiss-r2.ts).
    name: "faiss",
    build: (config, ctx) => new FaissR2Store(ctx.embeddings, ctx.env.FILES, str(config.basePath), ctx.namespace),
  },
];

const byName = new Map<string, VectorStoreDefinition>();
for (const def of definitions) for (const n of [def.name, ...(def.aliases ?? [])]) byName.set(n, def);

export const supportedVectorStores = (): string[] => [...byName.keys()].sort();

/** Whether a store node needs embeddings (zepCloud and vectara do not: the service embeds the text). */
export const storeTakesEmbeddings = (name: string): boolean => !byName.get(name)?.embedsText;

/** The deployment's default: Vectorize when bound, else the local D1 store. */
export const defaultVectorStoreName = (env: Env): string => (isVectorizeBound(env.VECTORIZE) ? VECTORIZE_VECTOR_STORE : LOCAL_VECTOR_STORE);

export function vectorStoreDefinition(name: string): VectorStoreDefinition {
  const def = byName.get(name);
  if (!def) throw fail("UNKNOWN_NODE", `Unknown vector store "${name}". Supported: ${supportedVectorStores().join(", ")}`);
  return def;
}

export function buildVectorStore(name: string, config: Record<string, unknown>, ctx: VectorStoreContext): DocVectorStore {
  return vectorStoreDefinition(name).build(config, ctx);
}
