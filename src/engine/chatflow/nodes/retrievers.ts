// Flowise's Retrievers category: nodes that wrap a vector store (or another retriever) in a
// retriever for the retrieval chains, retrieverTool, agents and LlamaIndex engines (every input
// that takes a BaseRetriever). Each takes Flowise's outputs: `retriever` (the default), or its
// `document`s / `text` for the `query` input (else the question) at build.
//   vectorStoreRetriever / promptRetriever  a named vector store / a named system message, for
//                 the chains that route between several (MultiRetrievalQAChain, MultiPromptChain);
//                 the first is also a plain retriever over its store
//   similarityThresholdRetriever  hits with at least minSimilarityScore %, fetched kIncrement more
//                 at a time up to maxK (LangChain's ScoreThresholdRetriever)
//   multiQueryRetriever  the model writes other versions of the question (MultiQuery's prompt);
//                 each is searched, the union of the hits is the answer
//   HydeRetriever  the model writes a passage answering the question; the passage is searched
//   embeddingsFilterRetriever  the base retriever's documents whose embedding is near the query's
//   llmFilterRetriever  the model extracts from each document what is relevant (LLMChainExtractor);
//                 documents with nothing relevant are dropped
//   RRFRetriever  the model writes queryCount more queries; the base store's hits for each are
//                 fused by reciprocal rank (1 / (rank + c))
//   extractMetadataRetriever  the model extracts a metadata filter from the query (structured output)
//   customRetriever  hits rewritten through resultFormat ({{context}}, {{metadata.key}})
//   cohereRerankRetriever / JinaRerankRetriever / voyageAIRerankRetriever / AzureRerankRetriever  the base retriever's
//                 documents reordered by the service's rerank API (./retrievers/rerank.ts)
// Where Flowise leaves room, see docs/flows-and-nodes.md ("Retrievers").
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { VectorStore } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { credentialOf, num, str } from "../../core/inputs";
import { requireChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import {
  CATEGORY,
  NodeRetriever,
  cosine,
  labelOf,
  maxKOf,
  positive,
  requireBaseRetriever,
  requireVectorStore,
  retrieverNode,
  storeK,
} from "./retrievers/common";
import { extractFilter, metadataSchema } from "./retrievers/metadata";
import { hydeRetriever, llmFilterRetriever, multiQueryRetriever, rrfRetriever } from "./retrievers/model-written";
import { RERANK_SERVICES, type RerankNode, buildReranker } from "./retrievers/rerank";
import { requireEmbeddings } from "./embeddings";

export { EXTRACT_PROMPT, HYDE_PROMPTS } from "./retrievers/model-written";

// ---- vectorStoreRetriever, promptRetriever --------------------------------------------------------

/** Flowise's VectorStoreRetriever (name, description, vectorStore); also a retriever over the store. */
export class NamedVectorStoreRetriever extends NodeRetriever {
  readonly kind = "vectorStoreRetriever";

  constructor(
    readonly name: string,
    readonly description: string,
    store: VectorStore,
    k: number,
  ) {
    super((query) => store.similaritySearch(query, k), k, store);
  }
}

/** Flowise's PromptRetriever: a system message with the name and description a router chooses it by. */
export interface PromptRetrieverInstance {
  kind: "promptRetriever";
  name: string;
  description: string;
  systemMessage: string;
}

export const isPromptRetriever = (v: unknown): v is PromptRetrieverInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "promptRetriever";

const vectorStoreRetriever: NodeDefinition = {
  name: "vectorStoreRetriever",
  category: CATEGORY,
  async build(args) {
    const { inputs } = args;
    const store = requireVectorStore(inputs.vectorStore, labelOf(args));
    return new NamedVectorStoreRetriever(str(inputs.name) ?? "", str(inputs.description) ?? "", store, storeK(inputs.vectorStore));
  },
};

const promptRetriever: NodeDefinition = {
  name: "promptRetriever",
  category: CATEGORY,
  async build({ inputs }): Promise<PromptRetrieverInstance> {
    return {
      kind: "promptRetriever",
      name: str(inputs.name) ?? "",
      description: str(inputs.description) ?? "",
      systemMessage: str(inputs.systemMessage) ?? "",
    };
  },
};

// ---- similarityThresholdRetriever ---------------------------------------------------------------

const similarityThresholdRetriever = retrieverNode("similarityThresholdRetriever", (args) => {
  const { inputs } = args;
  const store = requireVectorStore(inputs.vectorStore, labelOf(args));
  // Flowise: the percentage / 100, 0.9 when unset; maxK 100 and kIncrement 2 when unset.
  const min = num(inputs.minSimilarityScore) !== undefined ? (num(inputs.minSimilarityScore) as number) / 100 : 0.9;
  const maxK = Math.min(Math.floor(positive(inputs.maxK, 100)), maxKOf(store));
  const step = Math.max(1, Math.floor(positive(inputs.kIncrement, 2)));
  return new NodeRetriever(
    async (query) => {
      // As ScoreThresholdRetriever: fetch k, k + step, … while every hit fetched passes, up to maxK.
      let k = 0;
      let kept: DocumentInterface[] = [];
      do {
        k = Math.min(k + step, maxK);
        const hits = await store.similaritySearchWithScore(query, k);
        kept = hits.filter(([, score]) => score >= min).map(([doc]) => doc);
      } while (kept.length >= k && k < maxK);
      return kept.slice(0, maxK);
    },
    maxK,
    store,
  );
});

// ---- embeddingsFilterRetriever ------------------------------------------------------------------

const embeddingsFilterRetriever = retrieverNode("embeddingsFilterRetriever", (args) => {
  const { inputs } = args;
  const label = labelOf(args);
  const base = requireBaseRetriever(inputs.baseRetriever, label);
  const embeddings = requireEmbeddings(inputs.embeddings, label);
  if (num(inputs.k) === undefined && num(inputs.similarityThreshold) === undefined)
    throw fail("INVALID_FLOW", `${label} needs a similarityThreshold or a k`);
  const threshold = num(inputs.similarityThreshold) || 0.8; // Flowise: 0 or unset is 0.8
  const k = num(inputs.k) || undefined; // unset: no cut
  return new NodeRetriever(
    async (query) => {
      const docs = await base.retriever.invoke(query);
      if (!docs.length) return [];
      const [vectors, q] = await Promise.all([embeddings.embedDocuments(docs.map((d) => d.pageContent)), embeddings.embedQuery(query)]);
      let order = docs.map((_, i) => i);
      const sims = vectors.map((v) => cosine(q, v));
      if (k !== undefined) order = order.sort((a, b) => sims[b] - sims[a]).slice(0, Math.floor(k));
      return order.filter((i) => sims[i] > threshold).map((i) => docs[i]);
    },
    k,
    base.vectorStore,
  );
});

// ---- extractMetadataRetriever -------------------------------------------------------------------

const EXTRACT_METADATA_PROMPT = "Extract keywords from the query: {{query}}";

/** Whether a document's metadata matches a filter: every key equal (a list: any of it; a list in the metadata: holds it). */
export function matchesFilter(metadata: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  const same = (a: unknown, b: unknown) => (typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b);
  return Object.entries(filter).every(([key, wanted]) => {
    if (wanted === undefined || wanted === null || wanted === "") return true;
    const have = metadata[key];
    const wants = Array.isArray(wanted) ? wanted : [wanted];
    if (!wants.length) return true;
    const haves = Array.isArray(have) ? have : [have];
    return wants.some((w) => haves.some((h) => same(h, w)));
  });
}

const extractMetadataRetriever = retrieverNode("extractMetadataRetriever", (args) => {
  const { inputs, ctx } = args;
  const label = labelOf(args);
  const store = requireVectorStore(inputs.vectorStore, label);
  const model = requireChatModel(inputs.model, label);
  const schema = metadataSchema(inputs.dynamicMetadataFilterRetrieverStructuredOutput, label);
  const template = str(inputs.dynamicMetadataFilterRetrieverPrompt) ?? EXTRACT_METADATA_PROMPT;
  const k = Math.floor(positive(inputs.topK, storeK(inputs.vectorStore)));
  return new NodeRetriever(
    async (query) => {
      const prompt = template.replace("{{query}}", () => query);
      const filter = schema ? await extractFilter(model, prompt, schema, label, ctx) : {};
      if (!Object.values(filter).some((v) => v !== undefined && v !== null && v !== "" && !(Array.isArray(v) && !v.length)))
        return store.similaritySearch(query, k);
      // The filter applies to the store's best hits (any store, whatever its own filter syntax).
      const hits = await store.similaritySearch(query, maxKOf(store));
      return hits.filter((d) => matchesFilter(d.metadata ?? {}, filter)).slice(0, k);
    },
    k,
    store,
  );
});

// ---- customRetriever ----------------------------------------------------------------------------

/** A metadata value by dotted path (lodash get), as text. */
const metadataAt = (metadata: Record<string, unknown>, path: string): unknown =>
  path.split(".").reduce<unknown>((v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), metadata);

export function formatResult(format: string, doc: DocumentInterface): string {
  return format
    .replace(/\{\{context\}\}/g, () => doc.pageContent)
    .replace(/\{\{metadata\.([\w.]+)\}\}/g, (whole, path: string) => {
      const value = metadataAt(doc.metadata ?? {}, path);
      return value !== undefined ? String(value) : whole;
    });
}

const customRetriever = retrieverNode("customRetriever", (args) => {
  const { inputs } = args;
  const store = requireVectorStore(inputs.vectorStore, labelOf(args));
  const format = str(inputs.resultFormat) ?? "{{context}}\nSource: {{metadata.source}}";
  const k = Math.floor(positive(inputs.topK, storeK(inputs.vectorStore)));
  return new NodeRetriever(
    async (query) =>
      (await store.similaritySearchWithScore(query, k)).map(
        ([doc]) => new Document({ pageContent: formatResult(format, doc), metadata: doc.metadata }),
      ),
    k,
    store,
  );
});

// ---- rerankers ----------------------------------------------------------------------------------

function rerankNode(name: RerankNode): NodeDefinition {
  return retrieverNode(name, async (args) => {
    const { node, inputs, ctx } = args;
    const base = requireBaseRetriever(inputs.baseRetriever, labelOf(args));
    // Jina's top N defaults to 4; Cohere's and Voyage's top K to the base retriever's.
    const topN = Math.floor(name === "JinaRerankRetriever" ? positive(inputs.topN, 4) : positive(inputs.topK, base.k));
    const reranker = buildReranker(name, {
      env: ctx.runtime.providers,
      credential: await credentialOf(node, inputs, ctx),
      model: str(inputs.model),
      topN,
      inputs,
    });
    return new NodeRetriever(async (query) => reranker.rerank(query, await base.retriever.invoke(query)), topN, base.vectorStore);
  });
}

export const retrieverNodes: NodeDefinition[] = [
  vectorStoreRetriever,
  promptRetriever,
  similarityThresholdRetriever,
  multiQueryRetriever,
  hydeRetriever,
  embeddingsFilterRetriever,
  llmFilterRetriever,
  rrfRetriever,
  extractMetadataRetriever,
  customRetriever,
  ...(Object.keys(RERANK_SERVICES) as RerankNode[]).map(rerankNode),
];

// Referenced so the chains that route between retrievers can tell them apart from plain ones.
export const isNamedVectorStoreRetriever = (v: unknown): v is NamedVectorStoreRetriever => v instanceof NamedVectorStoreRetriever;
