// The `zep` (open-source Zep v1: baseURL, zepCollection, zepMetadataFilter, dimension; optional
// zepMemoryApi credential) and `zepCloud` (Zep Cloud v2: zepCollection, zepMetadataFilter;
// zepMemoryApi credential required; ZEP_CLOUD_BASE_URL) vector stores. zepCloud takes no
// embeddings: Zep Cloud embeds the documents and the query (embedsText).
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreContext, VectorStoreDefinition } from "../types";
import { zepApi } from "./client";
import { ZepStore } from "./store";

function zepStore(provider: "zep" | "zepCloud", config: Record<string, unknown>, ctx: VectorStoreContext): ZepStore {
  const collection = str(config.zepCollection);
  if (!collection) throw fail("INVALID_FLOW", `${provider} needs its zepCollection (the Zep collection's name)`);
  const filter = jsonObjectInput(config.zepMetadataFilter, `${provider} zepMetadataFilter`);
  const baseURL = provider === "zep" ? (str(config.baseURL) ?? "http://127.0.0.1:8000") : undefined;
  const options = { env: ctx.env, baseURL, label: provider, timeoutMs: num(config.timeout), signal: ctx.signal };
  // The URL is checked when the store is built (a refused one is a 400 before anything is sent).
  if (baseURL) zepApi(options);
  const api = lazily(async () => {
    const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
    return zepApi({ ...options, apiKey: str(credential.apiKey) });
  });
  return new ZepStore(provider, ctx.embeddings, ctx.db, ctx.namespace, api, collection, filter);
}

export const zepVectorStore: VectorStoreDefinition = { name: "zep", build: (config, ctx) => zepStore("zep", config, ctx) };

export const zepCloudVectorStore: VectorStoreDefinition = {
  name: "zepCloud",
  embedsText: true,
  build: (config, ctx) => zepStore("zepCloud", config, ctx),
};
