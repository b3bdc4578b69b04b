// The engine's only way out. A Runtime is built by src/services/runtime on the first use of the
// services container's `runtime` (one per request, queue batch, Cron tick, Workflow run); a
// RunContext is one run on top of it.
// Nodes use these ports and nothing else: no database handle, no Worker env, no service import.
import type { Document } from "@langchain/core/documents";
import type { Embeddings } from "@langchain/core/embeddings";
import type { WorkLimits } from "../../lib/limits";
import type { OutboundEnv } from "../../lib/outbound";
import type { LoaderFile } from "../../providers/loaders/types";
import type { RecordManagerSettings } from "../../providers/recordmanager/registry";
import type { DocVectorStore } from "../../providers/vectorstores/types";
import type { ProviderDeps, ProviderEnv } from "../../providers/types";
import type { SandboxRun } from "../../sandbox";
import type { SqlDatabase } from "../../providers/sql/types";
import type { RunUpload } from "./images";
import type { ChatTurn, SourceDocument } from "./types";

/** How a credential is read: `oauth2` asks for an access token good for 5 more minutes (refreshed and stored when not). */
export interface CredentialReadOptions {
  oauth2?: boolean;
}

export type CredentialReader = (id: string, options?: CredentialReadOptions) => Promise<Record<string, unknown>>;

/** A Tool saved with /tools. */
export interface StoredTool {
  name: string;
  description: string | null;
  schema: string | null;
  func: string | null;
}

/** A tool an MCP server lists (tools/list), as much of it as the tools read. */
export interface McpToolListing {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/** A remote MCP server registered on the Tools page (/custom-mcp-servers), as a run uses it. */
export interface StoredMcpServer {
  name: string;
  status: "PENDING" | "AUTHORIZED" | "ERROR";
  url: string;
  /** Its headers, decrypted (only when its authType is CUSTOM_HEADERS). */
  headers: Record<string, string>;
  /** What it listed when last authorized. */
  tools: McpToolListing[];
}

/** An assistant saved with /assistants, as the openAIAssistant node runs it. */
export interface StoredAssistant {
  id: string;
  name?: string;
  /** The chat model node its credential speaks to (chatOpenAI, azureChatOpenAI, …) and its inputs (credential id included). */
  modelNode: string;
  modelInputs: Record<string, unknown>;
  instructions: string;
  /** Stored Tools its `function` tool uses. */
  toolIds: string[];
  /** Document stores its `file_search` reads. */
  documentStoreIds: string[];
}

export interface Runtime {
  /** Bindings (AI, VECTORIZE) and defaults (OPENAI_*) that provider registries read. */
  providers: ProviderEnv;
  /** Hosts that request-supplied URLs may reach (OUTBOUND_ALLOW), for loaders that fetch. */
  outbound: OutboundEnv;
  /** Largest file a loader takes (MAX_UPLOAD_MB). */
  maxUploadBytes: number;
  /** Bounds on the work one upsert may cause (src/lib/limits.ts: pages, rows, chunks, …). */
  limits: WorkLimits;
  /** Decrypted credential values by id; 404 when missing. */
  credentials: CredentialReader;
  /** Files kept for flows (R2). */
  files: {
    read(key: string): Promise<{ mime: string; bytes: Uint8Array } | undefined>;
    write(key: string, file: LoaderFile): Promise<void>;
  };
  /** Document stores (/document-store): undefined when the id names none. */
  documentStores: {
    /** Its chunks as documents, in loader and chunk order. */
    chunks(storeId: string): Promise<Document[] | undefined>;
    /** Its vector store, over its saved embedding and vector store configuration. */
    vectorStore(storeId: string): Promise<DocVectorStore | undefined>;
  };
  /** Vector stores and record managers by Flowise name, in a namespace of the caller's choosing. */
  vectorStores: {
    open(name: string, config: Record<string, unknown>, embeddings: Embeddings, namespace: string): DocVectorStore;
    recordManager(name: string, config: Record<string, unknown>, namespace: string): RecordManagerSettings;
  };
  /** Tools saved with /tools; undefined when the id names none. */
  tools: { get(id: string): Promise<StoredTool | undefined> };
  /** MCP servers registered with /custom-mcp-servers; undefined when the id names none. */
  mcpServers: { get(id: string): Promise<StoredMcpServer | undefined> };
  /** Assistants saved with /assistants: undefined when the id names none; 400 when it names what does not exist. */
  assistants: { get(id: string): Promise<StoredAssistant | undefined> };
  /** Stored messages of a chatflow's session, oldest first (`limit`: only the most recent). */
  memory: { load(chatflowid: string, sessionId: string, limit?: number): Promise<ChatTurn[]> };
  /** Runs user code (custom tools, functions) in the QuickJS sandbox; answers its result as text. */
  code: { run(func: string, run: Omit<SandboxRun, "env">): Promise<string> };
  clock: { now(): string };
  /** SQL databases a flow may query (sqlDatabaseChain): D1 bindings SQL_D1_BINDINGS lists, Postgres URLs under the outbound policy. */
  sql: { open(database: string, url: string, allowWrites: boolean): SqlDatabase };
}

/** What a run sends to another flow of this deployment (ChatflowTool, agentAsTool). */
export interface FlowRunCall {
  question: string;
  chatId: string;
  overrideConfig?: Record<string, unknown>;
  /** The callee's call stack: the flows from the first caller to this one, this one last. */
  callStack: string[];
}

/** The callee's JSON answer, as far as a tool reads it. */
export interface FlowRunAnswer {
  text: string;
  json?: unknown;
}

/**
 * Other flows of this deployment, run in-process through the run door (its `execute-flow` trigger,
 * as Agentflow's Execute Flow): set by the run door; absent where flows cannot be called.
 */
export interface FlowRunner {
  /** Flows that called this run, first caller first (this run's own flow not included). */
  callStack: string[];
  run(flowId: string, call: FlowRunCall): Promise<FlowRunAnswer>;
}

/** One run: who asks what, in which session, with which overrides, and the way out (runtime). */
export interface RunContext {
  runtime: Runtime;
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
  /** Decrypted credential values by credential id (the runtime's, or a prefetched reader). */
  getCredential: CredentialReader;
  /** Stored messages of (chatflowid, sessionId), oldest first, with `history` prepended. */
  loadMemory(limit?: number): Promise<ChatTurn[]>;
  /**
   * Files sent with POST /vector/upsert, by the loader input they go to (`txtFile`, `pdfFile`, …,
   * chosen by extension): they replace that input of the chatflow's loaders for this run.
   */
  files?: Record<string, LoaderFile[]>;
  /** The request's uploads a chat model may be shown (images: ./images.ts); attached text files are not among them. */
  uploads?: RunUpload[];
  /**
   * Set by the runtime: nodes that find documents during the run (a retriever tool that returns its
   * sources) report them here; they become the run's sourceDocuments unless the ending node gives its own.
   */
  addSourceDocuments?(docs: SourceDocument[]): void;
  /** Other flows of this deployment, through the run door (ChatflowTool, agentAsTool). */
  flows?: FlowRunner;
}

/** What a provider registry needs for this run: bindings, the run's credentials and signal. */
export const providerDeps = (ctx: RunContext): ProviderDeps => ({
  env: ctx.runtime.providers,
  getCredential: ctx.getCredential,
  signal: ctx.signal,
});
