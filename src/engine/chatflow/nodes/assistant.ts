// openAIAssistant: Flowise's OpenAI Assistant node, over an edgeflow assistant (/assistants,
// chosen by id in selectedAssistant) since OpenAI retired its Assistants API. The assistant gives
// the chat model, instructions and tools (stored Tools, file_search over document stores); the
// tools connected in the flow are added. It runs as the tool agent does (./agents.ts), with the
// session's stored conversation as its thread.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../errors";
import { buildChatModel } from "../../../providers/chat/registry";
import { str } from "../../core/inputs";
import { providerDeps } from "../../core/ports";
import type { RunContext } from "../../core/ports";
import { buildTool } from "../../tools/registry";
import type { MemoryInstance } from "../instances";
import { memoryInstance, moderationsOf } from "../instances";
import type { BuildArgs, NodeDefinition } from "../types";
import { type AgentInstance, DEFAULT_MAX_ITERATIONS, runAgent, toolsInput } from "./agents";
import { DEFAULT_TOP_K } from "./vector-stores";

export const FILE_SEARCH_DESCRIPTION = "Searches the assistant's documents for passages relevant to the question";

/** The session's conversation, as a memory node would give it. */
function threadOf(ctx: RunContext, label: string): MemoryInstance {
  return memoryInstance(label, "chat_history", () => ctx.loadMemory());
}

/** The assistant's own tools: its stored Tools, then a retriever tool per document store. */
async function assistantTools(
  storedToolIds: string[],
  storeIds: string[],
  ctx: RunContext,
  label: string,
): Promise<StructuredToolInterface[]> {
  const tools: StructuredToolInterface[] = [];
  for (const [i, id] of storedToolIds.entries()) {
    tools.push((await buildTool("customTool", { selectedTool: id }, { ctx, label: `${label} tool ${i}` })) as StructuredToolInterface);
  }
  for (const [i, storeId] of storeIds.entries()) {
    const store = await ctx.runtime.documentStores.vectorStore(storeId);
    if (!store) throw fail("INVALID_FLOW", `${label}: its file_search reads document store ${storeId}, which does not exist`);
    const retriever = store.asRetriever({ k: Math.min(DEFAULT_TOP_K, store.maxTopK) });
    const inputs = { name: `file_search_${i}`, description: FILE_SEARCH_DESCRIPTION, retriever, returnSourceDocuments: true };
    tools.push((await buildTool("retrieverTool", inputs, { ctx, label: `${label} file search ${i}` })) as StructuredToolInterface);
  }
  return tools;
}

async function buildAssistant({ node, inputs, ctx }: BuildArgs): Promise<AgentInstance> {
  const label = node.data.label;
  const id = str(inputs.selectedAssistant);
  if (!id) throw fail("INVALID_FLOW", `${label} (${node.id}) needs an assistant: choose one of /assistants in selectedAssistant`);
  const spec = await ctx.runtime.assistants.get(id);
  if (!spec) throw fail("INVALID_FLOW", `${label} (${node.id}): assistant ${id} (its selectedAssistant) does not exist`);
  const model = await buildChatModel(spec.modelNode, spec.modelInputs, providerDeps(ctx));
  const own = await assistantTools(spec.toolIds, spec.documentStoreIds, ctx, label);
  const tools = toolsInput([...own, ...toolsInput(inputs.tools, label)], label);
  if (tools.length && typeof model.bindTools !== "function") {
    throw fail("INVALID_FLOW", `${label}: the chat model of assistant ${id} (${model._llmType()}) cannot call tools`);
  }
  return {
    kind: "agent",
    label,
    model,
    tools,
    memory: threadOf(ctx, label),
    systemMessage: spec.instructions,
    maxIterations: DEFAULT_MAX_ITERATIONS,
    moderations: moderationsOf(inputs.inputModeration),
  };
}

export const assistantNodes: NodeDefinition[] = [
  {
    name: "openAIAssistant",
    category: "Agents",
    build: buildAssistant,
    async run(instance, { ctx, sink }) {
      if ((instance as { kind?: unknown })?.kind === "agent") return runAgent(instance as AgentInstance, ctx, sink);
      throw fail("INVALID_FLOW", "openAIAssistant was not built");
    },
    // Its model node is not in the flow; the assistant's model streams as every chat model does.
    canStream: () => true,
  },
];
