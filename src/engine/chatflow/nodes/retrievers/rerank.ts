// The rerankers of Flowise's reranker retriever nodes, over each service's own rerank API:
//   cohereRerankRetriever  Cohere    POST {COHERE_RERANK_BASE_URL}/v1/rerank  {model, query, documents, top_n,
//                                    max_chunks_per_doc, return_documents: false} → {results: [{index, relevance_score}]}
//   JinaRerankRetriever    Jina AI   POST {JINA_RERANK_BASE_URL}/v1/rerank    {model, query, documents, top_n} → {results}
//   voyageAIRerankRetriever Voyage AI POST {VOYAGE_RERANK_BASE_URL}/v1/rerank  {model, query, documents, top_k} → {data}
//   AzureRerankRetriever   Azure AI Foundry's Cohere rerank: POST {azureFoundryApi azureFoundryEndpoint} (the whole
//                          URL, …/providers/cohere/v2/rerank), `api-key` header, Cohere's v2 body {model, query,
//                          documents, top_n} (v2 refuses v1's max_chunks_per_doc and return_documents with a 422);
//                          an endpoint ending in /v1/rerank gets the v1 body above
// A service takes so many documents a call (Cohere v1: documents × max_chunks_per_doc ≤ 10,000; Cohere v2
// 10,000; Voyage 1,000): more go in several calls, their scores merged (each score rates one
// query–document pair, so scores of one query compare across calls). A document with no text is left out
// (Voyage refuses "", none can rank it); a blank query keeps the base retriever's order, uncalled (Cohere
// refuses it: "query must not be empty or be only whitespace").
// The first three have no base URL input: each service's var (a base already ending in /v1 gets
// /rerank), else the public API; Azure's is its credential's endpoint. The URL is under the outbound
// policy (a refusal is a 400 naming the var, the credential field, or "<node> endpoint"). The key goes
// as a Bearer token (Azure: `api-key`) and never into an error; a failure
// is a 502 with the service's message, a timeout a 504. (Flowise's rerankers swallow failures and
// hand back the documents unranked; a reranker that cannot rank is reported here instead.)
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { fail } from "../../../../errors";
import { chunk } from "../../../../lib/chunk";
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
  /** The most documents one call takes (the node's inputs and the URL may say), when the service caps it. */
  maxDocuments?(inputs: Record<string, unknown>, url: string): number;
  /** The request body, asking for the best `topN`. */
  body(
    model: string,
    query: string,
    documents: string[],
    topN: number,
    inputs: Record<string, unknown>,
    url: string,
  ): Record<string, unknown>;
  /** Where the answer lists its ranking. */
  listField: "results" | "data";
}

/**
 * Cohere's cap on a v1 call ("the endpoint will error if len(documents) * max_chunks_per_doc > 10,000", its
 * changelog), and v2's on documents.
 */
const COHERE_MAX_CHUNKS = 10_000;
/** max_chunks_per_doc: the node's whole number from 1 up to the cap (Cohere refuses others), else Cohere's default 10. */
const chunksPerDoc = (inputs: Record<string, unknown>): number => {
  const n = Math.floor(num(inputs.maxChunksPerDoc) ?? 10);
  return n >= 1 ? Math.min(n, COHERE_MAX_CHUNKS) : 10;
};
const isV1 = (url: string) => /\/v1\/rerank\/?$/.test(new URL(url).pathname);
const cohereV1Body = (model: string, query: string, documents: string[], topN: number, inputs: Record<string, unknown>) => ({
  model,
  query,
  documents,
  top_n: topN,
  max_chunks_per_doc: chunksPerDoc(inputs),
  return_documents: false,
});

export const RERANK_SERVICES = {
  cohereRerankRetriever: {
    provider: "Cohere rerank",
    baseVar: "COHERE_RERANK_BASE_URL",
    publicBase: "https://api.cohere.com",
    keyField: "cohereApiKey",
    defaultModel: "rerank-v3.5",
    maxDocuments: (inputs) => Math.floor(COHERE_MAX_CHUNKS / chunksPerDoc(inputs)),
    body: cohereV1Body,
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
    maxDocuments: () => 1000, // "The number of documents cannot exceed 1000" (Voyage's API reference)
    // Flowise's option "rerank-lite-2" is no Voyage model: Voyage's is rerank-2-lite.
    body: (model, query, documents, topN) => ({
      model: model === "rerank-lite-2" ? "rerank-2-lite" : model,
      query,
      documents,
      top_k: topN,
    }),
    listField: "data",
  },
  AzureRerankRetriever: {
    provider: "Azure rerank",
    urlField: ["azureFoundryApi", "azureFoundryEndpoint"],
    keyField: "azureFoundryApiKey",
    keyHeader: "api-key",
    defaultModel: "Cohere-rerank-v4.0-fast",
    maxDocuments: (inputs, url) => (isV1(url) ? Math.floor(COHERE_MAX_CHUNKS / chunksPerDoc(inputs)) : COHERE_MAX_CHUNKS),
    // Foundry serves Cohere's v2 API, which refuses v1's fields (422 "unknown field"); an older v1 endpoint takes them.
    body: (model, query, documents, topN, inputs, url) =>
      isV1(url) ? cohereV1Body(model, query, documents, topN, inputs) : { model, query, documents, top_n: topN },
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
  const topN = Math.max(1, Math.floor(opts.topN) || 1); // every service takes a top N of 1 or more
  const inputs = opts.inputs ?? {};
  const perCall = service.maxDocuments?.(inputs, url) ?? Number.POSITIVE_INFINITY;
  const call = async (query: string, texts: string[]) => {
    const answer = await embeddingsCall(endpoint, async (deadline) => {
      const res = await postJson(endpoint, deadline, headers, service.body(model, query, texts, Math.min(topN, texts.length), inputs, url));
      return jsonOf(endpoint, deadline, res);
    });
    return rankingOf(service, answer, texts.length);
  };
  return {
    async rerank(query, documents) {
      const rankable = documents.map((doc, i) => ({ doc, i })).filter(({ doc }) => doc.pageContent !== "");
      if (!rankable.length) return []; // as Flowise: no call for nothing to rank
      if (!query.trim()) return rankable.slice(0, topN).map(({ doc }) => doc); // nothing to rank by: the base retriever's order
      const ranking: Array<{ index: number; score: number }> = [];
      // One call after another: a split is rare (over a service's cap) and a burst would meet its rate limit.
      for (const batch of chunk(rankable, perCall)) {
        const scores = await call(
          query,
          batch.map(({ doc }) => doc.pageContent),
        );
        for (const { index, score } of scores) ranking.push({ index: batch[index].i, score });
      }
      ranking.sort((a, b) => b.score - a.score);
      return ranking.slice(0, topN).map(
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
