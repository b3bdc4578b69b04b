// The `redis` vector store entry (Redis Stack: RediSearch's vector search): Flowise's inputs
// (indexName, replaceIndex, contentKey, metadataKey, vectorKey, topK; credential redisCacheUrlApi
// with redisUrl, or redisCacheApi with host, port, user, password and TLS). The address is under
// the outbound policy's endpoint rule: refused, it is a 400 naming the credential field.
// Flowise writes with LangChain's default keys whatever the key inputs say (they steer only its
// query); here they steer both, so a store written and read here agrees with itself.
import { fail } from "../../../errors";
import { bool, num, str } from "../../../lib/inputs";
import { redisFromCredential } from "../../memory/redis";
import { RedisTcp } from "../../memory/redis/tcp";
import { credentialOf } from "../../config";
import { lazily } from "../remote";
import type { VectorStoreDefinition } from "../types";
import { RediSearchClient } from "./client";
import { RedisVectorStore } from "./store";

/**
 * A key input: LangChain's default when empty; RediSearch field names are words. vectorKey is also written
 * in every FT.SEARCH query (@<key> in its KNN clause), whose syntax reads a "." as punctuation: none there.
 */
function keyOf(value: unknown, input: string, fallback: string, queried = false): string {
  const key = str(value) ?? fallback;
  if (queried ? !/^[A-Za-z_]\w*$/.test(key) : !/^[A-Za-z_][\w.]*$/.test(key))
    throw fail("INVALID_FLOW", `redis ${input} must be a field name (letters, digits${queried ? " and _" : ", _ and ."})`);
  return key;
}

export const redisVectorStore: VectorStoreDefinition = {
  name: "redis",
  build(config, ctx) {
    const index = str(config.indexName);
    if (!index) throw fail("INVALID_FLOW", "redis needs its indexName input (the name of a RediSearch index)");
    if (/\s/.test(index)) throw fail("INVALID_FLOW", "redis indexName may not hold blanks");
    const keys = {
      contentKey: keyOf(config.contentKey, "contentKey", "content"),
      metadataKey: keyOf(config.metadataKey, "metadataKey", "metadata"),
      vectorKey: keyOf(config.vectorKey, "vectorKey", "content_vector", true),
    };
    // One hash field each: RediSearch refuses a schema naming one twice, and a hash would keep only the last.
    if (new Set(Object.values(keys)).size < 3)
      throw fail("INVALID_FLOW", "redis contentKey, metadataKey and vectorKey must be three different field names");
    const client = lazily(async () => {
      const credential = ctx.getCredential ? await credentialOf(config, { getCredential: ctx.getCredential }) : {};
      const redis = redisFromCredential(credential, ctx.env, num(config.timeout));
      if (!redis)
        throw fail("MISSING_CREDENTIAL", "redis is not configured: connect a redisCacheUrlApi (redisUrl) or redisCacheApi credential");
      if (!(redis instanceof RedisTcp))
        throw fail("INVALID_FLOW", "redis needs a redis:// or rediss:// URL: vector search (RediSearch) is not on Upstash's REST API");
      return new RediSearchClient(redis, index, keys);
    });
    return new RedisVectorStore(ctx.embeddings, ctx.db, ctx.namespace, client, {
      ...keys,
      index,
      replaceIndex: bool(config.replaceIndex),
    });
  },
};
