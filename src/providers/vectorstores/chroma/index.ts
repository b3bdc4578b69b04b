// The `chroma` vector store entry: Flowise's inputs (collectionName, chromaURL, chromaMetadataFilter;
// optional credential chromaApi with chromaApiKey, chromaTenant, chromaDatabase). The server is
// chromaURL's origin; without one, Flowise's default: Chroma Cloud (https://api.trychroma.com:8000)
// for a key with a tenant or database, else http://localhost:8000. Under the outbound policy: a
// refused chromaURL is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { ChromaClient } from "./client";
import { ChromaVectorStore } from "./store";

export const CHROMA_CLOUD = "https://api.trychroma.com:8000";
const CHROMA_LOCAL = "http://localhost:8000";

/** chromaURL's origin (Flowise's client reads only the URL's scheme, host and port). */
function serverOrigin(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  } catch {
    // said below
  }
  throw fail("INVALID_FLOW", "chroma chromaURL must be an http(s) URL (e.g. http://localhost:8000)");
}

export const chromaVectorStore: VectorStoreDefinition = {
  name: "chroma",
  build(config, ctx) {
    const given = str(config.chromaURL);
    const url = given ? serverOrigin(given) : undefined;
    if (url) checkEndpoint(url, "chroma chromaURL", ctx.env);
    const collection = str(config.collectionName);
    if (!collection) throw fail("INVALID_FLOW", "chroma needs its collectionName input (the name of a Chroma collection)");
    const filter = jsonObjectInput(config.chromaMetadataFilter, "chromaMetadataFilter");
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const apiKey = str(credential.chromaApiKey);
      const tenant = str(credential.chromaTenant);
      const database = str(credential.chromaDatabase);
      const server = url ?? (apiKey && (tenant || database) ? CHROMA_CLOUD : CHROMA_LOCAL);
      const field = url ? "chroma chromaURL" : "chroma's default server (no chromaURL)";
      return new ChromaClient({
        url: server,
        policy: checkEndpoint(server, field, ctx.env),
        tenant: tenant ?? "default_tenant",
        database: database ?? "default_database",
        collection,
        apiKey,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new ChromaVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, filter);
  },
};
