// The `mongoDBAtlas` vector store entry (MongoDB Atlas Vector Search): Flowise's inputs
// (databaseName, collectionName, indexName, textKey "text", embeddingKey "embedding",
// mongoMetadataFilter, topK, searchType/fetchK/lambda; credential mongoDBUrlApi with
// mongoDBConnectUrl) over our own wire client (../../mongodb). The metadata filter is Flowise's:
// each {key: value} becomes {key: {$eq: value}} in $vectorSearch's filter.
import { fail } from "../../../errors";
import { num, str } from "../../../lib/inputs";
import { credentialOf } from "../../config";
import { mongoCollection, mongoNames } from "../../mongodb";
import { jsonObjectInput, lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { MongoAtlasVectorStore } from "./store";

const LABEL = "mongoDBAtlas";

/** A field name: not empty, no leading $, no NUL. */
function keyOf(value: unknown, input: string, fallback: string): string {
  const key = str(value) ?? fallback;
  if (key.startsWith("$") || key.includes("\0") || key === "_id")
    throw fail("INVALID_FLOW", `${LABEL} ${input} must be a field name (not _id, no leading $)`);
  return key;
}

export const mongoDBAtlasVectorStore: VectorStoreDefinition = {
  name: "mongoDBAtlas",
  build(config, ctx) {
    mongoNames({ label: LABEL, databaseName: config.databaseName, collectionName: config.collectionName });
    const textKey = keyOf(config.textKey, "textKey", "text");
    const embeddingKey = keyOf(config.embeddingKey, "embeddingKey", "embedding");
    if (textKey === embeddingKey) throw fail("INVALID_FLOW", `${LABEL} textKey and embeddingKey must differ`);
    const metadata = jsonObjectInput(config.mongoMetadataFilter, "mongoMetadataFilter");
    const filter = metadata && Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, { $eq: v }]));
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      return mongoCollection(credential, {
        label: LABEL,
        databaseName: config.databaseName,
        collectionName: config.collectionName,
        env: ctx.env,
        timeoutMs: num(config.timeout),
        signal: ctx.signal,
      });
    });
    return new MongoAtlasVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, {
      indexName: str(config.indexName) ?? "default",
      textKey,
      embeddingKey,
      filter,
    });
  },
};
