// Tools an Agent or Tool node selects by name (the engine's tool nodes: calculator, customTool — a
// stored tool run in the QuickJS sandbox — …), and knowledge as retriever tools: a document store
// (`"<storeId>:<name>"`) or a vector store + embeddings, each a tool named after the knowledge.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../errors";
import type { RunContext } from "../core/ports";
import type { SourceDocument } from "../core/types";
import { supportedTools } from "../tools/registry";
import { documentStoreRetriever, tool, vectorStoreRetriever } from "./components";
import { bool, isObject, listOf, nonBlank } from "./util";

/** Tools an agentflow cannot use: each needs another node wired into it (Flowise leaves them out of the Agent's list too). */
const NOT_AGENTFLOW_TOOLS = new Set(["chainTool", "retrieverTool", "webBrowser", "queryEngineToolLlamaIndex"]);

const agentflowToolNames = (): string[] => supportedTools().filter((n) => !NOT_AGENTFLOW_TOOLS.has(n));

/** The tool(s) a component builds (a toolkit builds several). */
export async function selectedTools(ctx: RunContext, name: unknown, config: unknown, owner: string): Promise<StructuredToolInterface[]> {
  if (typeof name !== "string" || !name.trim()) throw fail("INVALID_FLOW", `${owner} needs a tool: choose one`);
  if (NOT_AGENTFLOW_TOOLS.has(name))
    throw fail("UNKNOWN_NODE", `${owner}: ${name} cannot be used in an agentflow (available: ${agentflowToolNames().join(", ")})`);
  const built: unknown = await tool(ctx, name, config, owner, agentflowToolNames);
  const list = (Array.isArray(built) ? built : [built]) as StructuredToolInterface[];
  if (!list.every((t) => t && typeof t.invoke === "function" && typeof t.name === "string"))
    throw fail("INVALID_FLOW", `${owner}: ${name} did not build a tool`);
  return list;
}

/** A knowledge name as a tool name: lower case, `[a-z0-9_-]`, at most 64 characters. */
const knowledgeToolName = (name: string): string =>
  name
    .toLowerCase()
    .replace(/\s+/g, "_")
    .replace(/[^a-z0-9_-]/g, "")
    .slice(0, 64) || "knowledge";

async function retrieverTool(
  ctx: RunContext,
  retriever: unknown,
  name: string,
  description: unknown,
  returnSources: boolean,
  owner: string,
): Promise<StructuredToolInterface> {
  const config = {
    name: knowledgeToolName(name),
    description: nonBlank(description) ?? `Searches ${name}`,
    retriever,
    returnSourceDocuments: returnSources,
  };
  // retrieverTool builds one tool, never a list.
  return (await tool(ctx, "retrieverTool", config, owner, agentflowToolNames)) as StructuredToolInterface;
}

/** The retriever of a document store reference (`"<storeId>:<name>"`), and the store's name. */
export async function storeRetriever(ctx: RunContext, ref: unknown, owner: string): Promise<{ retriever: unknown; name: string }> {
  const text = typeof ref === "string" ? ref : "";
  const [storeId, ...rest] = text.split(":");
  if (!storeId?.trim()) throw fail("INVALID_FLOW", `${owner} needs a document store (documentStore "<id>:<name>")`);
  return { retriever: await documentStoreRetriever(ctx, storeId.trim(), owner), name: rest.join(":") || storeId };
}

/**
 * Retriever tools for `agentKnowledgeDocumentStores` and `agentKnowledgeVSEmbeddings`. Documents a
 * tool finds go to `collect` when its row asks to return source documents.
 */
export async function knowledgeTools(
  base: RunContext,
  inputs: Record<string, unknown>,
  nodeId: string,
  owner: string,
  collect: (docs: SourceDocument[]) => void,
): Promise<StructuredToolInterface[]> {
  const ctx: RunContext = { ...base, addSourceDocuments: collect };
  const tools: StructuredToolInterface[] = [];
  for (const row of listOf(inputs.agentKnowledgeDocumentStores).filter(isObject)) {
    const { retriever, name } = await storeRetriever(ctx, row.documentStore, owner);
    tools.push(await retrieverTool(ctx, retriever, name, row.docStoreDescription, bool(row.returnSourceDocuments), owner));
  }
  for (const row of listOf(inputs.agentKnowledgeVSEmbeddings).filter(isObject)) {
    const retriever = await vectorStoreRetriever(ctx, row, nodeId, owner);
    const name = nonBlank(row.knowledgeName) ?? String(row.vectorStore);
    tools.push(await retrieverTool(ctx, retriever, name, row.knowledgeDescription, bool(row.returnSourceDocuments), owner));
  }
  return tools;
}
