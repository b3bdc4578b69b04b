// The `qdrant` vector store entry: Flowise's inputs (qdrantServerUrl, qdrantCollection,
// qdrantSimilarity, qdrantCollectionConfiguration, contentPayloadKey, metadataPayloadKey, batchSize,
// qdrantFilter; credential qdrantApi with qdrantApiKey, optional as in Flowise: a server without
// auth needs none). The server URL is under the outbound policy: refused, it is a 400 when the flow is built.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { checkEndpoint } from "../../../lib/outbound";
import { credentialOf } from "../../config";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { QdrantClient } from "./client";
import { QdrantVectorStore } from "./store";

const DISTANCES = ["Cosine", "Euclid", "Dot", "Manhattan"];

/** The server's origin: Flowise's client reads only the URL's scheme, host and port. */
function serverOrigin(value: unknown): string {
  const raw = str(value);
  if (!raw) throw fail("INVALID_FLOW", "qdrant needs its qdrantServerUrl input (e.g. http://localhost:6333)");
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  } catch {
    // said below
  }
  throw fail("INVALID_FLOW", "qdrant qdrantServerUrl must be an http(s) URL (e.g. http://localhost:6333)");
}

export const qdrantVectorStore: VectorStoreDefinition = {
  name: "qdrant",
  build(config, ctx) {
    const url = serverOrigin(config.qdrantServerUrl);
    const policy = checkEndpoint(url, "qdrant qdrantServerUrl", ctx.env);
    const collection = str(config.qdrantCollection);
    if (!collection) throw fail("INVALID_FLOW", "qdrant needs its qdrantCollection input (the name of a Qdrant collection)");
    const distance = str(config.qdrantSimilarity) ?? "Cosine";
    if (!DISTANCES.includes(distance)) throw fail("INVALID_FLOW", `qdrant qdrantSimilarity must be one of ${DISTANCES.join(", ")}`);
    const batchSize = num(config.batchSize);
    if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1))
      throw fail("INVALID_FLOW", "qdrant batchSize must be a whole number of at least 1");
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      return new QdrantClient({
        url,
        policy,
        collection,
        apiKey: str(credential.qdrantApiKey),
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new QdrantVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, {
      contentKey: str(config.contentPayloadKey) ?? "content",
      metadataKey: str(config.metadataPayloadKey) ?? "metadata",
      distance,
      collectionConfig: jsonObjectInput(config.qdrantCollectionConfiguration, "qdrantCollectionConfiguration"),
      filter: jsonObjectInput(config.qdrantFilter, "qdrantFilter"),
      batchSize,
    });
  },
};
