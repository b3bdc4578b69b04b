// The shape of one run's trace: spans of model calls, tools, retrievers and nodes, as every
// backend (Langfuse, LangSmith, LangWatch, Lunary, OTLP) reads it.
export type SpanKind = "generation" | "tool" | "retriever" | "chain" | "node";

export interface Usage {
  input: number;
  output: number;
  total: number;
}

export interface Span {
  id: string;
  parentId?: string;
  kind: SpanKind;
  name: string;
  start: number;
  end?: number;
  input?: unknown;
  output?: unknown;
  /** Generations: the model asked for, its provider (ls_provider), parameters, token usage. */
  model?: string;
  provider?: string;
  parameters?: Record<string, unknown>;
  usage?: Usage;
  /** Nodes: the node's id and Flowise name; tools: the call id; chains: runType "agent" for an agent's loop. */
  attributes?: Record<string, string>;
  error?: string;
}

export interface Trace {
  id: string;
  name: string;
  /** chatId: Langfuse's sessionId, LangSmith's session_id, LangWatch's thread_id, Lunary's thread, OTLP's gen_ai.conversation.id. */
  sessionId: string;
  input: string;
  output?: string;
  start: number;
  end?: number;
  error?: string;
  metadata: Record<string, string>;
  spans: Span[];
}
