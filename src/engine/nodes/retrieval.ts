// Retrieval in chatflows:
//   documentStore / documentStoreVS  a document store of ours (`selectedStore`): as a retriever
//                 (output `retriever`, `topK` default 4) or its vector store (`vectorStore`) over the
//                 store's saved embedding and vector store; or, as Flowise's Document Store loader
//                 (output `document` / `text`), the store's chunks — fed to a vector store on upsert
//   conversationalRetrievalQAChain  rephrases a follow-up question into a standalone one with the
//                 chat history, retrieves with it, answers from the context with the history;
//                 `returnSourceDocuments` → the run's sourceDocuments; streams the answer
//   retrievalQAChain  retrieves with the question and answers from the context
//   retrieverTool     a retriever as an agent's tool (its sources reach the run's sourceDocuments)
import { Document, type DocumentInterface } from "@langchain/core/documents";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { DynamicStructuredTool } from "@langchain/core/tools";
import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { documentStoreFileChunk } from "../../db/schema";
import { ApiError, badGateway, badRequest } from "../../errors";
import { RunAborted } from "../../providers/chat/http";
import { buildComponents } from "../../services/document-store/components";
import { getStoreRow } from "../../services/document-store/stores";
import { savedComponents } from "../../services/document-store/vectors";
import { type MemoryInstance, type ModerationInstance, isMemory, requireChatModel, turnsToMessages } from "../instances";
import { callModel } from "../llm";
import type { BuildArgs, ChatTurn, FlowNode, NodeDefinition, RunContext, RunResult, SourceDocument, StreamSink } from "../types";
import { chainCanStream, moderate, moderationsOf } from "./chains";
import { LOADER_CATEGORY, loaderOutput, upsertOnlyWhenFeedingVectorStore } from "./document-loaders";
import { toolName } from "./tools";
import { bool, str } from "./util";
import { isVectorStore, storeOutput } from "./vector-stores";

type Answer = Omit<RunResult, "memoryType">;

// ---- retrievers ---------------------------------------------------------------------------------

const isRetriever = (v: unknown): v is BaseRetrieverInterface =>
  !!v && typeof v === "object" && typeof (v as BaseRetrieverInterface).invoke === "function" && typeof (v as { _getRelevantDocuments?: unknown })._getRelevantDocuments === "function";

/** The retriever an input must hold (a vector store becomes its retriever), or a 400 naming the input. */
export function requireRetriever(value: unknown, label: string, input: string): BaseRetrieverInterface {
  if (isRetriever(value)) return value;
  if (isVectorStore(value)) return value.asRetriever(4);
  throw badRequest(`${label} needs a retriever (a vector store node, or a document store) connected to its ${input} input`);
}

