// conversationalRetrievalToolAgent: Flowise's Tool Agent with a vector store retriever always
// attached. Before the agent runs, the question is rephrased into a standalone one (rephrasePrompt
// with the session's history, by rephraseModel or the agent's model; without a rephrasePrompt the
// question as asked), the retriever is asked with it, and the passages fill the system message's
// {context} as `<doc id='0'>…</doc>` lines; then the agent's loop runs with its tools, as toolAgent's.
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { RunAborted } from "../../../lib/run-control";
import { str } from "../../core/inputs";
import { callModel } from "../../core/llm";
import type { RunContext } from "../../core/ports";
import { requireRetriever, retrieve } from "../../core/retrievers";
import type { ChatTurn } from "../../core/types";
import { isChatModel } from "../instances";
import type { NodeDefinition } from "../types";
import { type AgentInstance, buildAgent, runAgent } from "./agents";
import { chainCanStream } from "./chains";

export const DEFAULT_RETRIEVAL_AGENT_SYSTEM = [
  'I want you to act as a document that I am having a conversation with. Your name is "AI Assistant". Using the provided ' +
    "context, answer the user's question to the best of your ability using the resources provided.",
  'If there is nothing in the context relevant to the question at hand, just say "Hmm, I\'m not sure" and stop after that. ' +
    "Refuse to answer any question not about the info. Never break character.",
  "------------",
  "{context}",
  "------------",
  "REMEMBER: If there is no relevant information within the context, just say \"Hmm, I'm not sure\". Don't try to make up " +
    "an answer. Never break character.",
].join("\n");

interface RetrievalAgentInstance {
  kind: "retrievalToolAgent";
  agent: AgentInstance;
  retriever: BaseRetrieverInterface;
  rephrasePrompt?: string;
  rephraseModel: BaseChatModel;
}

const isRetrievalAgent = (v: unknown): v is RetrievalAgentInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "retrievalToolAgent";

/** History as Flowise's convertChatHistoryToText writes it: `Human: …` / `Assistant: …` lines. */
const historyText = (turns: ChatTurn[]) =>
  turns
    .filter((t) => t.content.trim())
    .map((t) => `${t.role === "apiMessage" ? "Assistant" : "Human"}: ${t.content}`)
    .join("\n");

const formatDocs = (docs: DocumentInterface[]) => docs.map((d, i) => `<doc id='${i}'>${d.pageContent}</doc>`).join("\n");

/** `{name}` placeholders filled; unknown ones stay. */
const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole));

/** The standalone question; a failed rephrase falls back to the question as asked (as Flowise does). */
async function standalone(instance: RetrievalAgentInstance, ctx: RunContext): Promise<string> {
  if (!instance.rephrasePrompt) return ctx.question;
  const turns = instance.agent.memory ? await instance.agent.memory.load() : [];
  const prompt = fill(instance.rephrasePrompt, { question: ctx.question, chat_history: historyText(turns) });
  try {
    return (await callModel(instance.rephraseModel, [new HumanMessage(prompt)], ctx)).trim() || ctx.question;
  } catch (err) {
    if (ctx.signal?.aborted || err instanceof RunAborted) throw new RunAborted();
    console.warn(`conversationalRetrievalToolAgent: rephrasing failed, using the question as asked: ${errorMessage(err)}`);
    return ctx.question;
  }
}

export const retrievalToolAgentNode: NodeDefinition = {
  name: "conversationalRetrievalToolAgent",
  category: "Agents",
  async build(args) {
    const { node, inputs } = args;
    const agent = await buildAgent(DEFAULT_RETRIEVAL_AGENT_SYSTEM)(args);
    const instance: RetrievalAgentInstance = {
      kind: "retrievalToolAgent",
      agent,
      retriever: requireRetriever(inputs.vectorStoreRetriever, node.data.label, "vectorStoreRetriever"),
      rephrasePrompt: str(inputs.rephrasePrompt),
      rephraseModel: isChatModel(inputs.rephraseModel) ? inputs.rephraseModel : agent.model,
    };
    return instance;
  },
  async run(instance, { ctx, sink }) {
    if (!isRetrievalAgent(instance)) throw fail("INVALID_FLOW", "conversationalRetrievalToolAgent was not built");
    const docs = await retrieve(instance.retriever, await standalone(instance, ctx), ctx);
    const systemMessage = fill(instance.agent.systemMessage, { context: formatDocs(docs) });
    return runAgent({ ...instance.agent, systemMessage }, ctx, sink);
  },
  canStream: chainCanStream,
};
