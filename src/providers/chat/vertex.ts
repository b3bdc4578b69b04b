// Flowise's Google Vertex AI chat model (chatGoogleVertexAI) and text LLM (googlevertexai): Gemini
// models on Vertex AI, whose generateContent / streamGenerateContent?alt=sse take and answer what the
// Gemini API does, so GeminiChatModel calls them with Vertex's URL and a service account's bearer
// token (providers/google/). Claude models on Vertex (Anthropic's rawPredict) and the retired PaLM
// models (text-bison, code-*) are refused with a 400 saying why.
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { VERTEX_PROVIDER, vertexTarget } from "../google/vertex";
import type { ProviderDeps } from "../types";
import { sampling } from "./build";
import { GeminiChatModel } from "./gemini";
import type { ChatModelDefinition } from "./types";

function vertexModelName(config: Record<string, unknown>, node: string, fallback?: string): string {
  const model = str(config.customModelName) ?? str(config.modelName) ?? str(config.model) ?? fallback;
  if (!model) throw fail("INVALID_FLOW", `${node} needs its Model Name (e.g. gemini-2.5-flash)`);
  if (/^claude/i.test(model))
    throw fail("INVALID_FLOW", `${node}: Anthropic models on Vertex AI (${model}) are not supported; use a Gemini model, or chatAnthropic`);
  if (/^(text|chat|code)-(bison|gecko)/.test(model))
    throw fail(
      "INVALID_FLOW",
      `${node}: ${model} is a PaLM model Google has retired from Vertex AI; choose a Gemini model (e.g. gemini-2.5-flash)`,
    );
  return model;
}

async function vertexChatModel(config: Record<string, unknown>, node: string, deps: ProviderDeps, fallback?: string) {
  const model = vertexModelName(config, node, fallback);
  const target = await vertexTarget(config, node, deps);
  return new GeminiChatModel({
    provider: VERTEX_PROVIDER,
    baseUrl: target.modelsUrl,
    policy: target.policy,
    auth: target.auth,
    model,
    ...sampling(config),
    topK: num(config.topK),
    signal: deps.signal,
  });
}

export const chatGoogleVertexAI: ChatModelDefinition = {
  name: "chatGoogleVertexAI",
  build: (config, deps) => vertexChatModel(config, "chatGoogleVertexAI", deps),
};

export const googleVertexAI: ChatModelDefinition = {
  name: "googlevertexai",
  category: "LLMs",
  build: (config, deps) => vertexChatModel(config, "googlevertexai", deps, "gemini-2.5-flash"),
};

export const vertexChatModels: ChatModelDefinition[] = [chatGoogleVertexAI, googleVertexAI];
