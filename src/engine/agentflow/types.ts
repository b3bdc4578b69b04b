// The seam between the Agentflow V2 runtime (this folder) and whoever stores and serves it
// (services/runs/agentflow*, services/execution*). Shapes follow Flowise 3 (AGENTFLOW.md
// §6.2 executed data, §7 human input, §8 events) so stored executions and streams stay compatible.
//
// Entry points (src/engine/agentflow/index.ts):
//   runAgentflow(graph, request, ports): Promise<AgentflowOutcome>
//     A graph that cannot run (no or several Start nodes, unknown nodes, bad handles, a Loop target
//     that does not exist, question + form both sent, a resume naming no stopped node) throws
//     ApiError 400 BEFORE any checkpoint. Failures during the run do not throw: the outcome has
//     state ERROR/TERMINATED, `error` and `errorCode`, and the last checkpoint already says so.
//   validateAgentflow(graph): AgentflowValidation      save-time check (errors → warning text)
//   agentflowNodeNames(): string[]                      node names the runtime runs
//   stripCredentialIds(executedData): ExecutedData[]    copy without FLOWISE_CREDENTIAL_ID keys
import type { ErrorCode } from "../../errors";
import type { RunUpload } from "../core/images";
import type { RunContext } from "../core/ports";
import type { ChatTurn, FlowEdge, FlowNode, SourceDocument, UsedTool } from "../core/types";

// ---- graph ----------------------------------------------------------------------------------------

/** An agentflow node: a chatflow node plus the Iteration parent link Flowise keeps at top level. */
export type AgentflowNode = FlowNode & { parentNode?: string; extent?: string };

/** The parsed flowData of a `type: AGENTFLOW` chatflow (engine/graph.ts parseFlowData keeps parentNode). */
export interface AgentflowGraph {
  nodes: AgentflowNode[];
  edges: FlowEdge[];
  /** Made by a translation (Agentflow V1, ../agentflow-v1): its nodes may be `translatedOnly` ones. */
  translated?: boolean;
}

// ---- stored execution -----------------------------------------------------------------------------

export type ExecutionState = "INPROGRESS" | "FINISHED" | "ERROR" | "TERMINATED" | "TIMEOUT" | "STOPPED";
export type NodeStatus = "INPROGRESS" | "FINISHED" | "ERROR" | "TERMINATED" | "STOPPED";

/** A chat message as agentflow nodes pass it around (runtime chat history, node input `messages`). */
export interface AgentflowMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string;
  name?: string;
  /** Assistant tool calls (Agent checkpoints keep them so a resume can run them). */
  tool_calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  additional_kwargs?: Record<string, unknown>;
  /**
   * Images of the question (a user message the first LLM/Agent node adds before it, ./images.ts): references
   * without their data, `{type: "stored-file", name, mime}` for a file, `{type: "url", name, mime, data: <link>}`.
   */
  images?: RunUpload[];
}

/** What a node run returns; stored verbatim as ExecutedData.data (AGENTFLOW.md §6.2). */
export interface NodeResultData {
  id: string;
  name: string;
  input?: Record<string, unknown>;
  output?: Record<string, unknown>;
  state?: Record<string, unknown>;
  chatHistory?: AgentflowMessage[];
  /** Set on ERROR / TERMINATED entries. */
  error?: string;
  /** Iteration children only. */
  iterationIndex?: number;
  iterationContext?: Record<string, unknown>;
  parentNodeId?: string;
}

/** One entry of an execution's `executionData` (the JSON array stored in the execution row). */
export interface ExecutedData {
  nodeId: string;
  nodeLabel: string;
  data: NodeResultData;
  previousNodeIds: string[];
  status: NodeStatus;
}

/** Flowise's `humanInputAction`: what a paused run asks of the user (AGENTFLOW.md §7.1). */
export interface HumanInputAction {
  id: string;
  mapping: { approve: string; reject: string };
  elements: Array<{ type: "agentflowv2-approve-button" | "agentflowv2-reject-button"; label: string }>;
  data: { nodeId: string; nodeLabel: string; input: Record<string, unknown> };
}

/** The request's `humanInput` (AGENTFLOW.md §7.2). */
export interface HumanInput {
  type: "proceed" | "reject";
  /** Default: the node of the last STOPPED entry. */
  startNodeId?: string;
  feedback?: string;
}

// ---- request --------------------------------------------------------------------------------------

/** An upload of the request (a data: URI or a link), as chatflows get it too. */
export type AgentflowUpload = RunUpload;

/** What a webhook-triggered run sees of its request (sensitive headers already redacted). */
export interface WebhookPayload {
  body: unknown;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
}

