// The retrievers whose queries a model writes or whose documents a model reads: multiQueryRetriever
// (other versions of the question), HydeRetriever (a passage answering it), llmFilterRetriever
// (LLMChainExtractor: what is relevant in each document) and RRFRetriever (more queries, fused by
// reciprocal rank). The prompts are LangChain's texts, as Flowise sends them.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fail } from "../../../../errors";
import { num, str } from "../../../core/inputs";
import {
  NodeRetriever,
  documentKey,
  fillQuestion,
  labelOf,
  positive,
  requireBaseRetriever,
  requireLanguageModel,
  requireVectorStore,
  retrieverNode,
} from "./common";

// ---- multiQueryRetriever ------------------------------------------------------------------------

/** Flowise's default (LangChain's MultiQuery prompt with 3 versions written in). */
export const MULTI_QUERY_PROMPT = `You are an AI language model assistant. Your task is
to generate 3 different versions of the given user
question to retrieve relevant documents from a vector database.
By generating multiple perspectives on the user question,
your goal is to help the user overcome some of the limitations
of distance-based similarity search.

Provide these alternative questions separated by newlines between XML tags. For example:

<questions>
Question 1
Question 2
Question 3
</questions>

Original question: {question}`;

/** LangChain's LineListOutputParser: the non-blank lines between <questions> and </questions> (or of the whole text). */
export function questionLines(text: string): string[] {
  const start = text.indexOf("<questions>");
  const end = text.indexOf("</questions>");
  return text
    .slice(start === -1 ? 0 : start + "<questions>".length, end === -1 ? text.length : end)
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Hits of several searches, each document once (by content and metadata), in the order first found. */
function uniqueUnion(lists: DocumentInterface[][]): DocumentInterface[] {
  const seen = new Map<string, DocumentInterface>();
  for (const doc of lists.flat()) if (!seen.has(documentKey(doc))) seen.set(documentKey(doc), doc);
  return [...seen.values()];
}

export const multiQueryRetriever = retrieverNode("multiQueryRetriever", (args) => {
  const { inputs, ctx } = args;
  const label = labelOf(args);
  const store = requireVectorStore(inputs.vectorStore, label);
  const ask = requireLanguageModel(inputs.model, label, ctx);
  const template = str(inputs.modelPrompt) ?? MULTI_QUERY_PROMPT;
  // Flowise searches each generated query with the store's default retriever (k 4).
  const k = 4;
  return new NodeRetriever(
    async (question) => {
      const prompt = fillQuestion(template.replaceAll("{queryCount}", "3"), question);
      const queries = questionLines(await ask(prompt));
      const lists = await Promise.all(queries.map((q) => store.similaritySearch(q, k)));
      return uniqueUnion(lists);
    },
    k,
    store,
  );
});

// ---- HydeRetriever ------------------------------------------------------------------------------

/** LangChain's HyDE prompts by key (getPromptTemplateFromKey). */
export const HYDE_PROMPTS: Record<string, string> = {
  websearch: "Please write a passage to answer the question\nQuestion: {question}\nPassage:",
  scifact: "Please write a scientific paper passage to support/refute the claim\nClaim: {question}\nPassage:",
  arguana: "Please write a counter argument for the passage\nPassage: {question}\nCounter Argument:",
  "trec-covid": "Please write a scientific paper passage to answer the question\nQuestion: {question}\nPassage:",
  fiqa: "Please write a financial article passage to answer the question\nQuestion: {question}\nPassage:",
  "dbpedia-entity": "Please write a passage to answer the question.\nQuestion: {question}\nPassage:",
  "trec-news": "Please write a news passage about the topic.\nTopic: {question}\nPassage:",
  "mr-tydi": "Please write a passage in Swahili/Korean/Japanese/Bengali to answer the question in detail.\nQuestion: {question}\nPassage:",
};

export const hydeRetriever = retrieverNode("HydeRetriever", (args) => {
  const { inputs, ctx } = args;
  const label = labelOf(args);
  const store = requireVectorStore(inputs.vectorStore, label);
  const ask = requireLanguageModel(inputs.model, label, ctx);
  const key = str(inputs.promptKey);
  if (key && !str(inputs.customPrompt) && !HYDE_PROMPTS[key])
    throw fail("INVALID_FLOW", `${label}: promptKey ${key} is not one of ${Object.keys(HYDE_PROMPTS).join(", ")}`);
  // A custom prompt wins; no prompt at all (Flowise's promptKey unset) asks with the bare question.
  const template = str(inputs.customPrompt) ?? (key ? HYDE_PROMPTS[key] : undefined);
  const k = Math.floor(positive(inputs.topK, 4));
  return new NodeRetriever(
    async (question) => {
      const passage = await ask(template ? fillQuestion(template, question) : question);
      return store.similaritySearch(passage, k);
    },
    k,
    store,
  );
});

// ---- llmFilterRetriever -------------------------------------------------------------------------

/** LangChain's LLMChainExtractor prompt (chain_extract_prompt), with its NO_OUTPUT answer. */
export const EXTRACT_PROMPT =
  "Given the following question and context, extract any part of the context *AS IS* that is relevant to answer the question. " +
  `If none of the context is relevant return NO_OUTPUT.

Remember, *DO NOT* edit the extracted parts of the context.

> Question: {question}
> Context:
>>>
{context}
>>>
Extracted relevant parts:`;

export const llmFilterRetriever = retrieverNode("llmFilterRetriever", (args) => {
  const { inputs, ctx } = args;
  const label = labelOf(args);
  const base = requireBaseRetriever(inputs.baseRetriever, label);
  if (inputs.model === undefined || inputs.model === null || inputs.model === "")
    throw fail("INVALID_FLOW", `${label}: there must be a language model connected to its model input`);
  const ask = requireLanguageModel(inputs.model, label, ctx);
  return new NodeRetriever(
    async (query) => {
      const docs = await base.retriever.invoke(query);
      const extracted = await Promise.all(
        docs.map(async (doc) => {
          const prompt = EXTRACT_PROMPT.replace("{question}", () => query).replace("{context}", () => doc.pageContent);
          const text = (await ask(prompt)).trim();
          return text && text !== "NO_OUTPUT" ? new Document({ pageContent: text, metadata: doc.metadata }) : undefined;
        }),
      );
      return extracted.filter((d): d is Document => d !== undefined);
    },
    base.k,
    base.vectorStore,
  );
});

// ---- RRFRetriever -------------------------------------------------------------------------------

const RRF_SYSTEM = "You are a helpful assistant that generates multiple search queries based on a single input query.";
const rrfAsk = (query: string) =>
  `Generate multiple search queries related to: ${query}. ` +
  "Provide these alternative questions separated by newlines, do not add any numbers.";

/** Reciprocal rank fusion: each document scored Σ 1 / (rank + c) over the lists it is in, best first. */
export function reciprocalRankFusion(lists: DocumentInterface[][], c: number): DocumentInterface[] {
  const fused = new Map<string, { doc: DocumentInterface; score: number }>();
  for (const list of lists) {
    list.forEach((doc, i) => {
      const key = documentKey(doc);
      const entry = fused.get(key) ?? { doc, score: 0 };
      entry.score += 1 / (i + 1 + c);
      fused.set(key, entry);
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score)
    .map(({ doc, score }) => new Document({ pageContent: doc.pageContent, metadata: { ...doc.metadata, relevancy_score: score } }));
}

export const rrfRetriever = retrieverNode("RRFRetriever", (args) => {
  const { inputs, ctx } = args;
  const label = labelOf(args);
  const base = requireBaseRetriever(inputs.baseRetriever, label);
  const ask = requireLanguageModel(inputs.model, label, ctx);
  const queryCount = Math.floor(positive(inputs.queryCount, 4));
  const k = Math.floor(positive(inputs.topK, base.k));
  const c = num(inputs.c) ?? 60;
  // Each query's top 5, from the store behind the base retriever (else from the retriever itself).
  const search = (q: string) => (base.vectorStore ? base.vectorStore.similaritySearch(q, 5) : base.retriever.invoke(q));
  return new NodeRetriever(
    async (query) => {
      const first = await base.retriever.invoke(query);
      if (!first.length) return []; // as Flowise: nothing found, no model call
      const text = await ask([
        new SystemMessage(RRF_SYSTEM),
        new HumanMessage(rrfAsk(query)),
        new HumanMessage(`OUTPUT (${queryCount} queries):`),
      ]);
      const queries = [
        query,
        ...text
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      ];
      const lists = await Promise.all(queries.map(search));
      return reciprocalRankFusion(lists, c).slice(0, k);
    },
    k,
    base.vectorStore,
  );
});
