// The `vectara` vector store entry: Flowise's inputs (filter, sentencesBefore, sentencesAfter, lambda,
// topK default 5, mmrK default 50, mmrDiversityBias: MMR when above 0), credential vectaraApi with its
// Flowise fields (so imported flows load): corpusID now holds Vectara API v2 corpus keys (one or several,
// comma-separated), apiKey; customerID is ignored (v2 needs none). The host is VECTARA_BASE_URL (default
// https://api.vectara.io). It takes no embeddings: Vectara embeds text itself (store.ts).
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { VECTARA_BASE, VectaraClient, type VectaraSearch } from "./client";
import { VectaraStore } from "./store";

export { VectaraStore, hitsOf } from "./store";
export type { VectaraQueryResponse, VectaraSearch, VectaraSummaryRequest } from "./client";

/** A number input within [min, max], or a 400 naming it. */
function bounded(config: Record<string, unknown>, name: string, min: number, max = Number.POSITIVE_INFINITY): number | undefined {
  const value = config[name];
  if (value === undefined || value === null || value === "") return undefined;
  const n = num(value);
  if (n === undefined || n < min || n > max)
    throw fail(
      "INVALID_FLOW",
      `vectara ${name} must be a number from ${min}${max < Infinity ? ` to ${max}` : " up"}; got ${JSON.stringify(value)}`,
    );
  return n;
}

/** The node's search settings, as Flowise reads them (a lambda or sentence count of 0 is left to Vectara). */
export function vectaraSearchOf(config: Record<string, unknown>): VectaraSearch {
  return {
    filter: str(config.filter),
    lambda: bounded(config, "lambda", 0, 1) || undefined,
    sentencesBefore: bounded(config, "sentencesBefore", 0) || undefined,
    sentencesAfter: bounded(config, "sentencesAfter", 0) || undefined,
    mmrDiversityBias: bounded(config, "mmrDiversityBias", 0, 1),
    mmrK: bounded(config, "mmrK", 1) ?? 50,
  };
}

export const vectaraVectorStore: VectorStoreDefinition = {
  name: "vectara",
  embedsText: true,
  build(config, ctx) {
    const search = vectaraSearchOf(config);
    const k = Math.floor(bounded(config, "topK", 1) ?? 5);
    const configured = str(ctx.env.VECTARA_BASE_URL);
    const base = (configured ?? VECTARA_BASE).replace(/\/+$/, "");
    const policy = checkEndpoint(base, configured ? "VECTARA_BASE_URL" : "Vectara's API", ctx.env);
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const apiKey = str(credential.apiKey);
      const corpusKeys = (str(credential.corpusID) ?? "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      if (!apiKey || !corpusKeys.length)
        throw fail(
          "MISSING_CREDENTIAL",
          "vectara is not configured: connect a vectaraApi credential with corpusID (corpus keys) and apiKey",
        );
      return new VectaraClient({ base, policy, apiKey, corpusKeys, timeoutMs: num(config.timeout), signal: ctx.signal });
    });
    return new VectaraStore(ctx.db, ctx.namespace, client, search, k);
  },
};
