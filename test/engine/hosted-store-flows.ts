// Shared by the hosted vector store tests (qdrant, chroma, supabase, upstash, weaviate, elastic,
// meilisearch, pinecone), each against its own stand-in: the chatflow they build around the store
// node, upserting and predicting with it, the errors they expect, what D1 keeps and what the chat
// stand-in was sent. Recorded requests are picked by a marker, never by shared text.
import { env } from "cloudflare:workers";
import type { RunResult } from "../../src/engine";
import { planFlowUpsert, runUpsert } from "../../src/engine/chatflow/upsert";
import { makeCtx, marker, requestsWith, runFlow } from "./helpers";
import { BAKERY, LIBRARY, TOWN_TEXT, flow, ref, standinModel } from "./retrieval-flows";

type Over = Parameters<typeof makeCtx>[1];

/** Runs a flow's upsert (what the upsert route does). */
export const upsertFlow = async (flowData: string, over: Over = {}) => {
  const { graph, plan } = planFlowUpsert(flowData);
  return runUpsert(graph, plan, makeCtx("", over));
};
/** Runs a prediction of a flow. */
export const predict = (flowData: string, question: string, over: Over = {}) => runFlow(flowData, makeCtx(question, over));
/** The error a promise rejects with (undefined when it resolves). */
export const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
/** The chat completions the stand-in received with a marker in them. */
export const chatRequestsWith = async (m: string) => (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));

/** A request a store's stand-in recorded. */
export interface StoreRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}
/** Every request a store's stand-in (at `base`) recorded, oldest first; callers pick theirs by collection/index name. */
export const storeRequests = async (base: string) => (await (await fetch(`${base}/requests`)).json()) as StoreRequest[];

/** What a store test's town flow builder takes besides where the store keeps its vectors. */
export interface TownFlowOptions {
  credential?: string;
  text?: string;
  metadata?: string;
  topK?: string;
  extra?: Record<string, unknown>;
  recordManager?: Record<string, unknown>;
}

/**
 * plainText → splitter → localHashEmbeddings → the store node (→ recordManager) → retrievalQAChain at the chat stand-in.
 * `inputs` are the store's own (its stand-in URL, collection/index, topK, extras), after the wiring.
 */
export function storeFlow(opts: {
  id: string;
  node: string;
  credential?: string;
  inputs: Record<string, unknown>;
  text?: string;
  metadata?: string;
  recordManager?: Record<string, unknown>;
}) {
  return flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000, chunkOverlap: "" }],
    [
      "loader_0",
      "plainText",
      "Document Loaders",
      { text: opts.text ?? TOWN_TEXT, textSplitter: ref("splitter_0"), metadata: opts.metadata ?? '{"source":"town"}' },
      { output: "document" },
    ],
    ["emb_0", "localHashEmbeddings", "Embeddings", {}],
    ...(opts.recordManager ? [["rm_0", "SQLiteRecordManager", "Record Manager", opts.recordManager]] : []),
    [
      opts.id,
      opts.node,
      "Vector Stores",
      {
        ...(opts.credential !== undefined ? { credential: opts.credential } : {}),
        document: [ref("loader_0")],
        embeddings: ref("emb_0"),
        ...(opts.recordManager ? { recordManager: ref("rm_0") } : {}),
        ...opts.inputs,
      },
      { output: "retriever" },
    ],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref(opts.id), returnSourceDocuments: true }],
  ] as never);
}

/** LIBRARY upserted with 8-dimension embeddings into the store node (`inputs` name where): a write the store refuses. */
export const otherSizeFlow = (id: string, node: string, inputs: Record<string, unknown>) =>
  flow([
    ["loader_0", "plainText", "Document Loaders", { text: LIBRARY }, { output: "document" }],
    ["emb_0", "localHashEmbeddings", "Embeddings", { dimensions: 8 }],
    [id, node, "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0"), ...inputs }],
  ] as never);

/** The page contents D1 keeps for a store node's vectors (bookkeeping rows only: which loader each came from). */
export const bookkeepingTexts = async (provider: string, namespace: string) =>
  (
    await env.DB.prepare("SELECT pageContent FROM vector_document WHERE provider = ? AND namespace = ?")
      .bind(provider, namespace)
      .all<{ pageContent: string }>()
  ).results.map((r) => r.pageContent);

/** Asks a town flow which platform night trains leave from (with a fresh marker): its result and the prompt the chat stand-in got. */
export async function askNightTrains(
  flowData: string,
  over: Over = {},
  run: (flowData: string, question: string, over: Over) => Promise<RunResult> = predict,
) {
  const question = `Which platform do night trains leave from? ${marker()}`;
  const result = await run(flowData, question, over);
  const [sent] = await chatRequestsWith(question.slice(question.lastIndexOf(" ") + 1));
  return { question, result, prompt: sent.body.messages[0].content as string };
}

/**
 * BAKERY, a near-duplicate of it and LIBRARY upserted through `flowOf`; `ask(extra)` asks a bakery
 * question of the same place (topK 2, no text, `extra` inputs) and gives the passages it returned.
 */
export async function upsertTwins(
  flowOf: (o: { text: string; topK?: string; extra?: Record<string, unknown> }) => string,
  run: { upsert: (flowData: string) => Promise<unknown>; predict: (flowData: string, question: string) => Promise<RunResult> } = {
    upsert: upsertFlow,
    predict,
  },
) {
  const twin = `${BAKERY} Fresh bread every day.`;
  await run.upsert(flowOf({ text: [BAKERY, twin, LIBRARY].join("\n\n") }));
  const ask = async (extra: Record<string, unknown>) =>
    (await run.predict(flowOf({ text: "", topK: "2", extra }), "the bakery opens at seven and sells sourdough")).sourceDocuments?.map(
      (d) => d.pageContent,
    );
  return { twin, ask };
}
