// Agentflow V1 (Flowise `type: MULTIAGENT`) on the V2 runtime: what translation leaves on each
// translated node, and Flowise's agentReasoning entry.
import type { FlowEdge, FlowNode, SourceDocument, UsedTool } from "../core/types";
import type { AgentflowNode } from "../agentflow/types";

/** The component nodes (chat models, tools, vector stores…) a V1 node uses, with the edges between them. */
export interface ComponentGraph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** Kept on every translated node as `data.v1`: the V1 node as saved and what it needs at run time. */
export interface V1Info {
  /** The node as Flowise saved it (inputs with `{{id.data.instance}}` references, inputParams). */
  original: FlowNode;
  /** Its components and theirs, built through the chatflow registry when the node runs. */
  components: ComponentGraph;
  /** Ids referenced by the node that are not components (flow nodes, seqState, agentMemory): resolve to nothing. */
  skipped: string[];
  /** Supervisor: its workers, in branch order. */
  workers?: Array<{ id: string; name: string; label: string }>;
  /** Worker: the supervisor's model reference (used when the worker has none of its own). */
  fallbackModel?: string;
  /** Sequential nodes: the seqStart's model reference (used when the node has none of its own). */
  startModel?: string;
  /** Condition / Condition Agent: route labels in branch order. */
  routes?: string[];
  /** LLM Node / Agent followed by Tool Nodes: the Tool Node ids (branch 0 when the model calls tools). */
  toolNodes?: string[];
  /** Start: the seqState channels, agentMemory on. */
  stateNode?: FlowNode;
  memory?: boolean;
  /** Sequential nodes: the seqState channels (key → Replace | Append). */
  channels?: Record<string, string>;
  /** seqLLMNode followed by Tool Nodes: their `tools` references (the LLM binds those tools). */
  toolRefs?: string[];
}

export type V1Node = AgentflowNode & { data: AgentflowNode["data"] & { v1: V1Info } };

/** One entry of Flowise's agentReasoning (the chat message field and the stream frame). */
export interface AgentReasoning {
  agentName: string;
  messages: string[];
  next?: string;
  instructions?: string;
  usedTools?: UsedTool[];
  sourceDocuments?: SourceDocument[];
  artifacts?: unknown[];
  state?: Record<string, unknown>;
  nodeName?: string;
  nodeId: string;
}

/** Flowise V1's pending approval (chat message `action`, stream frame `action`). */
export interface V1Action {
  id: string;
  mapping: { approve: string; reject: string; toolCalls: unknown[] };
  elements: Array<{ type: "approve-button" | "reject-button"; label: string }>;
}
