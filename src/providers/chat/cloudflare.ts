// Workers AI chat: through the AI binding; chatCloudflareWorkersAI without a binding falls back to
// Cloudflare's OpenAI-compatible REST API when its cloudflareApi credential has an account and token.
import { str } from "../../lib/inputs";
import { credentialOf, modelNameOf } from "../config";
import { isAiRunner, openAICompatibleModel, workersAIModel } from "./build";
import type { ChatModelDefinition } from "./types";

export const chatCloudflareWorkersAI: ChatModelDefinition = {
  name: "chatCloudflareWorkersAI",
  async build(config, deps) {
    const model = modelNameOf(config, "@cf/meta/llama-3.1-8b-instruct");
    if (isAiRunner(deps.env.AI)) return workersAIModel(config, model, deps);
    const credential = await credentialOf(config, deps);
    // Flowise's cloudflareApi credential (the studio's form) names them cloudflareAccountId / cloudflareApiToken.
    const account = str(credential.cloudflareAccountId) ?? str(credential.cloudflareWorkersAccountId) ?? str(credential.accountId);
    const token = str(credential.cloudflareApiToken) ?? str(credential.cloudflareWorkersApiToken) ?? str(credential.apiToken);
    if (!account || !token) return workersAIModel(config, model, deps); // reports the missing binding
    const base = str(config.baseUrl) ?? `https://api.cloudflare.com/client/v4/accounts/${encodeURIComponent(account)}/ai/v1`;
    const field = str(config.baseUrl) ? "chatCloudflareWorkersAI baseUrl" : "cloudflareApi credential account";
    const endpoint = {
      url: `${base.replace(/\/+$/, "")}/chat/completions`,
      headers: { Authorization: `Bearer ${token}` },
      provider: "Workers AI (REST)",
      field,
    };
    return openAICompatibleModel(config, endpoint, model, deps);
  },
};
