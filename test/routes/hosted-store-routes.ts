// Shared by the route tests of the hosted vector stores (qdrant, pinecone, chroma, supabase, upstash,
// weaviate, elasticsearch, openSearch, meilisearch), each against its own stand-in: a chatflow
// filled through POST /vector/upsert and asked, a retriever chatflow without documents, and a
// document store's steps (its upsert config, loaders upserted, queried, vectors deleted). Each
// test picks its recorded requests by a marker or its own collection/index name.
import { marker, requestsWith } from "../engine/helpers";
import { TOWN_TEXT, flow, ref, standinModel } from "../engine/retrieval-flows";
import { call, expectError, json } from "../helpers";
import { upsert } from "./document-store-helpers";

/** A credential created through the API; its id. */
export const credentialOf = async (credentialName: string, plainDataObj: Record<string, unknown>) =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id as string;

/** The stand-in's JSON answer at `url`. */
export const standinJson = async (url: string): Promise<any> => (await fetch(url)).json();

/** A hosted store as the describe.each route tests drive it. */
export interface HostedStore {
  name: string;
  /** The store's inputs and a credential for a new place (collection, table, index) `place`. */
  setup(place: string, key: string): Promise<{ credential: string; inputs: Record<string, unknown> }>;
  /** The texts the service holds for `place`. */
  texts(place: string): Promise<string[]>;
  /** The stand-in's requests for `place`. */
  requests(place: string): Promise<Array<{ method: string; path: string; headers: Record<string, string>; body: any }>>;
  authOf(headers: Record<string, string>): string | undefined;
  key: string;
  /** The node's inputs pointing at a private address, with the refusal's message. */
  privateInputs?: Record<string, unknown>;
  /** Where the URL is the credential's: a credential naming `url` instead. */
  privateCredential?(url: string, key: string): Promise<string>;
  privateRefusal: RegExp;
  /** A place that answers 500, and the 502's message. */
  down: string;
  downMessage: string;
  inputNames: string[];
}

/** splitter → plainText (the town) → localHashEmbeddings → the store node (topK 1, then `inputs`) → a conversational retrieval chain. */
export const townChatflow = (id: string, node: string, inputs: Record<string, unknown>) =>
  flow([
    ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000 }],
    ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }],
    ["emb_0", "localHashEmbeddings", "Embeddings"],
    [id, node, "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: 1, ...inputs }, { output: "retriever" }],
    standinModel(),
    [
      "chain_0",
      "conversationalRetrievalQAChain",
      "Chains",
      { model: ref("model_0"), vectorStoreRetriever: ref(id), returnSourceDocuments: true },
    ],
  ] as never);

/** localHashEmbeddings → the store node (no documents) → a retrieval QA chain. */
export const retrieverChatflow = (id: string, node: string, inputs: Record<string, unknown>) =>
  flow([
    ["emb_0", "localHashEmbeddings", "Embeddings", {}],
    [id, node, "Vector Stores", { embeddings: ref("emb_0"), ...inputs }, { output: "retriever" }],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref(id) }],
  ] as never);

/** Saves a chatflow; the API's answer (its id, a warning). */
export const saveChatflow = (name: string, flowData: string) => json("POST", "/chatflows", { body: { name, flowData } });
/** POST /vector/upsert of a saved chatflow. */
export const upsertChatflow = (id: string) => json("POST", `/vector/upsert/${id}`, { body: {} });
/** Asks a saved chatflow "hello", expecting the error `status`; its body. */
export const predictionError = async (id: string, status: number) =>
  expectError(await call("POST", `/prediction/${id}`, { body: { question: "hello" } }), status);

// Several library words beside the marker: the stand-in's hash embeddings weigh each word alike, and a random
// marker beside only three could now and then land the question nearer another passage.
/** Asks a saved town chatflow about the reading room (with a fresh marker): its answer and what its model was given. */
export async function askLibrarians(id: string) {
  const m = marker();
  const answer = await json("POST", `/prediction/${id}`, {
    body: { question: `reading room librarians poetry circle novels reader card ${m}` },
  });
  const chat = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
  const prompt = chat
    .at(-1)
    ?.body.messages.map((x) => x.content)
    .join("\n");
  return { answer, prompt };
}

/** The input names the document store wizard offers for vector store `name`. */
export async function offeredInputs(name: string) {
  const components = await json<Array<{ name: string; inputs: Array<{ name: string }> }>>("GET", "/document-store/components/vectorstore");
  return components.find((c) => c.name === name)?.inputs.map((i) => i.name);
}

export const SOLAR = "Solar panels turn sunlight into electricity.";
export const WIND = "Wind turbines spin in strong coastal winds.";
/** Two chunks (split on the blank line). */
export const ENERGY = `${SOLAR}\n\n${WIND}`;
export const TIDAL = "Tidal mills grind grain when the sea comes in.";

/** A document store upsert's parts other than the loader: paragraphs split, local embeddings, `vectorStore`, an incremental record manager. */
export const storeUpsertConfig = (vectorStore: { name: string; config: Record<string, unknown> }) => ({
  splitter: { name: "characterTextSplitter", config: { separator: "\n\n", chunkSize: 50, chunkOverlap: 0 } },
  embedding: { name: "localHashEmbeddings" },
  vectorStore,
  recordManager: { name: "SQLiteRecordManager", config: { cleanup: "incremental", sourceIdKey: "source" } },
});

/** Upserts `text` (metadata source `source`) into a document store with `config` (and `more`, e.g. docId). */
export const upsertText = (
  storeId: string,
  config: Record<string, unknown>,
  text: string,
  source: string,
  more: Record<string, unknown> = {},
) => upsert(storeId, { ...config, ...more, loader: { name: "plainText", config: { text } }, metadata: { source } });

/** The document store's vector store asked about the coast's wind turbines, topK 1. */
export const queryWindTurbines = (storeId: string) =>
  json("POST", "/document-store/vectorstore/query", {
    body: { storeId, query: "wind turbines on the coast", inputs: { topK: 1 } },
  });

/** Deletes a document store's vectors: a loader's (`docId`) or all. */
export const deleteVectors = (storeId: string, docId?: string) =>
  json("DELETE", `/document-store/vectorstore/${storeId}${docId ? `?docId=${docId}` : ""}`);
