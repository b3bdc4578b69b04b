// What every runtime shares: the flowData graph as exported, conversation turns, what a run
// answers and the sink it streams to. (The outside world reaches a run through ./ports.ts.)

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
  /** A stored message's uploads as stored (JSON text, null when none) and its chat: earlier turns' images (./past-images.ts). */
  fileUploads?: string | null;
  chatId?: string;
}

export interface UsedTool {
  tool: string;
  toolInput: Record<string, unknown>;
  toolOutput: string;
}

/**
 * Receives streamed output as it exists. Every method must be cheap and non-blocking. `event`
 * carries every other frame (`sourceDocuments`, `usedTools`, and whatever a runtime adds), so a
 * new kind of frame needs no new method.
 */
export interface StreamSink {
  token(text: string): void;
  event(name: string, data: unknown): void;
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
  /** Flowise's artifacts a tool answered ({type, data}; images as `FILE-STORAGE::<name>`): kept with the message. */
  artifacts?: unknown[];
  /** Label of the memory node, or null. */
  memoryType: string | null;
  /** Set Variable nodes with showOutput: variable name → value (Flowise's `flowVariables`). */
  flowVariables?: Record<string, unknown>;
}

/** What a vector store upsert did (LangChain's indexing counts). */
export interface UpsertCounts {
  numAdded: number;
  numUpdated: number;
  numSkipped: number;
  numDeleted: number;
  addedDocs: SourceDocument[];
}