/** The retriever's documents for a query; an unexpected failure is the provider's (502). */
export async function retrieve(retriever: BaseRetrieverInterface, query: string, ctx: RunContext): Promise<DocumentInterface[]> {
  try {
    return await retriever.invoke(query, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal?.aborted) throw new RunAborted();
    if (err instanceof ApiError || err instanceof RunAborted) throw err;
    throw badGateway(`Retrieval failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export const asSources = (docs: DocumentInterface[]): SourceDocument[] => docs.map((d) => ({ pageContent: d.pageContent, metadata: { ...(d.metadata ?? {}) } }));

// ---- documentStore ------------------------------------------------------------------------------

const LOADER_OUTPUTS = new Set(["document", "text"]);

/** Flowise's Document Store loader node (output document/text) vs Document Store (Vector). */
const isLoaderVariant = (node: FlowNode, output: string | undefined) =>
  output !== undefined ? LOADER_OUTPUTS.has(output) : node.data.category === LOADER_CATEGORY;

/** The selected store's record; a store that does not exist is the flow's fault (400 naming the node). */
async function storeRow({ node, ctx }: BuildArgs, storeId: string) {
  try {
    return await getStoreRow(ctx.db, storeId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw badRequest(`${node.data.label} (${node.id}): document store ${storeId} (its selectedStore) does not exist`);
    }
    throw err;
  }
}

/** The store's chunks as documents, in loader and chunk order (the Document Store loader). */
async function storeDocuments(args: BuildArgs, storeId: string): Promise<Document[]> {
  await storeRow(args, storeId);
  const chunks = await args.ctx.db
    .select({ pageContent: documentStoreFileChunk.pageContent, metadata: documentStoreFileChunk.metadata })
    .from(documentStoreFileChunk)
    .where(eq(documentStoreFileChunk.storeId, storeId))
    .orderBy(asc(documentStoreFileChunk.docId), asc(documentStoreFileChunk.chunkNo))
    .all();
  return chunks.map((c) => {
    let metadata: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(c.metadata);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) metadata = parsed;
    } catch {
      // metadata that is not JSON: none
    }
    return new Document({ pageContent: c.pageContent, metadata });
  });
}

async function buildDocumentStore(args: BuildArgs) {
  const { node, inputs, ctx, output } = args;
  const storeId = str(inputs.selectedStore);
  if (isLoaderVariant(node, output)) {
    // An exported flow may leave the store unselected: it then contributes no documents.
    return loaderOutput(storeId ? await storeDocuments(args, storeId) : [], output);
  }
  if (!storeId) throw badRequest(`${node.data.label} (${node.id}) needs a document store: choose one in selectedStore`);
  const row = await storeRow(args, storeId);
  const built = await buildComponents({ db: ctx.db, env: ctx.env, getCredential: ctx.getCredential }, row.id, savedComponents(row));
  return storeOutput(built.store, output, inputs.topK);
}

const documentStoreNode = (name: string): NodeDefinition => ({
  name,
  category: "Vector Stores",
  // As a loader feeding a vector store it runs on upsert; as a retriever, on prediction.
  upsertOnly: upsertOnlyWhenFeedingVectorStore,
  build: buildDocumentStore,
});

// ---- retrieval chains ---------------------------------------------------------------------------

export const DEFAULT_REPHRASE_PROMPT =
  "Given the following conversation and a follow up question, rephrase the follow up question to be a standalone question.\n\nChat History:\n{chat_history}\nFollow Up Input: {question}\nStandalone Question:";
export const DEFAULT_RESPONSE_PROMPT =
  'You are a helpful assistant. Using the provided context, answer the user\'s question to the best of your ability using the resources provided.\nIf there is nothing in the context relevant to the question at hand, just say "Hmm, I\'m not sure." Don\'t try to make up an answer.\n------------\n{context}\n------------\nREMEMBER: If there is no relevant information within the context, just say "Hmm, I\'m not sure." Don\'t try to make up an answer.';
const QA_SYSTEM_PROMPT =
  "Answer the user's question using the pieces of context below. If they do not hold the answer, say that you do not know rather than making one up.\n----------------\n{context}";

interface RetrievalChainInstance {
  kind: "retrievalChain";
  label: string;
  model: BaseChatModel;
  retriever: BaseRetrieverInterface;
  memory?: MemoryInstance;
  moderations: ModerationInstance[];
  returnSourceDocuments: boolean;
  /** Conversational: rephrase with history, answer with history. */
  conversational: boolean;
  rephrasePrompt: string;
  responsePrompt: string;
}

const isRetrievalChain = (v: unknown): v is RetrievalChainInstance => !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "retrievalChain";

/** Fills `{name}` placeholders (`{{` / `}}` are literal braces); unknown names stay as written. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (whole, name: string | undefined) => {
    if (whole === "{{") return "{";
    if (whole === "}}") return "}";
    return name !== undefined && Object.hasOwn(values, name) ? values[name] : whole;
  });
}

/** History as the rephrase prompt shows it: one `human: …` / `ai: …` line per message. */
const historyText = (turns: ChatTurn[]) => turns.map((t) => `${t.role === "apiMessage" ? "ai" : "human"}: ${t.content}`).join("\n");

/** Retrieved documents as the response prompt's context. */
const contextOf = (docs: DocumentInterface[]) => docs.map((d, i) => `<doc id='${i}'>${d.pageContent}</doc>`).join("\n");

async function runRetrievalChain(chain: RetrievalChainInstance, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const checked = await moderate(ctx.question, chain.moderations);
  if ("refusal" in checked) {
    sink?.token(checked.refusal);
    return { text: checked.refusal };
  }
  const question = checked.question;
  let messages: BaseMessage[];
  let docs: DocumentInterface[];
  if (chain.conversational) {
    // No memory node: Flowise's default buffer memory, i.e. this session's stored messages.
    const turns = chain.memory ? await chain.memory.load() : await ctx.loadMemory();
    let query = question;
    if (turns.length) {
      const prompt = fillTemplate(chain.rephrasePrompt, { chat_history: historyText(turns), question });
      query = (await callModel(chain.model, [new HumanMessage(prompt)], ctx)).trim() || question;
    }
    docs = await retrieve(chain.retriever, query, ctx);
    const system = fillTemplate(chain.responsePrompt, { context: contextOf(docs), question, chat_history: historyText(turns) });
    messages = [new SystemMessage(system), ...turnsToMessages(turns), new HumanMessage(question)];
  } else {
    docs = await retrieve(chain.retriever, question, ctx);
    const context = docs.map((d) => d.pageContent).join("\n\n");
    messages = [new SystemMessage(fillTemplate(chain.responsePrompt, { context })), new HumanMessage(question)];
  }
  const text = await callModel(chain.model, messages, ctx, sink);
  return chain.returnSourceDocuments ? { text, sourceDocuments: asSources(docs) } : { text };
}

function retrievalChainNode(name: string, conversational: boolean): NodeDefinition {
  return {
    name,
    category: "Chains",
    async build({ node, inputs }: BuildArgs): Promise<RetrievalChainInstance> {
      const label = node.data.label;
      return {
        kind: "retrievalChain",
        label,
        model: requireChatModel(inputs.model, label),
        retriever: requireRetriever(inputs.vectorStoreRetriever, label, "vectorStoreRetriever"),
        memory: isMemory(inputs.memory) ? inputs.memory : undefined,
        moderations: moderationsOf(inputs.inputModeration),
        returnSourceDocuments: bool(inputs.returnSourceDocuments),
        conversational,
        rephrasePrompt: str(inputs.rephrasePrompt) ?? DEFAULT_REPHRASE_PROMPT,
        responsePrompt: (conversational ? str(inputs.responsePrompt) : undefined) ?? (conversational ? DEFAULT_RESPONSE_PROMPT : QA_SYSTEM_PROMPT),
      };
    },
    async run(instance, { ctx, sink }) {
      if (isRetrievalChain(instance)) return runRetrievalChain(instance, ctx, sink);
      throw badRequest(`${name} was not built`);
    },
    canStream: chainCanStream,
  };
}

// ---- retrieverTool ------------------------------------------------------------------------------

async function retrieverTool({ node, inputs, ctx }: BuildArgs): Promise<DynamicStructuredTool> {
  const label = `${node.data.label} (${node.id})`;
  const name = str(inputs.name);
  const description = str(inputs.description);
  if (!name) throw badRequest(`${label} needs a name`);
  if (!description) throw badRequest(`${label} needs a description (the model reads it to decide when to use the tool)`);
  const retriever = requireRetriever(inputs.retriever, label, "retriever");
  const returnSources = bool(inputs.returnSourceDocuments);
  return new DynamicStructuredTool({
    name: toolName(name),
    description,
    schema: z.object({ input: z.string().describe("what to look up in the documents") }),
    func: async ({ input }) => {
      const docs = await retrieve(retriever, input, ctx);
      if (returnSources && docs.length) ctx.addSourceDocuments?.(asSources(docs));
      return docs.length ? docs.map((d) => d.pageContent).join("\n\n") : "No relevant documents were found.";
    },
  });
}

export const retrievalNodes: NodeDefinition[] = [
  documentStoreNode("documentStore"),
  documentStoreNode("documentStoreVS"),
  retrievalChainNode("conversationalRetrievalQAChain", true),
  retrievalChainNode("retrievalQAChain", false),
  { name: "retrieverTool", category: "Tools", build: retrieverTool },
];
