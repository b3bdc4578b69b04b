// Components an agentflow node picks by name (`llmModel: "chatOpenAI"` + `llmModelConfig`, a tool
// + its config, a document store, embeddings + a vector store), built through the shared registries
// and the run's ports. The config object is the component's inputs; its credential id is
// `FLOWISE_CREDENTIAL_ID` (or `credential`).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { fail } from "../../errors";
import { buildChatModel, isChatModelName, supportedChatModels } from "../../providers/chat/registry";
import { buildEmbeddings, supportedEmbeddings } from "../../providers/embeddings/registry";
import { DEFAULT_TOP_K, flowNamespace } from "../chatflow/nodes/vector-stores";
import { type RunContext, providerDeps } from "../core/ports";
import { buildTool, toolNodeNames } from "../tools/registry";
import type { BuiltTool } from "../tools/types";
import { isObject } from "./util";

const componentConfigOf = (config: unknown): Record<string, unknown> => (isObject(config) ? { ...config } : {});

/** The chat model a node names; 400 when it names none or one edgeflow does not have. */
export async function chatModel(ctx: RunContext, name: unknown, config: unknown, owner: string, param: string): Promise<BaseChatModel> {
  if (typeof name !== "string" || !name.trim()) throw fail("INVALID_FLOW", `${owner} needs a chat model: choose one in ${param}`);
  if (!isChatModelName(name.trim()))
    throw fail(
      "UNKNOWN_NODE",
      `${owner}: chat model ${name} is not available in edgeflow (available: ${supportedChatModels().join(", ")})`,
    );
  return buildChatModel(name.trim(), componentConfigOf(config), providerDeps(ctx));
}

/** A tool (a toolkit: several) by name and config (the shared tool registry); 400 naming it when edgeflow has none such. */
export async function tool(ctx: RunContext, name: string, config: unknown, owner: string, available: () => string[]): Promise<BuiltTool> {
  if (!toolNodeNames().includes(name))
    throw fail("UNKNOWN_NODE", `${owner}: tool ${name} is not available in edgeflow (available: ${available().join(", ")})`);
  return buildTool(name, componentConfigOf(config), { ctx, label: owner });
}

/** The retriever of one of our document stores (its saved embedding and vector store). */
export async function documentStoreRetriever(ctx: RunContext, storeId: string, owner: string): Promise<BaseRetrieverInterface> {
  const store = await ctx.runtime.documentStores.vectorStore(storeId);
  if (!store) throw fail("INVALID_FLOW", `${owner}: document store ${storeId} does not exist`);
  return store.asRetriever({ k: Math.min(DEFAULT_TOP_K, store.maxTopK) });
}

/** A vector store + embeddings of the node's own (Agent knowledge), namespaced per agentflow and node. */
export async function vectorStoreRetriever(
  ctx: RunContext,
  row: Record<string, unknown>,
  nodeId: string,
  owner: string,
): Promise<BaseRetrieverInterface> {
  const embeddingName = String(row.embeddingModel ?? "");
  if (!supportedEmbeddings().includes(embeddingName))
    throw fail(
      "UNKNOWN_NODE",
      `${owner}: embeddings ${embeddingName || "(none)"} are not available in edgeflow (available: ${supportedEmbeddings().join(", ")})`,
    );
  const embeddings = await buildEmbeddings(embeddingName, componentConfigOf(row.embeddingModelConfig), providerDeps(ctx));
  const store = ctx.runtime.vectorStores.open(
    String(row.vectorStore ?? ""),
    componentConfigOf(row.vectorStoreConfig),
    embeddings,
    await flowNamespace(ctx.chatflowid, nodeId),
  );
  return store.asRetriever({ k: Math.min(DEFAULT_TOP_K, store.maxTopK) });
}
