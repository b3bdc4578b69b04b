// Shared by the LlamaIndex tests: hand-written engine flows over the local vector store (upserted
// from the town text), and their upsert.
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { makeCtx, runtimeWith, standinUrl } from "./helpers";
import { TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

type Spec = Parameters<typeof flow>[0][number];

/** The runtime with LlamaIndex's default LLM (OpenAI from OPENAI_*) at the stand-in. */
export const defaultLlmRuntime = () => runtimeWith({ OPENAI_BASE_URL: `${standinUrl()}/v1`, OPENAI_API_KEY: "sk-default-llm" });

/** plainText (the town, three paragraphs) → splitter → localHashEmbeddings → memoryVectorStore `vs_0` (topK). */
export const townStore = (topK = "1"): Spec[] => [
  ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
  [
    "loader_0",
    "plainText",
    "Document Loaders",
    { text: TOWN_TEXT, textSplitter: ref("splitter_0"), metadata: '{"source":"town"}' },
    { output: "document" },
  ],
  ["emb_0", "localHashEmbeddings", "Embeddings", {}],
  ["vs_0", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0"), topK }, { output: "retriever" }],
];

/** The town store and an engine node `engine_0` (with model_0 at the stand-in, and more nodes). */
export const engineFlow = (engine: string, inputs: Record<string, unknown>, more: Spec[] = [], topK = "1") =>
  flow([...townStore(topK), standinModel(), ...more, ["engine_0", engine, "Engine", inputs]] as never);

/** Upserts the flow's store for `chatflowid`, as POST /vector/upsert does. */
export async function upsertTown(flowData: string, chatflowid: string) {
  const { graph, plan } = planFlowUpsert(flowData);
  return runUpsert(graph, plan, makeCtx("", { chatflowid }));
}
