// Memory nodes read the conversation so far through ctx.loadMemory (stored messages of this
// chatflow and session, the request's history first). They never write: the prediction layer
// stores both messages after a successful run.
import type { MemoryInstance } from "../instances";
import { turnsToMessages } from "../instances";
import type { BuildArgs, NodeDefinition } from "../types";
import { num, str } from "./util";

const CATEGORY = "Memory";

function memory({ node, inputs, ctx }: BuildArgs, limit?: number): MemoryInstance {
  let turns: ReturnType<MemoryInstance["load"]> | undefined;
  const load = () => (turns ??= ctx.loadMemory(limit));
  return {
    kind: "memory",
    label: node.data.label,
    memoryKey: str(inputs.memoryKey) ?? "chat_history",
    load,
    messages: async () => turnsToMessages(await load()),
  };
}

export const memoryNodes: NodeDefinition[] = [
  { name: "bufferMemory", category: CATEGORY, build: async (args) => memory(args) },
  {
    // The last k exchanges (k user + k assistant messages).
    name: "bufferWindowMemory",
    category: CATEGORY,
    build: async (args) => memory(args, Math.max(1, Math.floor(num(args.inputs.k) ?? 4)) * 2),
  },
];
