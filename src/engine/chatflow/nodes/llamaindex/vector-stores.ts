// LlamaIndex vector store nodes: thin mappings onto the LangChain store of the same service
// (same inputs, credential and namespace rules), handing on the retriever with the chat model
// connected to the node, which LlamaIndex's query engines answer with.
//   pineconeLlamaIndex → pinecone (pineconeIndex, pineconeNamespace, pineconeMetadataFilter, topK;
//   credential pineconeApi). Upsert goes through a record manager like the LangChain node's, so
//   upserting the same documents again does not add them twice.
import { isChatModel } from "../../instances";
import type { NodeDefinition } from "../../types";
import { vectorStoreNames } from "../document-loaders";
import { VECTOR_STORE_CATEGORY, storeOf, topKOf, upsertInto } from "../vector-stores";
import type { IndexRetriever } from "./retriever";

function llamaIndexStoreNode(name: string, storeName: string): NodeDefinition {
  // Loaders feeding it run on upsert only, as for any vector store.
  vectorStoreNames.add(name);
  return {
    name,
    category: VECTOR_STORE_CATEGORY,
    async build(args): Promise<IndexRetriever> {
      const store = await storeOf(args, storeName);
      // Both outputs (retriever, vectorStore) feed LlamaIndex engines, which retrieve topK passages.
      const retriever = store.asRetriever({ k: topKOf(args.inputs.topK, store.maxTopK) });
      return { kind: "llamaIndexRetriever", retriever, model: isChatModel(args.inputs.model) ? args.inputs.model : undefined };
    },
    upsert: (args) => upsertInto(args, storeName),
  };
}

export const llamaIndexStoreNodes: NodeDefinition[] = [llamaIndexStoreNode("pineconeLlamaIndex", "pinecone")];
