// Document loader nodes: thin adapters over the document store's loaders (src/providers/loaders),
// one per Flowise node name. A loader reads its files (uploaded with POST /vector/upsert, or given
// in the flow as a data URI or as FILE-STORAGE::[names] kept in R2 under the chatflow), splits
// them with its `textSplitter` when one is connected, and outputs the documents (`document`) or
// their text (`text`). A loader feeding a vector store runs on upsert only (FLOWISE-NOTES point 5).
import { Document } from "@langchain/core/documents";
import type { TextSplitter } from "@langchain/textsplitters";
import { ApiError, fail } from "../../../errors";
import { loadDocuments, loaderDefinition, supportedLoaders } from "../../../providers/loaders/registry";
import { splitWithin } from "../../../providers/splitters/paced";
import type { LoaderFile } from "../../../providers/loaders/types";
import { decodeFlowiseDataUri, safeFileName } from "../../../providers/loaders/data-uri";
import { referencedIds } from "../../core/flow-data";
import { providerConfig } from "../../core/inputs";
import type { BuildArgs, NodeDefinition } from "../types";
import type { FlowGraph, FlowNode } from "../../core/types";
import type { RunContext } from "../../core/ports";
import { errorMessage } from "../../../lib/error-message";

export const LOADER_CATEGORY = "Document Loaders";
const FILE_STORAGE = "FILE-STORAGE::";

/** Where a file uploaded to a chatflow for upsert is kept in R2 (Flowise keeps them per chatflow too). */
export const chatflowFileKey = (chatflowid: string, name: string) => `${chatflowid}/${safeFileName(name)}`;

/** Vector store node names (the vector store family fills this), for "does this loader feed one". */
export const vectorStoreNames = new Set<string>();

const isVectorStoreNode = (node: FlowNode) => node.data.category === "Vector Stores" || vectorStoreNames.has(node.data.name);

/** Whether a node's output goes into a vector store's input (by edge or by reference). */
function feedsVectorStore(node: FlowNode, graph: FlowGraph): boolean {
  const consumers = new Set(graph.edges.filter((e) => e.source === node.id).map((e) => e.target));
  for (const n of graph.nodes) if (referencedIds(n).includes(node.id)) consumers.add(n.id);
  return graph.nodes.some((n) => consumers.has(n.id) && isVectorStoreNode(n));
}

/** A loader that feeds a vector store is built on upsert only; one feeding e.g. a prompt runs on prediction. */
export const upsertOnlyWhenFeedingVectorStore = (node: FlowNode, graph: FlowGraph): boolean => {
  const output = node.data.outputs?.output;
  return (output === undefined || output === "" || output === "document" || output === "text") && feedsVectorStore(node, graph);
};

/** The loader input that takes files for a loader node name (`txtFile`, `pdfFile`, …), if any. */
export function loaderFileField(name: string): string | undefined {
  try {
    return loaderDefinition(name).fileField;
  } catch {
    return undefined;
  }
}

const isTextSplitter = (v: unknown): v is TextSplitter =>
  !!v && typeof v === "object" && typeof (v as TextSplitter).splitDocuments === "function";

/** Files a flow gives in a file input: data URI(s), or FILE-STORAGE::["a.txt"] kept in R2. */
export async function filesOfInput(value: unknown, ctx: RunContext, where: string): Promise<LoaderFile[]> {
  if (typeof value !== "string" || !value.trim()) return [];
  const text = value.trim();
  if (text.startsWith(FILE_STORAGE)) {
    let names: unknown;
    try {
      names = JSON.parse(text.slice(FILE_STORAGE.length));
    } catch {
      throw fail("INVALID_FLOW", `${where}: ${text.slice(0, 80)} is not FILE-STORAGE::[file names]`);
    }
    const list = Array.isArray(names) ? names : [names];
    const out: LoaderFile[] = [];
    for (const name of list) {
      if (typeof name !== "string" || !name) continue;
      const stored = await ctx.runtime.files.read(chatflowFileKey(ctx.chatflowid, name));
      if (!stored)
        throw fail(
          "INVALID_FLOW",
          `${where}: file ${name} is not in this chatflow's storage; upload it with POST /vector/upsert (multipart \`files\`)`,
        );
      out.push({ name: safeFileName(name), ...stored });
    }
    return out;
  }
  if (text.startsWith("data:")) return [decodeFlowiseDataUri(text)];
  if (text.startsWith("[")) {
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      list = undefined;
    }
    if (Array.isArray(list))
      return list.filter((v): v is string => typeof v === "string" && v.startsWith("data:")).map(decodeFlowiseDataUri);
  }
  throw fail(
    "INVALID_FLOW",
    `${where}: its file input must be a data URI or FILE-STORAGE::[names]; or upload the file with POST /vector/upsert`,
  );
}

