// Flowise's embeddings caches (category Cache): LangChain's CacheBackedEmbeddings over the embeddings
// node on their `embeddings` input, handed on wherever embeddings go (a vector store's embeddings
// input). A document text's vector is looked up under namespace + SHA-256 of the text (LangChain's key,
// so what Flowise stored in a Redis is read here) and the model is asked only for the texts not found;
// a query is embedded by the model each time (LangChain caches documents only).
// - inMemoryEmbeddingCache: per chatflow, in this isolate's memory (a Worker has many isolates, each
//   with its own; lost when the isolate is): at most MAX_FLOATS numbers per isolate across all
//   chatflows, kept as float32, the least recently used vectors dropped;
// - redisEmbeddingsCache: Redis (credential redisCacheApi or redisCacheUrlApi: TCP, or Upstash's REST
//   API for an https:// redisUrl), one key per text holding its vector as JSON, SET … EX ttl: Flowise
//   labels ttl milliseconds but LangChain's RedisByteStore gives it to Redis as seconds (default 3600).
import { Embeddings } from "@langchain/core/embeddings";
import { fail } from "../../../errors";
import { sha256Hex } from "../../../lib/crypto";
import { redisFromCredential } from "../../../providers/memory/redis";
import type { RedisCommands } from "../../../providers/memory/redis";
import { RespError } from "../../../providers/memory/redis/resp";
import { credentialOf, num, str } from "../../core/inputs";
import type { BuildArgs, NodeDefinition } from "../types";
import { requireEmbeddings } from "./embeddings";

const CATEGORY = "Cache";
/** Numbers the in-memory caches keep per isolate (16 MB as float32). */
export const MAX_FLOATS = 4_000_000;

interface VectorCache {
  get(keys: string[]): Promise<Array<number[] | undefined>>;
  set(entries: Array<[string, number[]]>): Promise<void>;
}

class CacheBackedEmbeddings extends Embeddings {
  constructor(
    private readonly underlying: Embeddings,
    private readonly cache: VectorCache,
    private readonly namespace: string,
  ) {
    super({});
  }

  embedQuery(text: string): Promise<number[]> {
    return this.underlying.embedQuery(text);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const keys = await Promise.all(texts.map(async (t) => this.namespace + (await sha256Hex(t))));
    const vectors = await this.cache.get(keys);
    const missing = texts.flatMap((_, i) => (vectors[i] ? [] : [i]));
    if (missing.length) {
      const fresh = await this.underlying.embedDocuments(missing.map((i) => texts[i]));
      await this.cache.set(missing.map((i, j) => [keys[i], fresh[j]]));
      missing.forEach((i, j) => (vectors[i] = fresh[j]));
    }
    return vectors as number[][];
  }
}

/** The isolate's in-memory vectors: keys are the chatflow's id and the text's key; insertion order is age. */
const memory = new Map<string, Float32Array>();
let floats = 0;

class IsolateVectors implements VectorCache {
  constructor(private readonly chatflowId: string) {}
  async get(keys: string[]): Promise<Array<number[] | undefined>> {
    return keys.map((k) => {
      const key = `${this.chatflowId}\0${k}`;
      const hit = memory.get(key);
      if (!hit) return undefined;
      memory.delete(key); // most recently used last
      memory.set(key, hit);
      return Array.from(hit);
    });
  }
  async set(entries: Array<[string, number[]]>): Promise<void> {
    for (const [k, vector] of entries) {
      const key = `${this.chatflowId}\0${k}`;
      floats -= memory.get(key)?.length ?? 0;
      memory.delete(key);
      if (vector.length > MAX_FLOATS) continue;
      memory.set(key, Float32Array.from(vector));
      floats += vector.length;
      while (floats > MAX_FLOATS) {
        const [oldest, v] = memory.entries().next().value as [string, Float32Array];
        memory.delete(oldest);
        floats -= v.length;
      }
    }
  }
}

class RedisVectors implements VectorCache {
  constructor(
    private readonly redis: RedisCommands,
    private readonly ttlSeconds?: number,
  ) {}
  private checked<T>(replies: T[]): T[] {
    for (const r of replies)
      if (r instanceof RespError) throw fail("UPSTREAM_FAILED", `${this.redis.label} answered an error: ${r.message}`);
    return replies;
  }
  async get(keys: string[]): Promise<Array<number[] | undefined>> {
    if (!keys.length) return [];
    const replies = this.checked(await this.redis.pipeline(keys.map((k) => ["GET", k])));
    return replies.map((r) => {
      if (typeof r !== "string") return undefined;
      try {
        const v = JSON.parse(r);
        return Array.isArray(v) && v.every((x) => typeof x === "number") ? v : undefined;
      } catch {
        return undefined;
      }
    });
  }
  async set(entries: Array<[string, number[]]>): Promise<void> {
    if (!entries.length) return;
    const ttl = this.ttlSeconds ? ["EX", this.ttlSeconds] : [];
    this.checked(await this.redis.pipeline(entries.map(([k, v]) => ["SET", k, JSON.stringify(v), ...ttl])));
  }
}

const cacheOver = ({ node, inputs }: BuildArgs, cache: VectorCache) =>
  new CacheBackedEmbeddings(requireEmbeddings(inputs.embeddings, `${node.data.label} (${node.id})`), cache, str(inputs.namespace) ?? "");

export const embeddingCacheNodes: NodeDefinition[] = [
  {
    name: "inMemoryEmbeddingCache",
    category: CATEGORY,
    build: async (args) => cacheOver(args, new IsolateVectors(args.ctx.chatflowid ?? "")),
  },
  {
    name: "redisEmbeddingsCache",
    category: CATEGORY,
    async build(args) {
      const { node, inputs, ctx } = args;
      const credential = await credentialOf(node, inputs, ctx);
      const redis = redisFromCredential(credential, ctx.runtime.providers);
      if (!redis)
        throw fail("MISSING_CREDENTIAL", `${node.data.label} needs a redisCacheUrlApi (redisUrl) or redisCacheApi (host) credential`);
      const ttl = Math.floor(num(inputs.ttl) ?? 3600);
      return cacheOver(args, new RedisVectors(redis, ttl > 0 ? ttl : undefined));
    },
  },
];
