// LlamaIndex chat engines (category Engine), answering with the conversation so far:
//   simpleChatEngine   the model, the memory and the question
//   contextChatEngine  the same, with the passages retrieved for the question in a system message
//                      ("Context information is below. …"); `returnSourceDocuments` → sourceDocuments
// As in Flowise, `systemMessagePrompt` goes first as a user message (LlamaIndex chat history), then
// the stored turns of the session (the memory node's, else this session's), then the question.
// The prediction layer stores the exchange, as Flowise's engine adds it to the memory.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fail } from "../../../../errors";
import { bool, str } from "../../../core/inputs";
import { callModel } from "../../../core/llm";
import type { RunContext } from "../../../core/ports";
import { asSources, retrieve } from "../../../core/retrievers";
import type { StreamSink } from "../../../core/types";
import { type MemoryInstance, isMemory, requireChatModel, turnsToMessages } from "../../instances";
import type { NodeDefinition } from "../../types";
import { type Answer, ENGINE_CATEGORY, engineCanStream, isKind } from "./answer";
import { contextSystemPrompt } from "./prompts";
import { type IndexRetriever, indexRetrieverOf } from "./retriever";

interface ChatEngine {
  kind: "simpleChatEngine" | "contextChatEngine";
  model: BaseChatModel;
  memory?: MemoryInstance;
  systemMessagePrompt?: string;
  retriever?: IndexRetriever;
  returnSourceDocuments: boolean;
}

/** The system message prompt (as a user turn), the session's turns, the question. */
async function conversation(engine: ChatEngine, ctx: RunContext): Promise<BaseMessage[]> {
  // The memory's own view of the conversation (a window, a summary, Redis), else the session's turns.
  const history = engine.memory ? await engine.memory.messages() : turnsToMessages(await ctx.loadMemory());
  const intro = engine.systemMessagePrompt ? [new HumanMessage(engine.systemMessagePrompt)] : [];
  return [...intro, ...history, new HumanMessage(ctx.question)];
}

async function runChatEngine(engine: ChatEngine, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const messages = await conversation(engine, ctx);
  if (!engine.retriever) return { text: await callModel(engine.model, messages, ctx, sink) };
  const docs = await retrieve(engine.retriever.retriever, ctx.question, ctx);
  // Nothing retrieved: LlamaIndex's context prompt is empty, so no system message is sent.
  const system = contextSystemPrompt(docs.map((d) => d.pageContent).join("\n\n"));
  const text = await callModel(engine.model, system ? [new SystemMessage(system), ...messages] : messages, ctx, sink);
  return engine.returnSourceDocuments ? { text, sourceDocuments: asSources(docs) } : { text };
}

function chatEngineNode(name: ChatEngine["kind"], withContext: boolean): NodeDefinition {
  const isEngine = isKind<ChatEngine>(name);
  return {
    name,
    category: ENGINE_CATEGORY,
    async build({ node, inputs }): Promise<ChatEngine> {
      const label = `${node.data.label} (${node.id})`;
      return {
        kind: name,
        model: requireChatModel(inputs.model, label),
        memory: isMemory(inputs.memory) ? inputs.memory : undefined,
        systemMessagePrompt: str(inputs.systemMessagePrompt),
        retriever: withContext ? indexRetrieverOf(inputs.vectorStoreRetriever, label) : undefined,
        returnSourceDocuments: withContext && bool(inputs.returnSourceDocuments),
      };
    },
    async run(instance, { ctx, sink }) {
      if (!isEngine(instance)) throw fail("INVALID_FLOW", `${name} was not built`);
      return runChatEngine(instance, ctx, sink);
    },
    canStream: engineCanStream,
  };
}

export const chatEngineNodes: NodeDefinition[] = [chatEngineNode("simpleChatEngine", false), chatEngineNode("contextChatEngine", true)];
