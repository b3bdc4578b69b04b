// conversationSummaryBufferMemory (Flowise's "Conversation Summary Buffer Memory"): the
// conversation so far as messages, until it passes maxTokenLimit tokens (default 2000); then the
// oldest messages are taken off until it fits, and its chat model summarises those with
// LangChain's progressive-summary prompt, which goes first as a system message. Tokens are counted
// as LangChain does without a tokenizer: a quarter of the characters of "Human: …\nAI: …".
import { type BaseMessage, HumanMessage, SystemMessage, getBufferString } from "@langchain/core/messages";
import { callModel } from "../../core/llm";
import { num, str } from "../../core/inputs";
import { type MemoryInstance, memoryInstance, requireChatModel, turnsToMessages } from "../instances";
import type { NodeDefinition } from "../types";

/** LangChain's SUMMARY_PROMPT (memory/prompt), as Flowise's summary memories send it. */
export const SUMMARIZER_TEMPLATE = `Progressively summarize the lines of conversation provided, adding onto the previous summary returning \
a new summary.

EXAMPLE
Current summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good.

New lines of conversation:
Human: Why do you think artificial intelligence is a force for good?
AI: Because artificial intelligence will help humans reach their full potential.

New summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good because \
it will help humans reach their full potential.
END OF EXAMPLE

Current summary:
{summary}

New lines of conversation:
{new_lines}

New summary:`;

const tokensOf = (messages: BaseMessage[]) => Math.ceil(getBufferString(messages, "Human", "AI").length / 4);

export const summaryBufferMemoryNode: NodeDefinition = {
  name: "conversationSummaryBufferMemory",
  category: "Memory",
  async build({ node, inputs, ctx }) {
    const model = requireChatModel(inputs.model, node.data.label);
    const limit = Math.max(1, Math.floor(num(inputs.maxTokenLimit) ?? 2000));
    const base = memoryInstance(node.data.label, str(inputs.memoryKey) ?? "chat_history", () => ctx.loadMemory());
    let messages: Promise<BaseMessage[]> | undefined;
    const read = async (): Promise<BaseMessage[]> => {
      const kept = turnsToMessages(await base.load());
      const pruned: BaseMessage[] = [];
      while (kept.length && tokensOf(kept) > limit) pruned.push(kept.shift()!);
      if (!pruned.length) return kept;
      const lines = getBufferString(pruned, "Human", "AI");
      const prompt = SUMMARIZER_TEMPLATE.replace("{summary}", "").replace("{new_lines}", () => lines);
      const summary = await callModel(model, [new HumanMessage(prompt)], ctx);
      return [new SystemMessage(summary), ...kept];
    };
    return { ...base, messages: () => (messages ??= read()) } satisfies MemoryInstance;
  },
};