export interface AgentflowRequest {
  chatflowId: string;
  chatId: string;
  sessionId: string;
  /** The id the API message will be stored with (`{{ $flow.apiMessageId }}`). */
  apiMessageId?: string;
  question?: string;
  /** Start node formInput values. Sending both a question and a non-empty form is a 400. */
  form?: Record<string, unknown>;
  /**
   * The request that fired a webhook-triggered flow (`{{ $webhook.body.* }}`, `.headers.*`, `.query.*`);
   * a resume reads the original one from the Start node's stored output instead.
   */
  webhook?: WebhookPayload;
  /** The request's `history`: prepended to the first LLM/Agent node's messages only (§5). */
  history?: ChatTurn[];
  uploads?: AgentflowUpload[];
  /** Text of uploaded `file:full` files: `{{ file_attachment }}`, and prefixed to `{{ question }}`. */
  fileText?: string;
  streaming: boolean;
  /**
   * Someone watches the run's frames besides its caller (a detached run's event log, a canvas's
   * webhook listener): when post-processing turns `streaming` off, its states, node statuses and
   * executed data still go to the events port, but no tokens (they would be the raw answer).
   */
  observed?: boolean;
  /** overrideConfig already gated by apiConfig: node label (or id) → param → value. */
  nodeOverrides?: Record<string, Record<string, unknown>>;
  /** `{{ $vars.x }}`: stored variables with the gated overrideConfig.vars applied. */
  vars: Record<string, string>;
  /**
   * executionData of the newest earlier execution of this (agentflow, session), when there is one:
   * Start's persisted state and form restore read it (§4.2). Not for resumes.
   */
  previousExecution?: ExecutedData[];
  /** Resume a paused execution (§7.2): its stored executionData and the request's humanInput. */
  resume?: { executionId: string; executedData: ExecutedData[]; humanInput: HumanInput };
  /**
   * Flow ids of the Execute Flow calls that led here, outermost first (this flow not included).
   * The runtime refuses a call to a flow already on it (a cycle) or to itself.
   */
  callStack?: string[];
  /**
   * chatbotConfig.postProcessing.customFunction when enabled: JavaScript that rewrites the final text
   * (sandboxed; `$flow.rawOutput`, `$flow.chatHistory`, `$flow.sourceDocuments`, `$flow.usedTools`…).
   * Flowise also answers JSON (no stream) when it is on: that is the caller's choice.
   */
  postProcessing?: string;
}

// ---- ports ----------------------------------------------------------------------------------------

/**
 * Flowise's agentflow SSE events, by name: agentFlowEvent, nextAgentFlow, agentFlowExecutedData,
 * token, thinking, calledTools, usedTools, sourceDocuments, artifacts, usageMetadata, action.
 * `data` is the frame's data exactly (the writer frames it as `{"event": name, "data": data}`).
 * `metadata`, `error` and `end` are the caller's (they come after the run).
 */
export interface AgentflowEvents {
  event(name: string, data: unknown): void;
  /**
   * Called where a frame is made but held back (a branch waiting its turn): answers how to send it
   * later as if from there (a detached run's log knows a frame by the step that made it).
   */
  hold?(): (send: () => void) => void;
}

/** What Execute Flow sends to another flow of this deployment. */
export interface FlowCall {
  question: string;
  chatId: string;
  overrideConfig?: Record<string, unknown>;
  /** callStack for the callee's request (this flow appended). */
  callStack: string[];
}

/** The callee's answer, as its JSON prediction answer has it. */
export interface FlowCallResult {
  text: string;
  json?: unknown;
  sourceDocuments?: SourceDocument[];
  usedTools?: UsedTool[];
  artifacts?: unknown[];
}

export interface AgentflowPorts {
  /**
   * The engine's run context (env, db, credentials, vars, signal, …): chat models, tools and
   * document stores are built through the engine's registries with it. Its `history` is not used
   * (the runtime reads request.history), nor is `loadMemory` (see pastChatHistory).
   */
  ctx: RunContext;
  /** Stored messages of (agentflow, session), oldest first, WITHOUT the request's history. */
  pastChatHistory(): Promise<ChatTurn[]>;
  /**
   * Called after every node (and on pause, error and end) with the whole executed data so far and
   * the execution's state. Awaited: a failure to store fails the run.
   */
  checkpoint(executedData: ExecutedData[], state: ExecutionState): Promise<void>;
  events: AgentflowEvents;
  /** Execute Flow: run another chatflow/agentflow in-process (JSON answer, not streamed). */
  runFlow(flowId: string, call: FlowCall): Promise<FlowCallResult>;
  /** Clock (ms); Date.now when absent. */
  now?(): number;
  /**
   * Durable steps (a detached run on Cloudflare Workflows): each top-level node's work runs as one
   * step named `name`, so a replayed run answers its stored result instead of running it again (its
   * tool calls and requests are not repeated). The result must be JSON. Absent: the node just runs.
   */
  step?<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Wraps each node's work (tracing: one span per node, the node's model and tool calls under it).
   * `resultOf` reads the node's input and output from what the work answered. Absent: the node just runs.
   */
  aroundNode?<T>(
    node: { id: string; label: string; name: string },
    work: () => Promise<T>,
    resultOf: (done: T) => { input?: unknown; output?: unknown },
  ): Promise<T>;
}

// ---- outcome --------------------------------------------------------------------------------------

export interface AgentflowOutcome {
  /** The last executed entry's output.content, or " " (§4.9). */
  text: string;
  /** FINISHED | STOPPED | ERROR | TERMINATED. */
  state: ExecutionState;
  /** As stored (credential ids kept; strip with stripCredentialIds before answering). */
  executedData: ExecutedData[];
  /** Present when state is STOPPED. */
  action?: HumanInputAction;
  /** From the last node's output (what the stored API message carries). */
  sourceDocuments: SourceDocument[];
  usedTools: UsedTool[];
  artifacts: unknown[];
  /** The Start node's form (request form, or restored). */
  form?: Record<string, unknown>;
  /** Why the run failed (ERROR/TERMINATED), and its code (src/errors.ts: the HTTP layer maps it to a status). */
  error?: string;
  errorCode?: ErrorCode;
}

/** Save-time check of an agentflow graph. */
export interface AgentflowValidation {
  errors: string[];
  warnings: string[];
}
