// Flowise 3.1.4's embeddings nodes for hosted services, over each one's own API. Where a call goes:
// the node's base URL input (or credential field) when Flowise has one, else a deployment var,
// else the public API; every URL under the outbound policy (a refusal is a 400 naming the field).
// Defaults (model, batch, new lines) are what the node or its LangChain class uses.
import { bool, num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { headersOf } from "../chat/build";
import { apiUrl, azureDeployment, httpUrl } from "../chat/endpoints";
import { credentialOf, firstSet, modelNameOf } from "../config";
import { CohereEmbeddings } from "./cohere";
import { GeminiEmbeddings } from "./gemini";
import { HuggingFaceEmbeddings } from "./huggingface";
import type { EmbeddingsEndpoint } from "./http";
import { OpenAICompatibleEmbeddings } from "./openai";
import type { EmbeddingsDefinition, ProviderDeps } from "./types";

type Source = { value: string; field: string };

/** The first base URL set, else the provider's public one (named "<node> endpoint" in a refusal). */
const baseOf = (node: string, publicUrl: string, ...sources: Array<[unknown, string]>): Source =>
  firstSet(...sources) ?? { value: publicUrl, field: `${node} endpoint` };

/** A bare host gets /v1 (Mistral's SDK appends /v1/embeddings to its server URL; chatMistralAI reads it so too). */
const withV1 = (base: string): string => {
  try {
    return /^\/?$/.test(new URL(base).pathname) ? `${base.replace(/\/+$/, "")}/v1` : base;
  } catch {
    return base; // embeddingsUrl reports it
  }
};

/**
 * Voyage's tokens per request (docs.voyageai.com/reference/embeddings-api: 1M for its lite models, 320K for
 * voyage-4, -3.5, -3 and -2, 120K for the others — a batch over it is a 400).
 */
function voyageTokenCap(model: string): number {
  if (/^voyage-(4|3\.5|3)-lite$/.test(model)) return 1_000_000;
  return /^voyage-(4|3\.5|3|2)$/.test(model) ? 320_000 : 120_000;
}

function endpointOf(url: string, base: Source, provider: string, deps: ProviderDeps, apiKey: unknown): EmbeddingsEndpoint {
  return { url, policy: checkEndpoint(url, base.field, deps.env), provider, apiKey: str(apiKey) };
}

export const hostedEmbeddings: EmbeddingsDefinition[] = [
  {
    // The deployment's /embeddings?api-version=…, key in `api-key`: where azureChatOpenAI's calls go, the same way.
    name: "azureOpenAIEmbeddings",
    // LlamaIndex's node takes the same credential (its deployment and version) and timeout.
    aliases: ["azureOpenAIEmbeddingsLlamaIndex"],
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const azure = azureDeployment(config, credential, "azureOpenAIEmbeddings");
      return new OpenAICompatibleEmbeddings({
        baseUrl: azure.base,
        field: azure.field,
        query: `api-version=${encodeURIComponent(azure.version)}`,
        env: deps.env,
        provider: "Azure OpenAI embeddings",
        apiKey: azure.key,
        keyHeader: "api-key",
        headers: headersOf(config.baseOptions),
        model: str(credential.azureOpenAIApiDeploymentName) ?? modelNameOf(config, "text-embedding-ada-002"),
        batchSize: num(config.batchSize),
        timeoutMs: num(config.timeout),
      });
    },
  },
  {
    // The same service as huggingFaceInference_LLMs, so the same var (HUGGINGFACE_BASE_URL), unless the node names its endpoint.
    name: "huggingFaceInferenceEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const own = str(config.endpoint);
      const base = own
        ? { value: own, field: "huggingFaceInferenceEmbeddings endpoint" }
        : baseOf("huggingFaceInferenceEmbeddings", "https://router.huggingface.co/hf-inference", [
            deps.env.HUGGINGFACE_BASE_URL,
            "HUGGINGFACE_BASE_URL",
          ]);
      const model = modelNameOf(config, "sentence-transformers/distilbert-base-nli-mean-tokens");
      const path = `${model.split("/").map(encodeURIComponent).join("/")}/pipeline/feature-extraction`;
      const url = own ? httpUrl(own, base.field) : apiUrl(base.value, "models", path, base.field);
      return new HuggingFaceEmbeddings(endpointOf(url, base, "Hugging Face embeddings", deps, credential.huggingFaceApiKey));
    },
  },
  {
    name: "mistralAIEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const base = baseOf("mistralAIEmbeddings", "https://api.mistral.ai/v1", [
        config.overrideEndpoint,
        "mistralAIEmbeddings overrideEndpoint",
      ]);
      return new OpenAICompatibleEmbeddings({
        baseUrl: withV1(base.value),
        field: base.field,
        env: deps.env,
        provider: "Mistral AI embeddings",
        apiKey: str(credential.mistralAIAPIKey),
        model: modelNameOf(config, "mistral-embed"),
        batchSize: num(config.batchSize),
        stripNewLines: bool(config.stripNewLines, true),
        // Mistral lists base64 but documents no byte layout: numbers, as its own client asks.
        floats: true,
        // "Too many tokens overall, split into more batches." past 16,384 tokens a request.
        maxRequestTokens: 16_384,
      });
    },
  },
  {
    // The same service as chatTogetherAI, so the same var (TOGETHER_BASE_URL).
    name: "togetherAIEmbedding",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const base = baseOf("togetherAIEmbedding", "https://api.together.xyz/v1", [deps.env.TOGETHER_BASE_URL, "TOGETHER_BASE_URL"]);
      return new OpenAICompatibleEmbeddings({
        baseUrl: base.value,
        field: base.field,
        env: deps.env,
        provider: "TogetherAI embeddings",
        apiKey: str(credential.togetherAIApiKey),
        model: modelNameOf(config, "togethercomputer/m2-bert-80M-8k-retrieval"),
        batchSize: 64,
        stripNewLines: false,
        // Together's API takes model and input only, and answers numbers.
        floats: true,
      });
    },
  },
  {
    name: "jinaEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const base = baseOf("jinaEmbeddings", "https://api.jina.ai/v1", [deps.env.JINA_EMBEDDINGS_BASE_URL, "JINA_EMBEDDINGS_BASE_URL"]);
      // Jina embeds passages and queries differently (`task`); late chunking only applies to passages.
      const late = bool(config.allowLateChunking);
      const lateChunking = late ? { late_chunking: true } : {};
      return new OpenAICompatibleEmbeddings({
        baseUrl: base.value,
        field: base.field,
        env: deps.env,
        provider: "Jina embeddings",
        apiKey: str(credential.jinaAIAPIKey),
        model: modelNameOf(config, "jina-embeddings-v3"),
        dimensions: num(config.modelDimensions) ?? 1024,
        batchSize: 24,
        // Jina refuses OpenAI's encoding_format (extra fields are forbidden); its base64 is float32s too.
        base64Field: "embedding_type",
        // With late chunking a batch is read as one text, of 8,192 tokens at most (jina-embeddings-v3).
        maxRequestTokens: late ? 8192 : undefined,
        bodyFields: {
          document: { task: "retrieval.passage", normalized: true, ...lateChunking },
          query: { task: "retrieval.query", normalized: true },
        },
      });
    },
  },
  {
    name: "voyageAIEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      // The credential's endpoint is Voyage's whole URL (…/v1/embeddings); a base works too.
      const base = baseOf("voyageAIEmbeddings", "https://api.voyageai.com/v1", [credential.endpoint, "voyageAIApi credential endpoint"]);
      const model = modelNameOf(config, "voyage-2");
      return new OpenAICompatibleEmbeddings({
        baseUrl: base.value,
        field: base.field,
        env: deps.env,
        provider: "Voyage AI embeddings",
        apiKey: str(credential.apiKey),
        model,
        batchSize: 128,
        stripNewLines: false,
        maxRequestTokens: voyageTokenCap(model),
        // Voyage's advice for retrieval: each kind gets its own prompt (vectors with or without one are compatible).
        bodyFields: { document: { input_type: "document" }, query: { input_type: "query" } },
      });
    },
  },
  {
    name: "cohereEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const base = baseOf("cohereEmbeddings", "https://api.cohere.com", [
        deps.env.COHERE_EMBEDDINGS_BASE_URL,
        "COHERE_EMBEDDINGS_BASE_URL",
      ]);
      const url = apiUrl(base.value, "v1", "embed", base.field);
      return new CohereEmbeddings({
        endpoint: endpointOf(url, base, "Cohere embeddings", deps, credential.cohereApiKey),
        model: modelNameOf(config, "embed-english-v2.0"),
        inputType: str(config.inputType),
      });
    },
  },
  {
    // The same service as chatGoogleGenerativeAI, so the same var.
    name: "googleGenerativeAiEmbeddings",
    async build(config, deps) {
      const credential = await credentialOf(config, deps);
      const base = baseOf("googleGenerativeAiEmbeddings", "https://generativelanguage.googleapis.com", [
        deps.env.GOOGLE_GENERATIVE_AI_BASE_URL,
        "GOOGLE_GENERATIVE_AI_BASE_URL",
      ]);
      const model = modelNameOf(config, "gemini-embedding-001").replace(/^models\//, "");
      const url = apiUrl(base.value, "v1beta", `models/${encodeURIComponent(model)}:batchEmbedContents`, base.field);
      return new GeminiEmbeddings({
        endpoint: endpointOf(url, base, "Gemini embeddings", deps, credential.googleGenerativeAPIKey),
        model,
        taskType: str(config.tasktype),
        stripNewLines: bool(config.stripNewLines),
      });
    },
  },
];
