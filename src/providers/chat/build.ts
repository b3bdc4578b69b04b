// From a provider config (Flowise's input names) to a model instance: the inputs every chat model
// node shares (sampling, limits, deadline, stop words, headers), and the two model classes we have.
import { fail } from "../../errors";
import { jsonObject, num, str } from "../../lib/inputs";
import { checkEndpoint } from "../../lib/outbound";
import type { ProviderDeps } from "../types";
import type { ChatEndpoint } from "./endpoints";
import { timeoutOf } from "../../lib/run-control";
import { OpenAICompatibleChatModel } from "./openai-compatible";
import { type AiRunner, WORKERS_AI_MISSING, WorkersAIChatModel } from "./workers-ai";

export function sampling(config: Record<string, unknown>) {
  const stop = str(config.stopSequence) ?? str(config.stop);
  return {
    temperature: num(config.temperature),
    // maxTokensToSample: the LlamaIndex twins' name (chatMistral_LlamaIndex).
    maxTokens: num(config.maxTokens) ?? num(config.maxOutputTokens) ?? num(config.numPredict) ?? num(config.maxTokensToSample),
    topP: num(config.topP),
    timeoutMs: timeoutOf(config.timeout),
    stop: stop
      ? stop
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined,
  };
}

/** baseOptions (JSON): default headers for every request, as Flowise passes them (or under `headers`). */
export function headersOf(value: unknown): Record<string, string> {
  const base = jsonObject(value);
  if (!base) return {};
  const source = base.headers && typeof base.headers === "object" ? (base.headers as Record<string, unknown>) : base;
  return Object.fromEntries(
    Object.entries(source)
      .filter(([, v]) => typeof v === "string" || typeof v === "number")
      .map(([k, v]) => [k, String(v)]),
  );
}

/** The model at `endpoint`, which the outbound policy must allow (else a 400 naming where its URL came from). */
export function openAICompatibleModel(
  config: Record<string, unknown>,
  endpoint: ChatEndpoint,
  model: string,
  deps: ProviderDeps,
  extraBody?: Record<string, unknown>,
): OpenAICompatibleChatModel {
  return new OpenAICompatibleChatModel({
    endpoint: { ...endpoint, headers: { ...headersOf(config.baseOptions), ...endpoint.headers } },
    policy: checkEndpoint(endpoint.url, endpoint.field, deps.env),
    model,
    ...sampling(config),
    frequencyPenalty: num(config.frequencyPenalty),
    presencePenalty: num(config.presencePenalty),
    extraBody,
    signal: deps.signal,
  });
}

export const isAiRunner = (v: unknown): v is AiRunner => !!v && typeof (v as AiRunner).run === "function";

/** A Workers AI model over the binding; 400 when it is not bound. */
export function workersAIModel(config: Record<string, unknown>, model: string, deps: ProviderDeps): WorkersAIChatModel {
  const ai: unknown = deps.env.AI;
  if (!isAiRunner(ai)) throw fail("MISSING_CREDENTIAL", `${WORKERS_AI_MISSING} (model ${model})`);
  const { temperature, maxTokens, topP, timeoutMs } = sampling(config);
  return new WorkersAIChatModel({ ai, model, temperature, maxTokens, topP, timeoutMs, signal: deps.signal });
}
