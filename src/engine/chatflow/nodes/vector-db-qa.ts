// vectorDBQAChain (Flowise's "VectorDB QA Chain", deprecating): LangChain's VectorDBQAChain is a
// retrieval QA over a vector store (its `k` when it has one, else 4): the Retrieval QA Chain here,
// given the store's retriever.
import type { VectorStore } from "@langchain/core/vectorstores";
import { fail } from "../../../errors";
import { num } from "../../core/inputs";
import type { NodeDefinition } from "../types";
import { retrievalNodes } from "./retrieval";
import { chainCanStream } from "./chains";

const isVectorStore = (v: unknown): v is VectorStore =>
  !!v && typeof v === "object" && typeof (v as VectorStore).asRetriever === "function";

/** The Retrieval QA Chain definition: what this chain is, over a vector store. */
export const retrievalQa = (): NodeDefinition => {
  const def = retrievalNodes.find((n) => n.name === "retrievalQAChain");
  if (!def?.run) throw new Error("retrievalQAChain is not registered");
  return def;
};

export const vectorDbQaNode: NodeDefinition = {
  name: "vectorDBQAChain",
  category: "Chains",
  async build(args) {
    const store = args.inputs.vectorStore;
    if (!isVectorStore(store))
      throw fail(
        "INVALID_FLOW",
        `${args.node.data.label} needs a vector store (its Vector Store output) connected to its vectorStore input`,
      );
    const k = Math.max(1, Math.floor(num((store as { k?: unknown }).k) ?? 4));
    return retrievalQa().build({ ...args, inputs: { ...args.inputs, vectorStoreRetriever: store.asRetriever(k) } });
  },
  run: (instance, run) => retrievalQa().run!(instance, run),
  canStream: chainCanStream,
};
