// The rerankers of Flowise's reranker retriever nodes, over each service's own rerank API:
//   cohereRerankRetriever  Cohere    POST {COHERE_RERANK_BASE_URL}/v1/rerank  {model, query, documents, top_n,
//                                    max_chunks_per_doc, return_documents: false} → {results: [{index, relevance_score}]}
//   JinaRerankRetriever    Jina AI   POST {JINA_RERANK_BASE_URL}/v1/rerank    {model, query, documents, top_n} → {results}
//   voyageAIRerankRetriever Voyage AI POST {VOYAGE_RERANK_BASE_URL}/v1/rerank  {model, query, documents, top_k} → {data}
//   AzureRerankRetriever   Azure AI Foundry's Cohere rerank: POST {azureFoundryApi azureFoundryEndpoint} (the whole
//                          URL, …/providers/cohere/v2/rerank), `api-key` header, Cohere's body and answer
// The first three have no base URL input: each service's var (a base already ending in /v1 gets
// /rerank), else the public API; Azure's is its credential's endpoint. The URL is under the outbound
// policy (a refusal is a 400 naming the var, the credential field, or "<node> endpoint"). The key goes
// as a Bearer token (Azure: `api-key`) and never into an error; a failure
// is a 502 with the service's message, a timeout a 504. (Flowise's rerankers swallow failures and
// hand back the documents unranked; a reranker that cannot rank is reported here instead.)
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { fail } from "../../../../errors";
import { num, str } from "../../../../lib/inputs";
import { checkEndpoint } from "../../../../lib/outbound";
import { apiUrl, httpUrl } from "../../../../providers/chat/endpoints";
import { firstSet } from "../../../../providers/config";
import { type EmbeddingsEndpoint, embeddingsCall, jsonOf, postJson } from "../../../../providers/embeddings/http";
import type { ProviderEnv } from "../../../../providers/types";

interface RerankService {
  /** The service's name in messages. */
  provider: string;
  /** The deployment var holding its base URL, and the public API's base (unless the credential names the URL). */
  baseVar?: "COHERE_RERANK_BASE_URL" | "JINA_RERANK_BASE_URL" | "VOYAGE_RERANK_BASE_URL";
  publicBase?: string;
  /** The credential (type, field) holding the whole rerank URL, for a service with no public host. */
  urlField?: [credentialName: string, field: string];
  /** The credential field holding the key, and the header carrying it (default a Bearer authorization). */
  keyField: string;
  keyHeader?: string;
  defaultModel: string;
  /** The request body, asking for the best `topN`. */
  body(model: string, query: string, documents: string[], topN: number, inputs: Record<string, unknown>): Record<string, unknown>;
  /** Where the answer lists its ranking. */
  listField: "results" | "data";
}

export const RERANK_SERVICES = {
  cohereRerankRetriever: {
    provider: "Cohere rerank",
    baseVar: "COHERE_RERANK_BASE_URL",
    publicBase: "https://api.cohere.com",
    keyField: "cohereApiKey",
    defaultModel: "rerank-v3.5",
    body: (model, query, documents, topN, inputs) => ({
      model,
      query,
      documents,
      top_n: topN,
      max_chunks_per_doc: num(inputs.maxChunksPerDoc) ?? 10,
      return_documents: false,
    }),
    listField: "results",
  },
  JinaRerankRetriever: {
    provider: "Jina rerank",
    baseVar: "JINA_RERANK_BASE_URL",
    publicBase: "https://api.jina.ai",
    keyField: "jinaAIAPIKey",
    defaultModel: "jina-reranker-v2-base-multilingual",
    body: (model, query, documents, topN) => ({ model, query, documents, top_n: topN }),
    listField: "results",
  },
  voyageAIRerankRetriever: {
    provider: "Voyage AI rerank",
    baseVar: "VOYAGE_RERANK_BASE_URL",
    publicBase: "https://api.voyageai.com",
    keyField: "apiKey",
    defaultModel: "rerank-lite-1",
    body: (model, query, documents, topN) => ({ model, query, documents, top_k: topN }),
    listField: "data",
  },
  AzureRerankRetriever: {
    provider: "Azure rerank",
    urlField: ["azureFoundryApi", "azureFoundryEndpoint"],
    keyField: "azureFoundryApiKey",
    keyHeader: "api-key",
    defaultModel: "Cohere-rerank-v4.0-fast",
    body: (model, query, documents, topN, inputs) => ({
      model,
      top_n: topN,
      max_chunks_per_doc: num(inputs.maxChunksPerDoc) ?? 10,
      query,
      return_documents: false,
      documents,
    }),
    listField: "results",
  },
} satisfies Record<string, RerankService>;

