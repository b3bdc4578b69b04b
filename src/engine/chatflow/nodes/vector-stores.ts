// Vector store nodes in chatflows: the document store's vector stores (src/providers/vectorstores)
// under their Flowise node names — faiss, memoryVectorStore and Flowise's other in-process stores
// are the local D1 store, vectorize is Cloudflare's. Each node owns a namespace of its own,
// <chatflowid>_<node id>, so two chatflows (or two nodes) never see each other's vectors.
//
//   prediction  build: a retriever over the namespace (output `retriever`, `topK` default 4) or the
//               store itself (output `vectorStore`); its loaders are not run.
//   upsert      upsert: the documents its loaders give, embedded and indexed through a record
//               manager — the connected record manager node, else one of its own with `full`
//               cleanup: the namespace then holds exactly what the last upsert gave (as Flowise's
//               faiss, which saves a new index each time), unchanged chunks are skipped, not re-embedded.
import { Document, type DocumentInterface } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { sha256Hex } from "../../../lib/crypto";
import { indexDocuments } from "../../../providers/recordmanager/indexing";
import { supportedRecordManagers } from "../../../providers/recordmanager/registry";
import { storeTakesEmbeddings, supportedVectorStores } from "../../../providers/vectorstores/registry";
import { ServiceEmbedsText } from "../../../providers/vectorstores/remote";
import type { DocVectorStore } from "../../../providers/vectorstores/types";
import type { BuildArgs, NodeDefinition } from "../types";
import type { UpsertCounts } from "../../core/types";
import { vectorStoreNames } from "./document-loaders";
import { requireEmbeddings } from "./embeddings";
import { asList, num, providerConfig } from "../../core/inputs";

export const VECTOR_STORE_CATEGORY = "Vector Stores";
export const DEFAULT_TOP_K = 4;
const DEFAULT_RECORD_MANAGER = "SQLiteRecordManager";

/** Vectorize caps namespaces at 64 bytes: a long node id is replaced by a hash of it. */
export async function flowNamespace(chatflowid: string, nodeId: string): Promise<string> {
  const plain = `${chatflowid}_${nodeId}`;
  return plain.length <= 64 ? plain : `${chatflowid}_${(await sha256Hex(nodeId)).slice(0, 63 - chatflowid.length)}`;
}

/** `topK` as a node gives it (a number or a numeric string), default 4, within what the store answers. */
export function topKOf(value: unknown, max: number): number {
  const n = num(value);
  if (n === undefined) return Math.min(DEFAULT_TOP_K, max);
  if (!Number.isInteger(n) || n < 1) throw fail("INVALID_FLOW", `topK must be a whole number of at least 1; got ${JSON.stringify(value)}`);
  return Math.min(n, max);
}

/** What a vector store node outputs: the store (`vectorStore`) or a retriever with topK. */
export function storeOutput(store: DocVectorStore, output: string | undefined, topK: unknown, inputs: Record<string, unknown> = {}) {
  if (output === "vectorStore") return store;
  const k = topKOf(topK, store.maxTopK);
  // Flowise's searchType "mmr" (fetchK, lambda) where the store can diversify its results; else similarity.
  if (inputs.searchType === "mmr" && typeof store.maxMarginalRelevanceSearch === "function") {
    return store.asRetriever({
      k,
      searchType: "mmr",
      searchKwargs: { fetchK: num(inputs.fetchK) ?? 20, lambda: num(inputs.lambda) ?? 0.5 },
    });
  }
  return store.asRetriever({ k });
}

interface RecordManagerInstance {
  kind: "recordManager";
  name: string;
  label: string;
  config: Record<string, unknown>;
}

const isRecordManager = (v: unknown): v is RecordManagerInstance =>
  !!v && typeof v === "object" && (v as { kind?: unknown }).kind === "recordManager";

/** The node's store: the provider named like the node, or `storeName` (a LlamaIndex twin opens its LangChain store). */
export async function storeOf({ node, inputs, ctx }: BuildArgs, storeName = node.data.name): Promise<DocVectorStore> {
  const label = `${node.data.label} (${node.id})`;
  // A service that embeds the text itself (zepCloud) takes none.
  const embeddings = storeTakesEmbeddings(storeName) ? requireEmbeddings(inputs.embeddings, label) : new ServiceEmbedsText();
  const namespace = await flowNamespace(ctx.chatflowid, node.id);
  return ctx.runtime.vectorStores.open(storeName, providerConfig(node, inputs), embeddings, namespace);
}

/** The documents of a `document` input: loaders give lists of documents (a `text` output, a string). */
function documentsOf(value: unknown): DocumentInterface[] {
  const out: DocumentInterface[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === "string") {
      if (v.trim()) out.push(new Document({ pageContent: v, metadata: {} }));
    } else if (v && typeof v === "object" && typeof (v as DocumentInterface).pageContent === "string") {
      const d = v as DocumentInterface;
      if (d.pageContent.trim()) out.push(new Document({ pageContent: d.pageContent, metadata: d.metadata ?? {} }));
    }
  };
  asList(value).forEach(visit);
  return out;
}

export async function upsertInto(args: BuildArgs, storeName?: string): Promise<UpsertCounts> {
  const { node, inputs, ctx } = args;
  const label = `${node.data.label} (${node.id})`;
  const docs = documentsOf(inputs.document);
  if (!docs.length)
    throw fail("NODE_FAILED", `${label}: nothing to upsert — the loaders connected to its document input gave no documents`);
  const store = await storeOf(args, storeName);
  // Without a record manager node: one of its own with full cleanup (the namespace then holds what this upsert gave).
  const { name, config } = isRecordManager(inputs.recordManager)
    ? inputs.recordManager
    : { name: DEFAULT_RECORD_MANAGER, config: { cleanup: "full" } };
  const { recordManager, cleanup, sourceIdKey, forceUpdate } = ctx.runtime.vectorStores.recordManager(name, config, store.namespace);
  const result = await indexDocuments(docs, recordManager, store, { cleanup, sourceIdKey, forceUpdate });
  return {
    numAdded: result.numAdded,
    numUpdated: result.numUpdated,
    numSkipped: result.numSkipped,
    numDeleted: result.numDeleted,
    addedDocs: result.addedDocs.map((d) => ({ pageContent: d.pageContent, metadata: d.metadata ?? {} })),
  };
}

function vectorStoreNode(name: string): NodeDefinition {
  vectorStoreNames.add(name);
  return {
    name,
    category: VECTOR_STORE_CATEGORY,
    // Flowise's meilisearch names its topK `K`.
    build: async (args) => storeOutput(await storeOf(args), args.output, args.inputs.topK ?? args.inputs.K, args.inputs),
    upsert: (args) => upsertInto(args),
  };
}

const recordManagerNode = (name: string): NodeDefinition => ({
  name,
  category: "Record Manager",
  build: async ({ node, inputs }): Promise<RecordManagerInstance> => ({
    kind: "recordManager",
    name,
    label: node.data.label,
    config: inputs,
  }),
});

/** Stores whose chatflow nodes are built elsewhere. */
const OWN_NODES = new Set(["vectara"]);

export const vectorStoreNodes: NodeDefinition[] = [
  // vectara has nodes of its own (nodes/vectara.ts: its file upload and its QA chain read the store).
  ...supportedVectorStores()
    .filter((n) => !OWN_NODES.has(n))
    .map(vectorStoreNode),
  ...supportedRecordManagers().map(recordManagerNode),
];
