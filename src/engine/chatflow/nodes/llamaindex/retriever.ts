// What LlamaIndex engines retrieve with and answer through. A LlamaIndex vector store node
// (pineconeLlamaIndex) hands on its retriever together with the chat model connected to it (its
// "service context"): a query engine answers with that model. A LangChain retriever or vector
// store works too; without a model the engine falls back as LlamaIndex does, to OpenAI
// configured by the deployment (OPENAI_API_KEY, OPENAI_BASE_URL).
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { buildChatModel } from "../../../../providers/chat/registry";
import { callModel } from "../../../core/llm";
import { type RunContext, providerDeps } from "../../../core/ports";
import { requireRetriever } from "../../../core/retrievers";
import type { StreamSink } from "../../../core/types";
import type { Complete } from "./synthesize";

export interface IndexRetriever {
  kind: "llamaIndexRetriever";
  retriever: BaseRetrieverInterface;
  /** The chat model connected to the vector store node, if any. */
  model?: BaseChatModel;
}

const isIndexRetriever = (v: unknown): v is IndexRetriever =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "llamaIndexRetriever";

/** The retriever an engine's input holds (a LlamaIndex one, or a LangChain retriever / vector store), or a 400. */
export function indexRetrieverOf(value: unknown, label: string, input = "vectorStoreRetriever"): IndexRetriever {
  if (isIndexRetriever(value)) return value;
  return { kind: "llamaIndexRetriever", retriever: requireRetriever(value, label, input) };
}

/** LlamaIndex's default LLM (Settings.llm): OpenAI, as the deployment configures it. */
export const defaultLlm = (ctx: RunContext): Promise<BaseChatModel> => buildChatModel("chatOpenAI", {}, providerDeps(ctx));

/** LlamaIndex's llm.complete: the prompt as one user message; the answer's call streams to the sink. */
export const completer =
  (model: BaseChatModel, ctx: RunContext, sink?: StreamSink): Complete =>
  (prompt, stream) =>
    callModel(model, [new HumanMessage(prompt)], ctx, stream ? sink : undefined);
