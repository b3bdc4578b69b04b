// The chat model nodes with a native (non-OpenAI-shaped) API: their Flowise inputs and credential
// fields → a model. Base URLs: the node's input when Flowise has one, else a var per service
// (ANTHROPIC_BASE_URL, GOOGLE_GENERATIVE_AI_BASE_URL), else the provider's public API; each under
// the outbound policy (a refusal is a 400 naming where the URL came from).
import { num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf, firstSet, modelNameOf } from "../config";
import { AnthropicChatModel } from "./anthropic";
import { headersOf, sampling } from "./build";
import { GeminiChatModel, safetySettingsOf } from "./gemini";
import { apiUrl } from "./endpoints";
import type { ChatModelDefinition } from "./types";

export const chatAnthropic: ChatModelDefinition = {
  name: "chatAnthropic",
  // LlamaIndex's node takes the same inputs and credential.
  aliases: ["chatAnthropic_LlamaIndex"],
  async build(config, deps) {
    const credential = await credentialOf(config, deps);
    const base = firstSet([config.baseUrl, "chatAnthropic baseUrl"], [deps.env.ANTHROPIC_BASE_URL, "ANTHROPIC_BASE_URL"]) ?? {
      value: "https://api.anthropic.com",
      field: "chatAnthropic endpoint",
    };
    const url = apiUrl(base.value, "v1", "messages", base.field);
    const s = sampling(config);
    return new AnthropicChatModel({
      url,
      policy: checkEndpoint(url, base.field, deps.env),
      apiKey: str(credential.anthropicApiKey),
      model: modelNameOf(config, "claude-3-5-haiku-latest"),
      ...s,
      maxTokens: num(config.maxTokensToSample) ?? s.maxTokens,
      topK: num(config.topK),
      headers: headersOf(config.baseOptions),
      signal: deps.signal,
    });
  },
};

export const chatGoogleGenerativeAI: ChatModelDefinition = {
  name: "chatGoogleGenerativeAI",
  async build(config, deps) {
    const credential = await credentialOf(config, deps);
    const base = firstSet(
      [config.baseUrl, "chatGoogleGenerativeAI baseUrl"],
      [deps.env.GOOGLE_GENERATIVE_AI_BASE_URL, "GOOGLE_GENERATIVE_AI_BASE_URL"],
    ) ?? {
      value: "https://generativelanguage.googleapis.com",
      field: "chatGoogleGenerativeAI endpoint",
    };
    const model = str(config.customModelName) ?? modelNameOf(config, "gemini-1.5-flash-latest");
    const baseUrl = apiUrl(base.value, "v1beta", "models", base.field);
    return new GeminiChatModel({
      baseUrl,
      policy: checkEndpoint(baseUrl, base.field, deps.env),
      apiKey: str(credential.googleGenerativeAPIKey),
      model,
      ...sampling(config),
      topK: num(config.topK),
      safetySettings: safetySettingsOf(config.harmCategory, config.harmBlockThreshold),
      signal: deps.signal,
    });
  },
};

export const nativeChatModels: ChatModelDefinition[] = [chatAnthropic, chatGoogleGenerativeAI];
