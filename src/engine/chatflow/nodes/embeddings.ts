// Embeddings nodes: the document store's embeddings providers (src/providers/embeddings) under their
// Flowise node names — openAIEmbeddings (`basepath`, credential `openAIApi`), the Workers AI one,
// the local one — plus ollamaEmbeddings, through Ollama's OpenAI-compatible /v1 API.
import type { Embeddings } from "@langchain/core/embeddings";
import { fail } from "../../../errors";
import { OpenAICompatibleEmbeddings } from "../../../providers/embeddings/openai";
import { buildEmbeddings, supportedEmbeddings } from "../../../providers/embeddings/registry";
import type { NodeDefinition } from "../types";
import { num, providerConfig, str } from "../../core/inputs";
import { providerDeps } from "../../core/ports";

const CATEGORY = "Embeddings";

const isEmbeddings = (v: unknown): v is Embeddings =>
  !!v &&
  typeof v === "object" &&
  typeof (v as Embeddings).embedQuery === "function" &&
  typeof (v as Embeddings).embedDocuments === "function";

/** The embeddings an input must hold, or a 400 naming the node and input. */
export function requireEmbeddings(value: unknown, label: string, input = "embeddings"): Embeddings {
  if (!isEmbeddings(value)) throw fail("INVALID_FLOW", `${label} needs an embeddings node connected to its ${input} input`);
  return value;
}

function providerNode(name: string): NodeDefinition {
  return {
    name,
    category: CATEGORY,
    build: async (args) => buildEmbeddings(name, providerConfig(args.node, args.inputs), providerDeps(args.ctx)),
  };
}

const ollamaEmbeddings: NodeDefinition = {
  name: "ollamaEmbeddings",
  category: CATEGORY,
  async build({ inputs, ctx }) {
    const base = (str(inputs.baseUrl) ?? "http://127.0.0.1:11434").replace(/\/+$/, "");
    return new OpenAICompatibleEmbeddings({
      baseUrl: /\/v1$/.test(base) ? base : `${base}/v1`,
      field: "ollamaEmbeddings baseUrl",
      env: ctx.runtime.providers,
      model: str(inputs.modelName) ?? "nomic-embed-text",
      batchSize: num(inputs.batchSize),
      timeoutMs: num(inputs.timeout),
    });
  },
};

export const embeddingsNodes: NodeDefinition[] = [
  ...supportedEmbeddings()
    .filter((n) => n !== ollamaEmbeddings.name)
    .map(providerNode),
  ollamaEmbeddings,
  // Flowise 3's name for the same node (ollamaEmbeddings is kept for flows saved with it).
  { ...ollamaEmbeddings, name: "ollamaEmbedding" },
];
