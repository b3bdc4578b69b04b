import { eq, inArray } from "drizzle-orm";
import { badRequest } from "../errors";
import { assistant, credential, tool } from "../db/schema";
import { FILE_SEARCH_DESCRIPTION, type FlowEdge, type FlowNode, type StoredAssistant, chatflowNodes } from "../engine";
import type { Deps } from "./deps";

// An assistant runs as a Flowise graph built on the fly, so it gets the engine, memory,
// persistence and streaming of chatflows unchanged:
//   no tools        chat model + buffer memory → conversationChain (instructions as system message)
//   function tools  + one customTool per stored Tool → toolAgent
//   file_search     + documentStore retriever → retrieverTool per document store → toolAgent

// Which model node speaks to the provider a credential is for.
const MODEL_NODE_BY_CREDENTIAL: Record<string, string> = {
  openAIApi: "chatOpenAI",
  azureOpenAIApi: "azureChatOpenAI",
  mistralAIApi: "chatMistralAI",
};

const MAX_FUNCTION_TOOLS = 50;

interface Details {
  name?: string;
  model?: string;
  instructions?: string;
  temperature?: number;
  top_p?: number;
  tools?: string[];
  tool_resources?: Record<string, unknown>;
}

const ids = (value: unknown, key: string): string[] | undefined => {
  const list = (value as Record<string, unknown> | undefined)?.[key];
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === "string") : undefined;
};

function node(id: string, name: string, label: string, inputs: Record<string, unknown>, extra: Partial<FlowNode["data"]> = {}): FlowNode {
  const category = chatflowNodes.get(name)?.category ?? "";
  return { id, type: "customNode", data: { id, name, label, category, inputs, ...extra } };
}

const ref = (id: string) => `{{${id}.data.instance}}`;

/**
 * What an assistant is made of: its model node and inputs, instructions, the stored Tools its
 * `function` tool uses (those in `tool_resources.function.tool_ids`, else all stored Tools) and the
 * document stores its `file_search` reads (`tool_resources.file_search.document_store_ids`, or
 * `vector_store_ids`). Null when no assistant has the id; 400 when it names what does not exist.
 */
export async function assistantSpec({ db }: Deps<"db">, assistantId: string): Promise<StoredAssistant | null> {
  const row = await db.select().from(assistant).where(eq(assistant.id, assistantId)).get();
  if (!row) return null;
  const details = JSON.parse(row.details) as Details;
  const wanted = new Set(details.tools ?? []);

  let modelNode = "chatOpenAI";
  if (row.credential) {
    const cred = await db
      .select({ credentialName: credential.credentialName })
      .from(credential)
      .where(eq(credential.id, row.credential))
      .get();
    if (!cred) throw badRequest(`Assistant ${row.id} uses credential ${row.credential}, which does not exist`);
    modelNode = MODEL_NODE_BY_CREDENTIAL[cred.credentialName] ?? "chatOpenAI";
  }

  let toolIds: string[] = [];
  if (wanted.has("function")) {
    const listed = ids(details.tool_resources?.function, "tool_ids");
    const query = db.select({ id: tool.id }).from(tool);
    const stored = listed
      ? await query.where(inArray(tool.id, listed.slice(0, MAX_FUNCTION_TOOLS))).all()
      : await query.limit(MAX_FUNCTION_TOOLS).all();
    if (listed && stored.length < listed.length) {
      const missing = listed.filter((id) => !stored.some((s) => s.id === id));
      throw badRequest(`Assistant ${row.id} names tools that do not exist: ${missing.join(", ")}`);
    }
    toolIds = stored.map((t) => t.id);
  }

  let documentStoreIds: string[] = [];
  if (wanted.has("file_search")) {
    const fs = details.tool_resources?.file_search;
    documentStoreIds = ids(fs, "document_store_ids") ?? ids(fs, "vector_store_ids") ?? [];
    if (!documentStoreIds.length) throw badRequest("file_search needs tool_resources.file_search.document_store_ids");
  }

  return {
    id: row.id,
    name: details.name,
    modelNode,
    modelInputs: {
      modelName: details.model,
      temperature: details.temperature,
      topP: details.top_p,
      ...(row.credential ? { credential: row.credential } : {}),
    },
    instructions: details.instructions ?? "You are a helpful assistant.",
    toolIds,
    documentStoreIds,
  };
}

/** The assistant as flowData (POST /prediction of an assistant id). */
export async function assistantFlowData({ db }: Deps<"db">, assistantId: string): Promise<string | null> {
  const spec = await assistantSpec({ db }, assistantId);
  if (!spec) return null;
  const { credential: credentialId, ...modelInputs } = spec.modelInputs;
  const model = node(
    "assistantModel_0",
    spec.modelNode,
    "Assistant Model",
    modelInputs,
    credentialId ? { credential: credentialId as string } : {},
  );
  const memory = node("bufferMemory_0", "bufferMemory", "Buffer Memory", { memoryKey: "chat_history" });
  const nodes: FlowNode[] = [model, memory];
  const tools: FlowNode[] = [];

  spec.toolIds.forEach((id, i) => tools.push(node(`customTool_${i}`, "customTool", `Tool ${i}`, { selectedTool: id })));

  if (spec.documentStoreIds.length) {
    if (!chatflowNodes.has("documentStore") || !chatflowNodes.has("retrieverTool")) {
      throw badRequest("file_search is not available: this deployment has no document store retrieval");
    }
    spec.documentStoreIds.forEach((storeId, i) => {
      const store = node(
        `documentStore_${i}`,
        "documentStore",
        `Document Store ${i}`,
        { selectedStore: storeId },
        { outputs: { output: "retriever" } },
      );
      nodes.push(store);
      tools.push(
        node(`retrieverTool_${i}`, "retrieverTool", `File search ${i}`, {
          name: `file_search_${i}`,
          description: FILE_SEARCH_DESCRIPTION,
          retriever: ref(store.id),
          returnSourceDocuments: true,
        }),
      );
    });
  }

  const instructions = spec.instructions;
  let ending: FlowNode;
  if (tools.length) {
    if (!chatflowNodes.has("toolAgent")) throw badRequest("This assistant uses tools, and tool-calling agents are not available");
    nodes.push(...tools);
    ending = node("toolAgent_0", "toolAgent", "Assistant", {
      model: ref(model.id),
      memory: ref(memory.id),
      tools: tools.map((t) => ref(t.id)),
      systemMessage: instructions,
    });
  } else {
    ending = node("conversationChain_0", "conversationChain", "Assistant", {
      model: ref(model.id),
      memory: ref(memory.id),
      systemMessagePrompt: instructions,
    });
  }
  nodes.push(ending);
  const edges: FlowEdge[] = nodes.flatMap((n) =>
    Object.values(n.data.inputs ?? {})
      .flat()
      .filter((v): v is string => typeof v === "string" && v.startsWith("{{"))
      .map((r) => ({ source: r.slice(2, r.indexOf(".")), target: n.id })),
  );
  return JSON.stringify({ nodes, edges });
}
