// Embeddings providers by Flowise node name. The engine's embedding nodes and the document store
// service both build through here, so adding a provider is adding one entry.
import type { Embeddings } from "@langchain/core/embeddings";
import type { Env } from "../../env";
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { credentialOf, firstSet } from "../config";
import { baiduQianfanEmbeddings } from "./baidu";
import { awsBedrockEmbeddings } from "./bedrock";
import { hostedEmbeddings } from "./hosted";
import { LOCAL_HASH_DIMS, LocalHashEmbeddings } from "./local-hash";
import { OpenAICompatibleEmbeddings } from "./openai";
import type { EmbeddingsDefinition, ProviderDeps } from "./types";
import { googleVertexAIEmbeddings } from "./vertex";
import { ibmEmbedding } from "./watsonx";
import { WORKERS_AI_EMBEDDING_MODEL, WorkersAIEmbeddings, isAiBound } from "./workers-ai";

const LOCAL_EMBEDDINGS = "localHashEmbeddings";
const WORKERS_AI_EMBEDDINGS = "cloudflareWorkersAIEmbeddings";

const definitions: EmbeddingsDefinition[] = [
  {
    name: LOCAL_EMBEDDINGS,
    build: (config) => {
      const dims = num(config.dimensions) ?? LOCAL_HASH_DIMS;
      if (!Number.isInteger(dims) || dims < 8 || dims > 4096)
        throw fail("INVALID_FLOW", "localHashEmbeddings dimensions must be a whole number from 8 to 4096");
      return new LocalHashEmbeddings({ dims });
    },
  },
  {
    name: WORKERS_AI_EMBEDDINGS,
    aliases: ["workersAIEmbeddings"],
    build: (config, { env }) =>
      new WorkersAIEmbeddings({
        ai: env.AI as never,
        model: str(config.modelName) ?? str(config.model) ?? WORKERS_AI_EMBEDDING_MODEL,
        batchSize: num(config.batchSize),
        timeoutMs: num(config.timeout),
      }),
  },
  {
    name: "openAIEmbeddings",
    aliases: ["openAIEmbeddingsCustom", "openAIEmbedding_LlamaIndex"],
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const model = str(config.modelName) ?? str(config.model) ?? "text-embedding-3-small";
      // A model name starting @cf/ goes to Workers AI, as for chat models.
      if (model.startsWith("@cf/")) return new WorkersAIEmbeddings({ ai: deps.env.AI as never, model, batchSize: num(config.batchSize) });
      const base = firstSet(
        [config.basepath, "openAIEmbeddings basepath"],
        [credential.basePath, "openAIApi credential basePath"],
        [deps.env.OPENAI_BASE_URL, "OPENAI_BASE_URL"],
      ) ?? {
        value: "https://api.openai.com/v1",
        field: "openAIEmbeddings endpoint",
      };
      return new OpenAICompatibleEmbeddings({
        baseUrl: base.value,
        field: base.field,
        env: deps.env,
        apiKey: str(credential.openAIApiKey) ?? str(deps.env.OPENAI_API_KEY),
        model,
        dimensions: num(config.dimensions),
        batchSize: num(config.batchSize),
        stripNewLines: config.stripNewLines === false || config.stripNewLines === "false" ? false : undefined,
        timeoutMs: num(config.timeout),
      });
    },
  },
  {
    // LocalAI's OpenAI-compatible /embeddings; basePath as Flowise writes it (…/v1).
    name: "localAIEmbeddings",
    async build(config, deps) {
      const baseUrl = str(config.basePath);
      if (!baseUrl) throw fail("INVALID_FLOW", "localAIEmbeddings needs its basePath input (e.g. http://localhost:8080/v1)");
      const credential = await credentialOf(config, deps);
      return new OpenAICompatibleEmbeddings({
        baseUrl,
        field: "localAIEmbeddings basePath",
        env: deps.env,
        apiKey: str(credential.localAIApiKey),
        model: str(config.modelName) ?? "text-embedding-ada-002",
        timeoutMs: num(config.timeout),
      });
    },
  },
  // Mistral, Together, Jina, Voyage, Cohere, Gemini (hosted.ts).
  ...hostedEmbeddings,
  awsBedrockEmbeddings,
  googleVertexAIEmbeddings,
  ibmEmbedding,
  baiduQianfanEmbeddings,
];

const byName = new Map<string, EmbeddingsDefinition>();
for (const def of definitions) for (const n of [def.name, ...(def.aliases ?? [])]) byName.set(n, def);

export const supportedEmbeddings = (): string[] => [...byName.keys()].sort();

/** The deployment's default: Workers AI when the AI binding is there, else the local embedder. */
export const defaultEmbeddingsName = (env: Env): string => (isAiBound(env.AI) ? WORKERS_AI_EMBEDDINGS : LOCAL_EMBEDDINGS);

export function embeddingsDefinition(name: string): EmbeddingsDefinition {
  const def = byName.get(name);
  if (!def) throw fail("UNKNOWN_NODE", `Unknown embedding "${name}". Supported: ${supportedEmbeddings().join(", ")}`);
  return def;
}

export async function buildEmbeddings(name: string, config: Record<string, unknown>, deps: ProviderDeps): Promise<Embeddings> {
  return embeddingsDefinition(name).build(config, deps);
}
