// chatHuggingFace: Hugging Face's chat completions, which @huggingface/inference's chatCompletion
// (what Flowise's node calls) reaches through the Inference Providers router — an OpenAI-compatible
// API, so the model is an OpenAICompatibleChatModel. Where: the node's `endpoint` (a dedicated
// Inference Endpoint; /v1/chat/completions appended unless there) when the model names no provider
// (":"), else HUGGINGFACE_BASE_URL's service (its /hf-inference path swapped for /v1), else
// https://router.huggingface.co/v1. Unlike Flowise's node (a text LLM sending the prompt as one
// user message), the conversation goes as messages.
import { fail } from "../../errors";
import { num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf } from "../config";
import { openAICompatibleModel } from "./build";
import { httpUrl } from "./endpoints";
import type { ChatModelDefinition } from "./types";

const ROUTER = "https://router.huggingface.co/hf-inference";

export const chatHuggingFace: ChatModelDefinition = {
  name: "chatHuggingFace",
  async build(config, deps) {
    const model = str(config.model) ?? str(config.modelName);
    if (!model) throw fail("INVALID_FLOW", "chatHuggingFace needs its model input (e.g. meta-llama/Llama-3.1-8B-Instruct)");
    const endpoint = str(config.endpoint);
    const dedicated = endpoint && !model.includes(":") && !endpoint.includes("router.huggingface.co");
    let url: string;
    let field: string;
    if (dedicated) {
      field = "chatHuggingFace endpoint";
      const base = httpUrl(endpoint, field);
      url = /\/v1\/chat\/completions$/.test(base) ? base : `${base}/v1/chat/completions`;
    } else {
      field = str(deps.env.HUGGINGFACE_BASE_URL) ? "HUGGINGFACE_BASE_URL" : "chatHuggingFace endpoint";
      const base = httpUrl(str(deps.env.HUGGINGFACE_BASE_URL) ?? ROUTER, field).replace(/\/hf-inference$/, "");
      url = `${base}/v1/chat/completions`;
    }
    checkEndpoint(url, field, deps.env); // a refused URL is the 400, before the credential is asked for
    const key = str((await credentialOf(config, deps)).huggingFaceApiKey);
    if (!key) throw fail("MISSING_CREDENTIAL", "chatHuggingFace needs a huggingFaceApi credential (an access token)");
    const topK = num(config.hfTopK);
    const headers = { Authorization: `Bearer ${key}` };
    // TGI (Inference Endpoints, hf-inference) refuses top_p outside (0, 1) with a 422; 1 is the default anyway.
    const topP = num(config.topP);
    const sent = topP !== undefined && (topP <= 0 || topP >= 1) ? { ...config, topP: undefined } : config;
    return openAICompatibleModel(
      sent,
      { url, headers, provider: "Hugging Face", field },
      model,
      deps,
      topK === undefined ? undefined : { top_k: topK },
    );
  },
};
