// The engine's seams. The engine knows nodes and providers, never Hono: routes call runFlow()
// (src/engine/run.ts) with a RunContext and read a RunResult, or pass a StreamSink for tokens.
import type { Document } from "@langchain/core/documents";
import type { Db, Env } from "../env";
import type { LoaderFile } from "../providers/loaders/types";

/** A node of a Flowise flowData graph, as exported. */
export interface FlowNode {
  id: string;
  type?: string; // "customNode" | "stickyNote"
  position?: { x: number; y: number };
  data: {
    id: string;
    label: string;
    name: string;
    category: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    credential?: string;
    inputParams?: Array<{ name: string; type?: string; acceptVariable?: boolean; optional?: boolean }>;
    inputAnchors?: Array<{ name: string; type?: string; list?: boolean; optional?: boolean }>;
    outputAnchors?: unknown[];
    [key: string]: unknown;
  };
}

export interface FlowEdge {
  id?: string;
  source: string;
  target: string;
  sourceHandle?: string;
  targetHandle?: string;
}

export interface FlowGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** One turn of conversation, in Flowise's roles. */
export interface ChatTurn {
  role: "userMessage" | "apiMessage";
  content: string;
}

export interface UsedTool {
  tool: string;
  toolInput: Record<string, unknown>;
  toolOutput: string;
}

/** What a run needs from the outside world; built by the prediction service. */
export interface RunContext {
  env: Env;
  db: Db;
  chatflowid: string;
  chatId: string;
  sessionId: string;
  question: string;
  /** `history` from the request, placed before the stored messages. */
  history: ChatTurn[];
  /** overrideConfig already gated by apiConfig.overrideConfig: label → param → value. */
  nodeOverrides: Record<string, Record<string, unknown>>;
  /** `{{$vars.x}}` values (static values, runtime ones from env), overrides applied. */
  vars: Record<string, string>;
  /** Aborted when the client disconnects or PUT /chatmessage/abort is called. */
  signal: AbortSignal;
  /** Decrypted credential values by credential id (404-like error when missing). */
  getCredential(id: string): Promise<Record<string, unknown>>;
  /** Stored messages of (chatflowid, sessionId), oldest first, with `history` prepended. */
  loadMemory(limit?: number): Promise<ChatTurn[]>;
  /**
   * Files sent with POST /vector/upsert, by the loader input they go to (`txtFile`, `pdfFile`, …,
   * chosen by extension): they replace that input of the chatflow's loaders for this run.
   */
  files?: Record<string, LoaderFile[]>;
  /**
   * Set by runFlow: nodes that find documents during the run (a retriever tool that returns its
   * sources) report them here; they become the run's sourceDocuments unless the ending node gives its own.
   */
  addSourceDocuments?(docs: SourceDocument[]): void;
}

/** Receives streamed output as it exists. Every method must be cheap and non-blocking. */
export interface StreamSink {
  token(text: string): void;
  sourceDocuments(docs: SourceDocument[]): void;
  usedTools(tools: UsedTool[]): void;
}

export interface SourceDocument {
  pageContent: string;
  metadata: Record<string, unknown>;
}

export interface RunResult {
  text: string;
  json?: unknown;
  sourceDocuments?: SourceDocument[];
  usedTools?: UsedTool[];
  /** Label of the memory node, or null. */
  memoryType: string | null;
}

/** What a vector store upsert did (LangChain's indexing counts). */
export interface UpsertCounts {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
  addedDocs: SourceDocument[];
}

export interface BuildArgs {
  node: FlowNode;
  /** The node's inputs with every reference resolved ({{x.data.instance}}, {{question}}, $vars, $flow). */
  inputs: Record<string, unknown>;
  ctx: RunContext;
  /** The node's chosen output name (data.outputs.output), when it has several. */
  output?: string;
  /** True for the ending node: it is built, then run with the question (so it must not answer at build time). */
  ending?: boolean;
}

export interface EndingRun {
  ctx: RunContext;
  /** Present when the caller streams; the node pushes tokens as the model makes them. */
  sink?: StreamSink;
}

/** One registry entry per Flowise node `name`. */
export interface NodeDefinition {
  name: string;
  /** Flowise category (`Chains`, `Chat Models`, …): used when a node's data.category is missing. */
  category?: string;
  /** Builds the node's `data.instance` from its resolved inputs. */
  build(args: BuildArgs): Promise<unknown>;
  /** Ending nodes (chains, agents) only: answer the question. */
  run?(instance: unknown, run: EndingRun): Promise<Omit<RunResult, "memoryType">>;
  /** Whether this ending node can stream tokens, given its node (model's `streaming` input etc.). */
  canStream?(node: FlowNode, graph: FlowGraph): boolean;
  /**
   * Skipped on prediction (document loaders feeding a vector store run on upsert only): always, or
   * as the function decides for this node of this graph.
   */
  upsertOnly?: boolean | ((node: FlowNode, graph: FlowGraph) => boolean);
  /** Vector store nodes only: index what their loaders give (POST /vector/upsert), instead of build. */
  upsert?(args: BuildArgs): Promise<UpsertCounts>;
}

export type { Document };
