// Document loaders that are nodes only (they need the run, not a file or a URL, so the document store
// wizard does not offer them — Flowise leaves vectorStoreToDocument out of it too):
//   customDocumentLoader: `javascriptFunction` runs in the QuickJS sandbox as the Custom JS Function
//     does (the custom tools' time and memory limits, fetch under the outbound policy; `$input`,
//     `$<name>` per functionInputVariables, `$vars`, `$flow`). Output `document`: it must return an
//     array of {pageContent: string, metadata: object}; output `text`: a string (or such an array,
//     whose texts are joined).
//   vectorStoreToDocument: the connected vector store's similarity search for `query` (else the
//     question), its own top K, hits under `minScore` % left out.
import { Document } from "@langchain/core/documents";
import type { VectorStore } from "@langchain/core/vectorstores";
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { RunAborted } from "../../../lib/run-control";
import { num, str } from "../../core/inputs";
import type { RunContext } from "../../core/ports";
import type { FlowNode } from "../../core/types";
import type { NodeDefinition } from "../types";
import { runNodeCode, variablesOf } from "./custom-function";
import { LOADER_CATEGORY, loaderOutput, upsertOnlyWhenFeedingVectorStore } from "./document-loaders";
import { requireVectorStore, storeK } from "./retrievers/common";

const owner = (node: FlowNode) => `${node.data.label} (${node.id})`;

async function runLoaderCode(node: FlowNode, inputs: Record<string, unknown>, ctx: RunContext): Promise<unknown> {
  const code = typeof inputs.javascriptFunction === "string" ? inputs.javascriptFunction : "";
  if (!code.trim()) throw fail("INVALID_FLOW", `${owner(node)} has no JavaScript function (javascriptFunction)`);
  return runNodeCode(node, code, variablesOf(inputs.functionInputVariables, node, "Custom Document Loader"), ctx);
}

const isDocumentLike = (v: unknown): v is { pageContent: string; metadata: Record<string, unknown> } =>
  !!v &&
  typeof v === "object" &&
  typeof (v as Document).pageContent === "string" &&
  !!(v as Document).metadata &&
  typeof (v as Document).metadata === "object" &&
  !Array.isArray((v as Document).metadata);

const customDocumentLoader: NodeDefinition = {
  name: "customDocumentLoader",
  category: LOADER_CATEGORY,
  upsertOnly: upsertOnlyWhenFeedingVectorStore,
  async build({ node, inputs, ctx, output }) {
    const value = await runLoaderCode(node, inputs, ctx);
    if (output === "text" && typeof value === "string") return value;
    if (!Array.isArray(value) || !value.every(isDocumentLike))
      throw fail(
        "SANDBOX_FAILED",
        output === "text"
          ? `${owner(node)}: its function must return a string, or an array of documents ({pageContent, metadata})`
          : `${owner(node)}: its function must return an array of document objects containing pageContent and metadata`,
      );
    const docs = value.map((d) => new Document({ pageContent: d.pageContent, metadata: { ...d.metadata } }));
    return loaderOutput(docs, output === "text" ? "text" : "document");
  },
};

const vectorStoreToDocument: NodeDefinition = {
  name: "vectorStoreToDocument",
  category: LOADER_CATEGORY,
  upsertOnly: upsertOnlyWhenFeedingVectorStore,
  async build({ node, inputs, ctx, output }) {
    const store: VectorStore = requireVectorStore(inputs.vectorStore, owner(node));
    const query = str(inputs.query) ?? ctx.question;
    const minScore = num(inputs.minScore);
    const filter = (store as { filter?: unknown }).filter as VectorStore["FilterType"] | undefined;
    let hits: Array<[Document, number]>;
    try {
      hits = await store.similaritySearchWithScore(query, storeK(inputs.vectorStore), filter);
    } catch (err) {
      if (err instanceof ApiError || err instanceof RunAborted) throw err;
      throw fail("NODE_FAILED", `${owner(node)}: the vector store search failed: ${errorMessage(err)}`);
    }
    const docs = hits.filter(([, score]) => !minScore || score >= minScore / 100).map(([doc]) => doc);
    // Flowise ends each text with a newline.
    return output === "document" ? docs : docs.map((d) => `${d.pageContent}\n`).join("");
  },
};

export const codeLoaderNodes: NodeDefinition[] = [customDocumentLoader, vectorStoreToDocument];