/** Checks an upload against a loader: its size (413) and whether the loader reads it (415). */
export function checkLoaderFile(loader: string, file: LoaderFile, maxBytes: number): void {
  const def = loaderDefinition(loader);
  if (file.bytes.length > maxBytes)
    throw fail(
      "LIMIT_EXCEEDED",
      `File ${file.name} is larger than the upload limit of ${Math.round(maxBytes / 1024 / 1024)} MB (MAX_UPLOAD_MB)`,
    );
  if (def.accepts && !def.accepts(file))
    throw fail("UNSUPPORTED_MEDIA_TYPE", `Loader ${loader} cannot read ${file.name} (${file.mime || "unknown type"})`);
}

/** The loader's documents, split by its text splitter when one is connected. */
async function loadNodeDocuments({ node, inputs, ctx }: BuildArgs): Promise<Document[]> {
  const name = node.data.name;
  const where = `${node.data.label} (${node.id})`;
  const def = loaderDefinition(name);
  const maxBytes = ctx.runtime.maxUploadBytes;
  const config: Record<string, unknown> = providerConfig(node, inputs);
  delete config.textSplitter;
  let files: LoaderFile[] = [];
  if (def.fileField) {
    files = ctx.files?.[def.fileField] ?? (await filesOfInput(inputs[def.fileField], ctx, where));
    delete config[def.fileField];
    if (!files.length)
      throw fail(
        "INVALID_INPUT",
        `${where} has no file: upload one with POST /vector/upsert (multipart \`files\`), or set its ${def.fileField} input`,
      );
    for (const f of files) checkLoaderFile(name, f, maxBytes);
  }
  const { limits } = ctx.runtime;
  let docs = await loadDocuments(name, {
    config,
    files,
    outbound: ctx.runtime.outbound,
    maxBytes,
    limits,
    getCredential: ctx.getCredential,
    services: ctx.runtime.providers,
  });
  const splitter = inputs.textSplitter;
  if (splitter !== undefined && splitter !== null && splitter !== "") {
    if (!isTextSplitter(splitter)) throw fail("INVALID_FLOW", `${where}: its textSplitter input is not a text splitter`);
    try {
      docs = await splitWithin(splitter, docs, limits, where);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw fail("NODE_FAILED", `${where}: splitting failed: ${errorMessage(err)}`);
    }
  }
  // NUL characters cannot be stored as text (the document store strips them too).
  return docs
    .map((d) => new Document({ pageContent: d.pageContent.replaceAll("\u0000", ""), metadata: d.metadata }))
    .filter((d) => d.pageContent.trim());
}

/** A loader's output: the documents, or (`text`) their text joined. */
export const loaderOutput = (docs: Document[], output: string | undefined): Document[] | string =>
  output === "text" ? docs.map((d) => d.pageContent).join("\n") : docs;

function loaderNode(name: string): NodeDefinition {
  return {
    name,
    category: LOADER_CATEGORY,
    upsertOnly: upsertOnlyWhenFeedingVectorStore,
    async build(args) {
      return loaderOutput(await loadNodeDocuments(args), args.output);
    },
  };
}

// Every loader the document stores have, under its Flowise node name (aliases such as txtFile are
// names of inputs, not of nodes).
export const documentLoaderNodes: NodeDefinition[] = supportedLoaders()
  .filter((n) => loaderDefinition(n).name === n)
  .map(loaderNode);
