// Memories kept in Redis, as Flowise's RedisBackedChatMemory (credential redisCacheUrlApi or
// redisCacheApi) and UpstashRedisBackedChatMemory (baseURL, credential upstashRedisMemoryApi).
// Unlike the built-in memories they write: after a successful run the exchange is pushed to the
// session's list (src/providers/memory/redis: Flowise's layout, so sessions carry over).
// Inputs: sessionId (default: the run's), sessionTTL (seconds), memoryKey, windowSize (messages).
import type { MemoryInstance } from "../instances";
import { memoryInstance } from "../instances";
import { credentialOf, num, str } from "../../core/inputs";
import type { BuildArgs, NodeDefinition } from "../types";
import {
  type RedisCommands,
  loadRedisHistory,
  redisFromCredential,
  saveRedisExchange,
  upstashFromInputs,
} from "../../../providers/memory/redis";
import { fail } from "../../../errors";

const CATEGORY = "Memory";

function redisMemory({ node, inputs, ctx }: BuildArgs, client: RedisCommands): MemoryInstance {
  const ttl = num(inputs.sessionTTL);
  const windowSize = num(inputs.windowSize);
  const options = { client, key: str(inputs.sessionId) ?? ctx.sessionId, ttl, windowSize: windowSize ? Math.floor(windowSize) : undefined };
  // The request's history first, as Flowise prepends it.
  const read = () => loadRedisHistory(options).then((stored) => [...ctx.history, ...stored]);
  return memoryInstance(node.data.label, str(inputs.memoryKey) ?? "chat_history", read, (question, answer) =>
    saveRedisExchange(options, question, answer),
  );
}

export const redisMemoryNodes: NodeDefinition[] = [
  {
    name: "RedisBackedChatMemory",
    category: CATEGORY,
    async build(args) {
      const client = redisFromCredential(await credentialOf(args.node, args.inputs, args.ctx), args.ctx.runtime.providers);
      if (!client)
        throw fail(
          "MISSING_CREDENTIAL",
          `${args.node.data.label} is not configured: connect a redisCacheUrlApi credential (redisUrl) or a ` +
            `redisCacheApi one (host, port, password)`,
        );
      return redisMemory(args, client);
    },
  },
  // Flowise 3's name, and the capitalised one older flows were saved with.
  ...["upstashRedisBackedChatMemory", "UpstashRedisBackedChatMemory"].map(
    (name): NodeDefinition => ({
      name,
      category: CATEGORY,
      build: async (args) =>
        redisMemory(
          args,
          upstashFromInputs(str(args.inputs.baseURL), await credentialOf(args.node, args.inputs, args.ctx), args.ctx.runtime.providers),
        ),
    }),
  ),
];