export type RerankNode = keyof typeof RERANK_SERVICES;

export interface Reranker {
  /** The documents best first, each with `metadata.relevance_score`, at most topN of them. */
  rerank(query: string, documents: DocumentInterface[]): Promise<DocumentInterface[]>;
}

/**
 * A node's reranker: where it calls (checked by the outbound policy now: a refused URL is a 400
 * before anything is sent), its key, model and top N.
 */
export function buildReranker(
  node: RerankNode,
  opts: { env: ProviderEnv; credential: Record<string, unknown>; model?: string; topN: number; inputs?: Record<string, unknown> },
): Reranker {
  const service: RerankService = RERANK_SERVICES[node];
  const { url, field } = rerankUrl(node, service, opts.env, opts.credential);
  const apiKey = str(opts.credential[service.keyField]);
  if (service.keyHeader && !apiKey)
    throw fail("MISSING_CREDENTIAL", `${node} needs its ${service.urlField?.[0]} credential's ${service.keyField} (the API key)`);
  const endpoint: EmbeddingsEndpoint = { url, policy: checkEndpoint(url, field, opts.env), provider: service.provider, apiKey };
  const model = opts.model ?? service.defaultModel;
  const auth: Record<string, string> = service.keyHeader
    ? { [service.keyHeader]: apiKey as string }
    : apiKey
      ? { authorization: `Bearer ${apiKey}` }
      : {};
  const headers = { accept: "application/json", ...auth };
  return {
    async rerank(query, documents) {
      if (!documents.length) return []; // as Flowise: no call for nothing to rank
      const texts = documents.map((d) => d.pageContent);
      const answer = await embeddingsCall(endpoint, async (deadline) => {
        const res = await postJson(endpoint, deadline, headers, service.body(model, query, texts, opts.topN, opts.inputs ?? {}));
        return jsonOf(endpoint, deadline, res);
      });
      const ranking = rankingOf(service, answer, documents.length);
      return ranking.slice(0, opts.topN).map(
        ({ index, score }) =>
          new Document({
            pageContent: documents[index].pageContent,
            metadata: { ...documents[index].metadata, relevance_score: score },
            ...(documents[index].id !== undefined ? { id: documents[index].id } : {}),
          }),
      );
    },
  };
}

/** Where a service's rerank calls go, and what a refusal names: the credential's URL, the var, else the public API. */
function rerankUrl(node: RerankNode, service: RerankService, env: ProviderEnv, credential: Record<string, unknown>) {
  if (service.urlField) {
    const [type, name] = service.urlField;
    const value = str(credential[name]);
    const field = `${type} credential ${name}`;
    if (!value) throw fail("MISSING_CREDENTIAL", `${node} needs its ${type} credential's ${name} (the rerank URL)`);
    return { url: httpUrl(value, field), field };
  }
  const base = (service.baseVar && firstSet([env[service.baseVar], service.baseVar])) || {
    value: service.publicBase as string,
    field: `${node} endpoint`,
  };
  return { url: apiUrl(base.value, "v1", "rerank", base.field), field: base.field };
}

/** The answer's ranking (best first), or a 502 saying the answer was not one. */
function rankingOf(service: RerankService, answer: unknown, count: number): Array<{ index: number; score: number }> {
  const list = (answer as Record<string, unknown> | null)?.[service.listField];
  const ranking = Array.isArray(list)
    ? list.map((r: { index?: unknown; relevance_score?: unknown }) => ({ index: r?.index, score: r?.relevance_score }))
    : [];
  const ok =
    Array.isArray(list) &&
    ranking.every(
      (r) => Number.isInteger(r.index) && (r.index as number) >= 0 && (r.index as number) < count && typeof r.score === "number",
    );
  if (!ok) throw fail("MODEL_FAILED", `${service.provider} answered without a ranking of the documents`);
  // Services answer best first; sorting again keeps that true of any that do not.
  return (ranking as Array<{ index: number; score: number }>).sort((a, b) => b.score - a.score);
}
