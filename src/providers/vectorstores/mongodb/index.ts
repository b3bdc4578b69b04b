// The `mongoDBAtlas` vector store entry (MongoDB Atlas Vector Search): Flowise's inputs
// (databaseName, collectionName, indexName, textKey "text", embeddingKey "embedding",
// mongoMetadataFilter, topK, searchType/fetchK/lambda; credential mongoDBUrlApi with
// mongoDBConnectUrl) over our own wire client (../../mongodb). The metadata filter is Flowise's:
// each {key: value} becomes {key: {$eq: value}} in $vectorSearch's filter (see atlasFilter).
import { fail } from "../../../errors";
import { isObject, num, str } from "../../../lib/inputs";
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

/**
 * Flowise's mongoMetadataFilter as $vectorSearch's filter: {key: value} → {key: {$eq: value}}. Atlas refuses
 * a document as a comparison's operand ("Operand type is not supported for $vectorSearch: object"), which
 * Flowise sends for these: an operator object ({"$in": […]}, {"$gte": 3}) and a top-level $and / $or are
 * kept as written, and a nested object is compared field by field at its dotted path ({"loc.pageNumber": …}).
 */
export function atlasFilter(metadata: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    const path = prefix + key;
    if (!prefix && key.startsWith("$")) out[key] = value;
    else if (isObject(value) && Object.keys(value).some((k) => k.startsWith("$"))) out[path] = value;
    else if (isObject(value)) Object.assign(out, atlasFilter(value, `${path}.`));
    else out[path] = { $eq: value };
  }
  return out;
}

export const mongoDBAtlasVectorStore: VectorStoreDefinition = {
  name: "mongoDBAtlas",
  build(config, ctx) {
    mongoNames({ label: LABEL, databaseName: config.databaseName, collectionName: config.collectionName });
    const textKey = keyOf(config.textKey, "textKey", "text");
    const embeddingKey = keyOf(config.embeddingKey, "embeddingKey", "embedding");
    if (textKey === embeddingKey) throw fail("INVALID_FLOW", `${LABEL} textKey and embeddingKey must differ`);
    const metadata = jsonObjectInput(config.mongoMetadataFilter, "mongoMetadataFilter");
    const filter = metadata && atlasFilter(metadata);
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
