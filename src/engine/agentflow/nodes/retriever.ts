// Retriever: looks the query (default: the user input) up in the chosen document stores and answers
// the documents' text (`text`) or the documents as JSON (`textWithMetadata`). Better than Flowise:
// documents of every store are kept, not only the last store's.
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { asSources, retrieve } from "../../core/retrievers";
import type { AgentflowNodeDef } from "../node-types";
import { storeRetriever } from "../tools";
import { isObject, listOf } from "../util";
import { ownerOf, stateAfter, streamsAnswer } from "./common";

export const retrieverNode: AgentflowNodeDef = {
  name: "retrieverAgentflow",
  variableParams: ["retrieverQuery", "retrieverUpdateState"],
  async run(args) {
    const { node, inputs, input, rt } = args;
    const owner = ownerOf(node);
    const query = typeof inputs.retrieverQuery === "string" && inputs.retrieverQuery ? inputs.retrieverQuery : (input ?? "");
    const docs: DocumentInterface[] = [];
    for (const row of listOf(inputs.retrieverKnowledgeDocumentStores).filter(isObject)) {
      const { retriever } = await storeRetriever(rt.ctx, row.documentStore, owner);
      docs.push(...(await retrieve(retriever as BaseRetrieverInterface, query, { ...rt.ctx, signal: rt.signal })));
    }
    const format = inputs.outputFormat === "textWithMetadata" ? "textWithMetadata" : "text";
    const content = format === "text" ? docs.map((d) => d.pageContent).join("\n") : JSON.stringify(asSources(docs), null, 2);
    if (streamsAnswer(args)) rt.emit.token(content);
    return {
      id: node.id,
      name: node.data.name,
      input: { question: query },
      output: { content },
      state: stateAfter(rt.state, inputs.retrieverUpdateState, content),
    };
  },
};
