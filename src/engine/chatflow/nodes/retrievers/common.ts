// What the retriever nodes share: a retriever made of a search function, the inputs they take (a
// vector store, a base retriever, a language model), and Flowise's three outputs.
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import { type BaseMessage, HumanMessage, getBufferString } from "@langchain/core/messages";
import { BaseRetriever, type BaseRetrieverInterface } from "@langchain/core/retrievers";
import type { VectorStore } from "@langchain/core/vectorstores";
import { fail } from "../../../../errors";
import { contentText } from "../../../../providers/chat/messages";
import { modelFailure } from "../../../core/errors";
import { num, str } from "../../../core/inputs";
import { callModel } from "../../../core/llm";
import type { RunContext } from "../../../core/ports";
import { requireRetriever, retrieve } from "../../../core/retrievers";
import { isChatModel } from "../../instances";
import type { BuildArgs, NodeDefinition } from "../../types";

/** A retriever whose search is a function; `vectorStore` and `k` as LangChain's VectorStoreRetriever has them. */
export class NodeRetriever extends BaseRetriever {
  lc_namespace = ["edgeflow", "retrievers"];

  constructor(
    private readonly search: (query: string) => Promise<DocumentInterface[]>,
    readonly k?: number,
    readonly vectorStore?: VectorStore,
  ) {
    super();
  }

  async _getRelevantDocuments(query: string): Promise<DocumentInterface[]> {
    return this.search(query);
  }
}

const isVectorStore = (v: unknown): v is VectorStore =>
  !!v &&
  typeof v === "object" &&
  typeof (v as VectorStore).similaritySearch === "function" &&
  typeof (v as VectorStore).similaritySearchWithScore === "function";

/** The retriever's vector store, when it searches one (a vector store node's retriever output). */
const storeBehind = (v: unknown): VectorStore | undefined => {
  const store = (v as { vectorStore?: unknown } | null)?.vectorStore;
  return isVectorStore(store) ? store : undefined;
};

/** The vector store an input holds (a vector store node, either output), or a 400 naming the input. */
export function requireVectorStore(value: unknown, label: string, input = "vectorStore"): VectorStore {
  if (isVectorStore(value)) return value;
  const behind = storeBehind(value);
  if (behind) return behind;
  throw fail("INVALID_FLOW", `${label} needs a vector store node connected to its ${input} input`);
}

/** A vector store node's own top K (Flowise sets `k` on the store it hands on), else `fallback`. */
export function storeK(value: unknown, fallback = 4): number {
  const k = (value as { k?: unknown } | null)?.k;
  return typeof k === "number" && k > 0 ? k : fallback;
}

export interface BaseRetrieverInput {
  retriever: BaseRetrieverInterface;
  /** Its top K (a vector store node's topK), 4 when it has none. */
  k: number;
  /** The vector store behind it, when there is one. */
  vectorStore?: VectorStore;
}

/** A `baseRetriever` input (a vector store node's retriever output, another retriever node, or a vector store). */
export function requireBaseRetriever(value: unknown, label: string, input = "baseRetriever"): BaseRetrieverInput {
  const retriever = requireRetriever(value, label, input);
  return { retriever, k: storeK(retriever), vectorStore: isVectorStore(value) ? value : storeBehind(retriever) };
}

/** Asks a language model: a chat model gets the messages, a text LLM their text (as LangChain formats a chat prompt for one). */
export type Ask = (messages: BaseMessage[] | string) => Promise<string>;

const isTextLlm = (v: unknown): v is BaseLanguageModelInterface =>
  !!v && typeof v === "object" && typeof (v as BaseLanguageModelInterface).invoke === "function" && "_modelType" in v;

/** The language model an input holds (a chat model, or a text LLM node), as an Ask; else a 400 naming the input. */
export function requireLanguageModel(value: unknown, label: string, ctx: RunContext, input = "model"): Ask {
  const asMessages = (m: BaseMessage[] | string) => (typeof m === "string" ? [new HumanMessage(m)] : m);
  if (isChatModel(value)) return (m) => callModel(value, asMessages(m), ctx);
  if (isTextLlm(value)) {
    return async (m) => {
      try {
        const out = await value.invoke(typeof m === "string" ? m : getBufferString(m), { signal: ctx.signal });
        return typeof out === "string" ? out : contentText((out as { content?: unknown })?.content as never);
      } catch (err) {
        throw modelFailure(err, ctx);
      }
    };
  }
  throw fail("INVALID_FLOW", `${label} needs a language model connected to its ${input} input`);
}

/** Fills a prompt's `{question}` (`{{` / `}}` are literal braces, as in a LangChain template). */
export const fillQuestion = (template: string, question: string): string =>
  template.replace(/\{\{|\}\}|\{question\}/g, (m) => (m === "{{" ? "{" : m === "}}" ? "}" : question));

/**
 * Flowise's outputs of a retriever node: the retriever (`retriever`, the default), or, at build,
 * its documents (`document`) or their text (`text`, each passage and a new line) for the node's
 * `query` input, else the question.
 */
export async function retrieverOutput(retriever: BaseRetrieverInterface, { inputs, ctx, output }: BuildArgs): Promise<unknown> {
  if (output !== "document" && output !== "text") return retriever;
  const docs = await retrieve(retriever, str(inputs.query) ?? ctx.question, ctx);
  return output === "document" ? docs : docs.map((d) => `${d.pageContent}\n`).join("");
}

/** The key LangChain's MultiQueryRetriever tells documents apart by: content and metadata. */
export const documentKey = (doc: DocumentInterface): string =>
  `${doc.pageContent}:${JSON.stringify(Object.entries(doc.metadata ?? {}).sort())}`;

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export const CATEGORY = "Retrievers";

export const labelOf = ({ node }: BuildArgs) => `${node.data.label} (${node.id})`;

/** A positive number input, else `fallback`. */
export const positive = (value: unknown, fallback: number): number => {
  const n = num(value);
  return n !== undefined && n > 0 ? n : fallback;
};

/** Largest k a store answers in one query (our stores say; others 100). */
export const maxKOf = (store: VectorStore): number => {
  const max = (store as { maxTopK?: unknown }).maxTopK;
  return typeof max === "number" && max > 0 ? max : 100;
};

export const retrieverNode = (name: string, make: (args: BuildArgs) => Promise<NodeRetriever> | NodeRetriever): NodeDefinition => ({
  name,
  category: CATEGORY,
  build: async (args) => retrieverOutput(await make(args), args),
});
