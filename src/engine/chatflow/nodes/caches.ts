// Flowise's LLM caches (category Cache): a chat model's `cache` input, LangChain's BaseCache keyed by
// the prompt and the model's settings (its llm string). A cached answer is given again without
// calling the model; a streamed answer is neither read from nor written to it (LangChain's rule).
// - inMemoryCache: per chatflow, in this isolate's memory (a Worker has many isolates, each with its
//   own; lost when the isolate is) — at most MAX_ENTRIES answers per isolate across all chatflows,
//   the least recently used dropped, so memory stays bounded however many flows use one;
// - redisCache: Redis (credential redisCacheApi or redisCacheUrlApi: TCP sockets, or Upstash's REST
//   API for an https:// redisUrl), one key per generation, `ttl` ms when set;
// - upstashRedisCache: Upstash Redis's REST API (credential upstashRedisApi).
// - momentoCache: Momento's HTTP API (credential momentoCacheApi; providers/memory/momento.ts), a day's TTL.
// Keys are SHA-256 of prompt_llmString_index (Flowise hashes with object-hash: its keys differ).
import { BaseCache, deserializeStoredGeneration, serializeGeneration } from "@langchain/core/caches";
import type { Generation } from "@langchain/core/outputs";
import { fail } from "../../../errors";
import { checkEndpoint } from "../../../lib/outbound";
import { redisFromCredential } from "../../../providers/memory/redis";
import type { RedisCommands } from "../../../providers/memory/redis";
import { UpstashRest } from "../../../providers/memory/redis/upstash";
import { MomentoLlmCache, MomentoRest, momentoTarget } from "../../../providers/memory/momento";
import { credentialOf, num, str } from "../../core/inputs";
import type { NodeDefinition } from "../types";

const CATEGORY = "Cache";
const MAX_ENTRIES = 1000;

async function keyOf(...parts: string[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join("_")));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The isolate's in-memory cache: keys are the chatflow's id and the prompt's hash; insertion order is age. */
const memory = new Map<string, Generation[]>();

class IsolateCache extends BaseCache {
  constructor(private readonly chatflowId: string) {
    super();
  }
  async lookup(prompt: string, llmKey: string): Promise<Generation[] | null> {
    const key = `${this.chatflowId}\0${await keyOf(prompt, llmKey)}`;
    const hit = memory.get(key);
    if (!hit) return null;
    memory.delete(key); // most recently used last
    memory.set(key, hit);
    return hit;
  }
  async update(prompt: string, llmKey: string, value: Generation[]): Promise<void> {
    const key = `${this.chatflowId}\0${await keyOf(prompt, llmKey)}`;
    memory.delete(key);
    memory.set(key, value);
    if (memory.size > MAX_ENTRIES) memory.delete(memory.keys().next().value as string);
  }
}

class RedisLlmCache extends BaseCache {
  constructor(
    private readonly redis: RedisCommands,
    private readonly ttlMs?: number,
  ) {
    super();
  }
  async lookup(prompt: string, llmKey: string): Promise<Generation[] | null> {
    const generations: Generation[] = [];
    for (let i = 0; ; i++) {
      const [value] = await this.redis.pipeline([["GET", await keyOf(prompt, llmKey, String(i))]]);
      if (typeof value !== "string") break;
      generations.push(deserializeStoredGeneration(JSON.parse(value)));
    }
    return generations.length ? generations : null;
  }
  async update(prompt: string, llmKey: string, value: Generation[]): Promise<void> {
    const commands = await Promise.all(
      value.map(async (g, i) => {
        const set = ["SET", await keyOf(prompt, llmKey, String(i)), JSON.stringify(serializeGeneration(g))];
        return this.ttlMs ? [...set, "PX", this.ttlMs] : set;
      }),
    );
    if (commands.length) await this.redis.pipeline(commands);
  }
}

export const cacheNodes: NodeDefinition[] = [
  {
    name: "inMemoryCache",
    category: CATEGORY,
    async build({ ctx }) {
      return new IsolateCache(ctx.chatflowid ?? "");
    },
  },
  {
    name: "redisCache",
    category: CATEGORY,
    async build({ node, inputs, ctx }) {
      const credential = await credentialOf(node, inputs, ctx);
      const redis = redisFromCredential(credential, ctx.runtime.providers);
      if (!redis)
        throw fail("MISSING_CREDENTIAL", `${node.data.label} needs a redisCacheUrlApi (redisUrl) or redisCacheApi (host) credential`);
      const ttl = num(inputs.ttl);
      return new RedisLlmCache(redis, ttl && ttl > 0 ? Math.round(ttl) : undefined);
    },
  },
  {
    name: "upstashRedisCache",
    category: CATEGORY,
    async build({ node, inputs, ctx }) {
      const credential = await credentialOf(node, inputs, ctx);
      const url = str(credential.upstashConnectionUrl);
      const token = str(credential.upstashConnectionToken);
      if (!url || !token)
        throw fail(
          "MISSING_CREDENTIAL",
          `${node.data.label} needs an upstashRedisApi credential with upstashConnectionUrl and upstashConnectionToken`,
        );
      const policy = checkEndpoint(url, "upstashRedisApi credential upstashConnectionUrl", ctx.runtime.providers);
      return new RedisLlmCache(new UpstashRest(url, token, policy));
    },
  },
  {
    name: "momentoCache",
    category: CATEGORY,
    async build({ node, inputs, ctx }) {
      const credential = await credentialOf(node, inputs, ctx);
      const apiKey = str(credential.momentoApiKey);
      const cache = str(credential.momentoCache);
      if (!apiKey || !cache)
        throw fail("MISSING_CREDENTIAL", `${node.data.label} needs a momentoCacheApi credential with momentoCache and momentoApiKey`);
      const { token, cacheHost } = momentoTarget(apiKey, str(credential.momentoEndpoint));
      const env = ctx.runtime.providers;
      const base = str(env.MOMENTO_BASE_URL);
      const url = base ?? `https://api.${cacheHost}`;
      const policy = checkEndpoint(url, base ? "MOMENTO_BASE_URL" : "momentoCacheApi cache endpoint", env);
      return new MomentoLlmCache(new MomentoRest(url, cache, token, policy));
    },
  },
];

/** A chat model's `cache` input, when it holds one of these caches. */
export const llmCacheOf = (value: unknown): BaseCache | undefined => (value instanceof BaseCache ? value : undefined);
