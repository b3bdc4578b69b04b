// Memory nodes read the conversation so far through ctx.loadMemory (stored messages of this
// chatflow and session, the request's history first). They never write: the prediction layer
// stores both messages after a successful run. (Memories kept outside — Redis, redis-memory.ts —
// write their own store through MemoryInstance.save after the run.)
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { MemoryInstance } from "../instances";
import { memoryInstance, requireChatModel, turnsToText } from "../instances";
import { callModel } from "../../core/llm";
import type { BuildArgs, NodeDefinition } from "../types";
import { num, str } from "../../core/inputs";
import { summaryBufferMemoryNode } from "./summary-buffer-memory";

const CATEGORY = "Memory";

function memory({ node, inputs, ctx }: BuildArgs, limit?: number): MemoryInstance {
  return memoryInstance(node.data.label, str(inputs.memoryKey) ?? "chat_history", () => ctx.loadMemory(limit));
}

export const memoryNodes: NodeDefinition[] = [
  { name: "bufferMemory", category: CATEGORY, build: async (args) => memory(args) },
  {
    // The last k exchanges (k user + k assistant messages).
    name: "bufferWindowMemory",
    category: CATEGORY,
    build: async (args) => memory(args, Math.max(1, Math.floor(num(args.inputs.k) ?? 4)) * 2),
  },
  {
    // The conversation so far, summarised by its chat model (one extra call per run with history).
    name: "conversationSummaryMemory",
    category: CATEGORY,
    async build(args) {
      const model = requireChatModel(args.inputs.model, args.node.data.label);
      const base = memory(args);
      let summary: Promise<string> | undefined;
      const summarise = async () => {
        const turns = await base.load();
        if (!turns.length) return "";
        return callModel(model, [new HumanMessage(`${SUMMARY_PROMPT}\n\n${turnsToText(turns)}\n\nSummary:`)], args.ctx);
      };
      return {
        ...base,
        async messages() {
          const text = await (summary ??= summarise());
          return text ? [new SystemMessage(`Summary of the conversation so far:\n${text}`)] : [];
        },
      } satisfies MemoryInstance;
    },
  },
  summaryBufferMemoryNode,
];

const SUMMARY_PROMPT =
  "Summarise the conversation below in a few sentences, keeping names, facts, decisions and open questions the " +
  "assistant will need to continue it.";
