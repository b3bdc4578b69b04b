// Chat model nodes. Each builds a LangChain BaseChatModel; a modelName starting with "@cf/" goes to
// Workers AI through the AI binding whatever the node.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ApiError, badRequest } from "../../errors";
import { timeoutOf } from "../../providers/chat/http";
import {
  type ChatEndpoint,
  OpenAICompatibleChatModel,
  azureEndpoint,
  bearerEndpoint,
  mistralEndpoint,
  ollamaEndpoint,
  openAIEndpoint,
} from "../../providers/chat/openai-compatible";
import { type AiRunner, WORKERS_AI_MISSING, WorkersAIChatModel } from "../../providers/chat/workers-ai";
import type { BuildArgs, NodeDefinition } from "../types";
import { credentialOf, jsonObject, num, str } from "./util";

const CATEGORY = "Chat Models";

/** Sampling and limits every chat model node shares. */
function sampling(inputs: Record<string, unknown>) {
  const stop = str(inputs.stopSequence) ?? str(inputs.stop);
  return {
    temperature: num(inputs.temperature),
    maxTokens: num(inputs.maxTokens) ?? num(inputs.maxOutputTokens) ?? num(inputs.numPredict),
    topP: num(inputs.topP),
    timeoutMs: timeoutOf(inputs.timeout),
    stop: stop ? stop.split(",").map((s) => s.trim()).filter(Boolean) : undefined,
  };
}

export function workersAIModel({ inputs, ctx }: BuildArgs, model: string): WorkersAIChatModel {
  const ai = ctx.env.AI as unknown as AiRunner | undefined;
  if (!ai || typeof ai.run !== "function") throw new ApiError(400, `${WORKERS_AI_MISSING} (model ${model})`);
  const { temperature, maxTokens, topP, timeoutMs } = sampling(inputs);
  return new WorkersAIChatModel({ ai, model, temperature, maxTokens, topP, timeoutMs, signal: ctx.signal });
}

/** baseOptions (JSON): default headers for every request, as Flowise passes them (or under `headers`). */
function headersOf(value: unknown): Record<string, string> {
  const base = jsonObject(value);
  if (!base) return {};
  const source = base.headers && typeof base.headers === "object" ? (base.headers as Record<string, unknown>) : base;
  return Object.fromEntries(Object.entries(source).filter(([, v]) => typeof v === "string" || typeof v === "number").map(([k, v]) => [k, String(v)]));
}

function openAICompatible(args: BuildArgs, endpoint: ChatEndpoint, model: string, extraBody?: Record<string, unknown>): OpenAICompatibleChatModel {
  const { inputs, ctx } = args;
  const headers = headersOf(inputs.baseOptions);
  return new OpenAICompatibleChatModel({
    endpoint: { ...endpoint, headers: { ...headers, ...endpoint.headers } },
    model,
    ...sampling(inputs),
    frequencyPenalty: num(inputs.frequencyPenalty),
    presencePenalty: num(inputs.presencePenalty),
    extraBody,
    signal: ctx.signal,
  });
}

/** A node whose model goes to an OpenAI-compatible endpoint unless its name starts with @cf/. */
function chatModelNode(name: string, defaultModel: string, endpointOf: (args: BuildArgs, credential: Record<string, unknown>) => ChatEndpoint, extraBody?: (inputs: Record<string, unknown>) => Record<string, unknown>): NodeDefinition {
  return {
    name,
    category: CATEGORY,
    async build(args): Promise<BaseChatModel> {
      const model = str(args.inputs.modelName) ?? str(args.inputs.model) ?? defaultModel;
      if (model.startsWith("@cf/")) return workersAIModel(args, model);
      const credential = await credentialOf(args.node, args.inputs, args.ctx);
      return openAICompatible(args, endpointOf(args, credential), model, extraBody?.(args.inputs));
    },
  };
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const chatModelNodes: NodeDefinition[] = [
  chatModelNode("chatOpenAI", "gpt-4o-mini", ({ inputs, ctx }, credential) => openAIEndpoint(inputs, credential, ctx.env)),
  chatModelNode("chatOpenAICustom", "gpt-4o-mini", ({ inputs, ctx }, credential) => openAIEndpoint(inputs, credential, ctx.env)),
  chatModelNode("chatLocalAI", "gpt-4", ({ inputs }, credential) => {
    if (!str(inputs.basePath)) throw badRequest("chatLocalAI needs its basePath input (e.g. http://localhost:8080/v1)");
    return bearerEndpoint(String(inputs.basePath).trim(), str(credential.localAIApiKey), "LocalAI", "chatLocalAI basePath");
  }),
  chatModelNode("groqChat", "llama-3.3-70b-versatile", ({ inputs }, credential) => {
    return bearerEndpoint(str(inputs.basepath) ?? "https://api.groq.com/openai/v1", str(credential.groqApiKey), "Groq", "groqChat basepath");
  }),
  chatModelNode("azureChatOpenAI", "gpt-4o-mini", ({ inputs }, credential) => azureEndpoint(inputs, credential)),
  chatModelNode("chatMistralAI", "mistral-small-latest", ({ inputs }, credential) => mistralEndpoint(inputs, credential), (inputs) =>
    compact({
      random_seed: num(inputs.randomSeed),
      safe_prompt: inputs.safeMode === true || inputs.safeMode === "true" ? true : undefined,
    }),
  ),
  chatModelNode("chatOllama", "llama3.2", ({ inputs }) => ollamaEndpoint(inputs), (inputs) =>
    compact({ top_k: num(inputs.topK), seed: num(inputs.seed) }),
  ),
  {
    // Workers AI through the binding; without one, Cloudflare's OpenAI-compatible REST API when the
    // node has a cloudflareApi credential (account id + API token).
    name: "chatCloudflareWorkersAI",
    category: CATEGORY,
    async build(args) {
      const model = str(args.inputs.modelName) ?? str(args.inputs.model) ?? "@cf/meta/llama-3.1-8b-instruct";
      const ai = args.ctx.env.AI as unknown as AiRunner | undefined;
      if (ai && typeof ai.run === "function") return workersAIModel(args, model);
      const credential = await credentialOf(args.node, args.inputs, args.ctx);
      const account = str(credential.cloudflareWorkersAccountId) ?? str(credential.accountId);
      const token = str(credential.cloudflareWorkersApiToken) ?? str(credential.apiToken);
      if (!account || !token) return workersAIModel(args, model); // reports the missing binding
      const base = str(args.inputs.baseUrl) ?? `https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(account)}/ai/v1`;
      return openAICompatible(args, { url: `${base.replace(/\/+$/, "")}/chat/completions`, headers: { Authorization: `Bearer ${token}` }, provider: "Workers AI (REST)" }, model);
    },
  },
];
