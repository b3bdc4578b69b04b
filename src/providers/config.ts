// Reading a provider's config: Flowise's input names as nodes (and Agentflow's llmModelConfig)
// hold them, with the credential named by id.
import { str } from "../lib/inputs";
import type { ProviderDeps } from "./types";

/** The credential a config names (`credential`, or Flowise's FLOWISE_CREDENTIAL_ID): its values, {} when none. */
export async function credentialOf(
  config: Record<string, unknown>,
  deps: Pick<ProviderDeps, "getCredential">,
): Promise<Record<string, unknown>> {
  const id = str(config.credential) ?? str(config.FLOWISE_CREDENTIAL_ID);
  return id ? deps.getCredential(id) : {};
}

/**
 * The first of `sources` that is set, with the name of where it came from ("chatOpenAI basepath",
 * "openAIApi credential basePath", "OPENAI_BASE_URL"): an endpoint refused by the outbound policy
 * is a 400 naming it.
 */
export function firstSet(...sources: Array<[value: unknown, field: string]>): { value: string; field: string } | undefined {
  for (const [value, field] of sources) {
    const s = str(value);
    if (s) return { value: s, field };
  }
  return undefined;
}

/** `modelName` (Flowise's name), else `model`, else the provider's default. */
export const modelNameOf = (config: Record<string, unknown>, fallback: string): string =>
  str(config.modelName) ?? str(config.model) ?? fallback;
