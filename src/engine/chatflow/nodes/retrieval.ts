// Retrieval in chatflows:
//   documentStore / documentStoreVS  a document store of ours (`selectedStore`): as a retriever
//                 (output `retriever`, `topK` default 4) or its vector store (`vectorStore`) over the
//                 store's saved embedding and vector store; or, as Flowise's Document Store loader
//                 (output `document` / `text`), the store's chunks — fed to a vector store on upsert
//   conversationalRetrievalQAChain  rephrases a follow-up question into a standalone one with the
//                 chat history, retrieves with it, answers from the context with the history;
//                 `returnSourceDocuments` → the run's sourceDocuments; streams the answer
//   retrievalQAChain  retrieves with the question and answers from the context
// (retrieverTool, a retriever as an agent's tool, is in the shared tool registry: src/engine/tools.)
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { fail } from "../../../errors";
import { asSources, requireRetriever, retrieve } from "../../core/retrievers";
import {
  type MemoryInstance,
  type ModerationInstance,
  isMemory,
  moderate,
  moderationsOf,
  requireChatModel,
  turnsToMessages,
} from "../instances";
import { callModel } from "../../core/llm";
import type { BuildArgs, NodeDefinition } from "../types";
import type { ChatTurn, FlowNode, RunResult, StreamSink } from "../../core/types";
import type { RunContext } from "../../core/ports";
import { chainCanStream } from "./chains";
import { LOADER_CATEGORY, loaderOutput, upsertOnlyWhenFeedingVectorStore } from "./document-loaders";
import { bool, str } from "../../core/inputs";
import { storeOutput } from "./vector-stores";

type Answer = Omit<RunResult, "memoryType">;

// ---- documentStore ------------------------------------------------------------------------------

const LOADER_OUTPUTS = new Set(["document", "text"]);

/** Flowise's Document Store loader node (output document/text) vs Document Store (Vector). */
const isLoaderVariant = (node: FlowNode, output: string | undefined) =>
  output !== undefined ? LOADER_OUTPUTS.has(output) : node.data.category === LOADER_CATEGORY;

/** A store that does not exist is the flow's fault: 400 naming the node. */
const missingStore = ({ node }: BuildArgs, storeId: string) =>
  fail("INVALID_FLOW", `${node.data.label} (${node.id}): document store ${storeId} (its selectedStore) does not exist`);

async function buildDocumentStore(args: BuildArgs) {
  const { node, inputs, ctx, output } = args;
  const stores = ctx.runtime.documentStores;
  const storeId = str(inputs.selectedStore);
  if (isLoaderVariant(node, output)) {
    // An exported flow may leave the store unselected: it then contributes no documents.
    if (!storeId) return loaderOutput([], output);
    const docs = await stores.chunks(storeId);
    if (!docs) throw missingStore(args, storeId);
    return loaderOutput(docs, output);
  }
  if (!storeId) throw fail("INVALID_FLOW", `${node.data.label} (${node.id}) needs a document store: choose one in selectedStore`);
  const store = await stores.vectorStore(storeId);
  if (!store) throw missingStore(args, storeId);
  return storeOutput(store, output, inputs.topK);
}

const documentStoreNode = (name: string): NodeDefinition => ({
  name,
  category: "Vector Stores",
  // As a loader feeding a vector store it runs on upsert; as a retriever, on prediction.
  upsertOnly: upsertOnlyWhenFeedingVectorStore,
  build: buildDocumentStore,
});

// ---- retrieval chains ---------------------------------------------------------------------------

const DEFAULT_REPHRASE_PROMPT =
  "Given the following conversation and a follow up question, rephrase the follow up question to be a standalone " +
  "question.\n\nChat History:\n{chat_history}\nFollow Up Input: {question}\nStandalone Question:";
const DEFAULT_RESPONSE_PROMPT =
  "You are a helpful assistant. Using the provided context, answer the user's question to the best of your ability " +
  "using the resources provided.\nIf there is nothing in the context relevant to the question at hand, just say " +
  "\"Hmm, I'm not sure.\" Don't try to make up an answer.\n------------\n{context}\n------------\nREMEMBER: If there " +
  "is no relevant information within the context, just say \"Hmm, I'm not sure.\" Don't try to make up an answer.";
const QA_SYSTEM_PROMPT =
  "Answer the user's question using the pieces of context below. If they do not hold the answer, say that you do " +
  "not know rather than making one up.\n----------------\n{context}";

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

const isRetrievalChain = (v: unknown): v is RetrievalChainInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "retrievalChain";

/** Fills `{name}` placeholders (`{{` / `}}` are literal braces); unknown names stay as written. */
function fillTemplate(template: string, values: Record<string, string>): string {
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
        responsePrompt:
          (conversational ? str(inputs.responsePrompt) : undefined) ?? (conversational ? DEFAULT_RESPONSE_PROMPT : QA_SYSTEM_PROMPT),
      };
    },
    async run(instance, { ctx, sink }) {
      if (isRetrievalChain(instance)) return runRetrievalChain(instance, ctx, sink);
      throw fail("INVALID_FLOW", `${name} was not built`);
    },
    canStream: chainCanStream,
  };
}

export const retrievalNodes: NodeDefinition[] = [
  documentStoreNode("documentStore"),
  documentStoreNode("documentStoreVS"),
  retrievalChainNode("conversationalRetrievalQAChain", true),
  retrievalChainNode("retrievalQAChain", false),
];
