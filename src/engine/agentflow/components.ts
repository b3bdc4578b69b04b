// Components an agentflow node picks by name (`llmModel: "chatOpenAI"` + `llmModelConfig`, a tool,
// a document store, embeddings, a vector store) built through the engine's node registry, the one
// place that knows how to make them. The config object is the component's inputs; its credential
// id is `FLOWISE_CREDENTIAL_ID` (or `credential`).
//
// TODO(core): switch chat models to src/providers/chat/registry.ts buildChatModel when it lands.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { badRequest } from "../../errors";
import { isChatModel } from "../instances";
import { registry } from "../registry";
import type { FlowNode, RunContext } from "../types";
import { isObject, str } from "./util";

export interface ComponentRequest {
  /** Component name (`chatOpenAI`, `customTool`, `documentStoreVS`, …). */
  name: string;
  /** Its inputs (the `<param>Config` object), plus anything the caller adds (e.g. `embeddings`). */
  config?: unknown;
  /** Who asks, for messages: `LLM 0 (llmAgentflow_0)`. */
  owner: string;
  /** The registry family it must belong to (`Chat Models`, `Tools`, …). */
  category: string;
  /** The node output to build (`retriever`, `vectorStore`). */
  output?: string;
}

/** Names of a family, for "choose one of" messages. */
export const componentNames = (category: string): string[] =>
  [...registry.values()].filter((d) => d.category === category).map((d) => d.name).sort();

export async function buildComponent(ctx: RunContext, req: ComponentRequest): Promise<unknown> {
  const def = registry.get(req.name);
  if (!def || def.category !== req.category) {
    const kind = req.category.toLowerCase().replace(/s$/, "");
    throw badRequest(`${req.owner}: ${kind} ${req.name} is not available in edgeflow (available: ${componentNames(req.category).join(", ") || "none"})`);
  }
  const inputs: Record<string, unknown> = isObject(req.config) ? { ...req.config } : {};
  const node: FlowNode = {
    id: `${req.name}_agentflow`,
    data: {
      id: `${req.name}_agentflow`,
      label: `${req.owner} ${req.name}`,
      name: req.name,
      category: req.category,
      inputs,
      credential: str(inputs.FLOWISE_CREDENTIAL_ID) ?? str(inputs.credential),
    },
  };
  return def.build({ node, inputs, ctx, output: req.output });
}

/** The chat model a node names; 400 when it names none or one edgeflow does not have. */
export async function chatModel(ctx: RunContext, name: unknown, config: unknown, owner: string, param: string): Promise<BaseChatModel> {
  if (typeof name !== "string" || !name.trim()) throw badRequest(`${owner} needs a chat model: choose one in ${param}`);
  const model = await buildComponent(ctx, { name: name.trim(), config, owner, category: "Chat Models" });
  if (!isChatModel(model)) throw badRequest(`${owner}: ${name} did not build a chat model`);
  return model;
}
