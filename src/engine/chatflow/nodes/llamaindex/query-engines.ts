// LlamaIndex query engines (category Engine), stateless (no memory):
//   queryEngine             retrieves for the question, then its response synthesizer answers
//                           (CompactAndRefine with LlamaIndex's prompts when none is connected)
//                           with the chat model of the vector store node (else LlamaIndex's default)
//   subQuestionQueryEngine  its model splits the question into sub-questions, one per relevant
//                           query engine tool; each tool answers its own; the synthesizer answers
//                           the question from the "Sub question: …\nResponse: …" passages
// `returnSourceDocuments` → sourceDocuments: the retrieved passages, or the sub-question passages.
// A tool that fails fails the run (its model or vector database is named by the 502/504), where
// LlamaIndex would drop the sub-question silently; a tool name the model made up is skipped.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../../../errors";
import { asList, bool } from "../../../core/inputs";
import type { RunContext } from "../../../core/ports";
import { asSources, retrieve } from "../../../core/retrievers";
import type { SourceDocument, StreamSink } from "../../../core/types";
import { requireChatModel } from "../../instances";
import type { NodeDefinition } from "../../types";
import { type Answer, ENGINE_CATEGORY, engineCanStream, isKind } from "./answer";
import { type IndexRetriever, completer, defaultLlm, indexRetrieverOf } from "./retriever";
import { generateSubQuestions } from "./sub-questions";
import { DEFAULT_SYNTHESIZER, type SynthesizerInstance, isSynthesizer, synthesize } from "./synthesize";

interface QueryEngine {
  kind: "queryEngine";
  retriever: IndexRetriever;
  synthesizer: SynthesizerInstance;
  returnSourceDocuments: boolean;
}

interface SubQuestionEngine {
  kind: "subQuestionQueryEngine";
  label: string;
  model: BaseChatModel;
  tools: StructuredToolInterface[];
  synthesizer: SynthesizerInstance;
  returnSourceDocuments: boolean;
}

function synthesizerOf(value: unknown, label: string): SynthesizerInstance {
  if (value === undefined || value === null || value === "") return DEFAULT_SYNTHESIZER;
  if (isSynthesizer(value)) return value;
  throw fail("INVALID_FLOW", `${label}: its responseSynthesizer input is not a response synthesizer`);
}

/** The synthesized answer to the run's question from these passages (streamed to the sink). */
async function answerFrom(
  s: SynthesizerInstance,
  model: BaseChatModel,
  passages: SourceDocument[],
  ctx: RunContext,
  sink: StreamSink | undefined,
  returnSources: boolean,
): Promise<Answer> {
  const chunks = passages.map((p) => p.pageContent);
  const text = await synthesize(s, ctx.question, chunks, completer(model, ctx, sink), (t) => sink?.token(t));
  return returnSources ? { text, sourceDocuments: passages } : { text };
}

async function runQueryEngine(engine: QueryEngine, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const docs = await retrieve(engine.retriever.retriever, ctx.question, ctx);
  const model = engine.retriever.model ?? (await defaultLlm(ctx));
  return answerFrom(engine.synthesizer, model, asSources(docs), ctx, sink, engine.returnSourceDocuments);
}

/**
 * Sub-questions answered per run, at most: each costs an engine run (embedding, vector query, model
 * call) and they run at once, within the Worker's subrequest budget. Further ones are left out.
 */
export const MAX_SUB_QUESTIONS = 12;

async function runSubQuestionEngine(engine: SubQuestionEngine, ctx: RunContext, sink?: StreamSink): Promise<Answer> {
  const subQuestions = (await generateSubQuestions(engine.model, engine.tools, ctx.question, ctx, engine.label)).slice(
    0,
    MAX_SUB_QUESTIONS,
  );
  const byName = new Map(engine.tools.map((t) => [t.name, t]));
  const answered = await Promise.all(
    subQuestions.map(async ({ subQuestion, toolName }) => {
      const tool = byName.get(toolName);
      if (!tool) return undefined;
      const response = String(await tool.invoke({ query: subQuestion }, { signal: ctx.signal }));
      return response ? { pageContent: `Sub question: ${subQuestion}\nResponse: ${response}`, metadata: {} } : undefined;
    }),
  );
  const passages = answered.filter((p): p is SourceDocument => p !== undefined);
  return answerFrom(engine.synthesizer, engine.model, passages, ctx, sink, engine.returnSourceDocuments);
}

const isTool = (v: unknown): v is StructuredToolInterface =>
  !!v &&
  typeof v === "object" &&
  typeof (v as StructuredToolInterface).invoke === "function" &&
  typeof (v as StructuredToolInterface).name === "string";

const isQueryEngine = isKind<QueryEngine>("queryEngine");
const isSubQuestionEngine = isKind<SubQuestionEngine>("subQuestionQueryEngine");

export const queryEngineNodes: NodeDefinition[] = [
  {
    name: "queryEngine",
    category: ENGINE_CATEGORY,
    async build({ node, inputs }): Promise<QueryEngine> {
      const label = `${node.data.label} (${node.id})`;
      return {
        kind: "queryEngine",
        retriever: indexRetrieverOf(inputs.vectorStoreRetriever, label),
        synthesizer: synthesizerOf(inputs.responseSynthesizer, label),
        returnSourceDocuments: bool(inputs.returnSourceDocuments),
      };
    },
    async run(instance, { ctx, sink }) {
      if (!isQueryEngine(instance)) throw fail("INVALID_FLOW", "queryEngine was not built");
      return runQueryEngine(instance, ctx, sink);
    },
    canStream: engineCanStream,
  },
  {
    name: "subQuestionQueryEngine",
    category: ENGINE_CATEGORY,
    async build({ node, inputs }): Promise<SubQuestionEngine> {
      const label = `${node.data.label} (${node.id})`;
      const tools = asList(inputs.queryEngineTools).flat().filter(isTool);
      if (!tools.length) throw fail("INVALID_FLOW", `${label} needs query engine tools connected to its queryEngineTools input`);
      return {
        kind: "subQuestionQueryEngine",
        label,
        model: requireChatModel(inputs.model, label),
        tools,
        synthesizer: synthesizerOf(inputs.responseSynthesizer, label),
        returnSourceDocuments: bool(inputs.returnSourceDocuments),
      };
    },
    async run(instance, { ctx, sink }) {
      if (!isSubQuestionEngine(instance)) throw fail("INVALID_FLOW", "subQuestionQueryEngine was not built");
      return runSubQuestionEngine(instance, ctx, sink);
    },
    canStream: engineCanStream,
  },
];
