// Retrievers as nodes hand them to each other: a retriever, or a vector store standing in for one;
// retrieving with the run's signal (a failure is the provider's, 502); documents as sources.
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import type { VectorStore } from "@langchain/core/vectorstores";
import { ApiError, fail } from "../../errors";
import { RunAborted } from "../../lib/run-control";
import type { RunContext } from "./ports";
import type { SourceDocument } from "./types";
import { errorMessage } from "../../lib/error-message";

/** A vector store instance (for nodes that take either a retriever or a vector store). */
const isVectorStore = (v: unknown): v is VectorStore =>
  !!v &&
  typeof v === "object" &&
  typeof (v as VectorStore).asRetriever === "function" &&
  typeof (v as VectorStore).similaritySearch === "function";

const isRetriever = (v: unknown): v is BaseRetrieverInterface =>
  !!v &&
  typeof v === "object" &&
  typeof (v as BaseRetrieverInterface).invoke === "function" &&
  typeof (v as { _getRelevantDocuments?: unknown })._getRelevantDocuments === "function";

/** The retriever an input must hold (a vector store becomes its retriever), or a 400 naming the input. */
export function requireRetriever(value: unknown, label: string, input: string): BaseRetrieverInterface {
  if (isRetriever(value)) return value;
  if (isVectorStore(value)) return value.asRetriever(4);
  throw fail("INVALID_FLOW", `${label} needs a retriever (a vector store node, or a document store) connected to its ${input} input`);
}

/** The retriever's documents for a query; an unexpected failure is the provider's (502). */
/** `callbacks`: the caller's run (a tool's), so a trace shows the retrieval under it. */
export async function retrieve(
  retriever: BaseRetrieverInterface,
  query: string,
  ctx: RunContext,
  callbacks?: Callbacks,
): Promise<DocumentInterface[]> {
  try {
    return await retriever.invoke(query, { signal: ctx.signal, ...(callbacks ? { callbacks } : {}) });
  } catch (err) {
    if (ctx.signal?.aborted) throw new RunAborted();
    if (err instanceof ApiError || err instanceof RunAborted) throw err;
    throw fail("UPSTREAM_FAILED", `Retrieval failed: ${errorMessage(err)}`);
  }
}

export const asSources = (docs: DocumentInterface[]): SourceDocument[] =>
  docs.map((d) => ({ pageContent: d.pageContent, metadata: { ...(d.metadata ?? {}) } }));
