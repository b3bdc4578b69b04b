import type { DocumentInterface } from "@langchain/core/documents";
import type { Document } from "@langchain/core/documents";
import type { Embeddings } from "@langchain/core/embeddings";
import type { VectorStore } from "@langchain/core/vectorstores";
import type { Db, Env } from "../../env";
import type { Stmt } from "./d1-json";

/**
 * addVectors' options here: `chunkNos` (one per document) records the chunk each vector is indexed
 * from in the same write, as linkChunks would afterwards. `chunkIds` (one per document): the
 * document store chunk (already stored, same text) whose text each vector answers, so a store
 * keeping text in D1 does not write it a second time.
 */
export interface AddVectorsOptions {
  ids?: string[];
  chunkNos?: number[];
  chunkIds?: string[];
}

/** A query hit with the document-store chunk it was indexed from (null: unknown, or edited since). */
export interface LinkedHit {
  document: Document;
  score: number;
  chunk: { id: string; chunkNo: number } | null;
}

/** What searchLinked read: the ranked hits, and the rows of the caller's `also` statement. */
export interface LinkedSearch {
  hits: LinkedHit[];
  also: Record<string, unknown>[];
}

/** A vector store over D1-held documents: the text of every vector stays in `vector_document` (or its chunk: chunkIds). */
export interface DocVectorStore extends VectorStore {
  addVectors(vectors: number[][], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[] | void>;
  /** addVectors for float32 vectors as the embeddings answered them (Float32Embeddings), when the store reads them as they are. */
  addFloat32Vectors?(vectors: Float32Array[], documents: DocumentInterface[], options?: AddVectorsOptions): Promise<string[] | void>;
  /**
   * Fewest vectors worth one addVectors call (an upsert writes as the model answers): a store that
   * rewrites a whole index per call (faiss) asks for large writes; default 1.
   */
  readonly minWrite?: number;
  /** Provider key in vector_document (`local`, `vectorize`). */
  readonly provider: string;
  readonly namespace: string;
  /** The ids of `ids` this store holds. */
  has(ids: string[]): Promise<Set<string>>;
  /** Vector ids recorded for a loader (document store loader id); at most `limit` of them when given. */
  idsOfDoc(docId: string, limit?: number): Promise<string[]>;
  /** Removes every vector of the namespace; answers how many there were. */
  clear(): Promise<number>;
  /** Records which chunk (number) each vector was indexed from: [vector id, chunkNo] pairs. */
  linkChunks(pairs: Array<[string, number]>): Promise<void>;
  /** Loader and chunk number each vector was last indexed from. */
  chunkHints(ids: string[]): Promise<Map<string, { docId: string | null; chunkNo: number | null }>>;
  /**
   * Optional fast path for a document store's query: the top k for `query`, each linked to its
   * chunk of document store `chunkStoreId`, in a single read after ranking; `also` (a read of the
   * caller's, e.g. a check that what the store was built from still holds) runs in that same
   * transaction. Without it the caller links hits itself (similaritySearch, chunkHints, a lookup).
   */
  searchLinked?(query: string, k: number, link: { chunkStoreId: string; also?: Stmt }): Promise<LinkedSearch>;
  /** Largest topK this store answers in one query. */
  readonly maxTopK: number;
}

export interface VectorStoreContext {
  env: Env;
  db: Db;
  embeddings: Embeddings;
  /** The namespace: a document store's id unless the config names one. */
  namespace: string;
  /** Decrypted credential values by id, for stores behind a service (pinecone). */
  getCredential?(id: string): Promise<Record<string, unknown>>;
  /** The run's signal, for stores behind a service. */
  signal?: AbortSignal;
}

export interface VectorStoreDefinition {
  name: string;
  aliases?: string[];
  /** The service embeds the text itself (zepCloud, vectara): a flow connects no embeddings to the store. */
  embedsText?: boolean;
  /** Fails (400) early when the store cannot work here, e.g. its binding is missing. */
  build(config: Record<string, unknown>, ctx: VectorStoreContext): DocVectorStore;
}
