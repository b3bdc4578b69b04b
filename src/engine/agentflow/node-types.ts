// What a node of the agentflow runtime is given and must return. One definition per Flowise
// component name (nodes/registry.ts); the executor knows nothing node-specific beyond these flags.
import type { RunContext } from "../core/ports";
import type { FlowState } from "./state";
import type {
  AgentflowMessage,
  AgentflowNode,
  AgentflowPorts,
  AgentflowRequest,
  HumanInput,
  HumanInputAction,
  NodeResultData,
} from "./types";

/** Frames a node may send; they reach the client in node start order (see events.ts). */
export interface NodeEmitter {
  token(text: string): void;
  event(name: string, data: unknown): void;
}

export interface IterationContext {
  index: number;
  value: unknown;
  isFirst: boolean;
  isLast: boolean;
  sessionId: string;
}

export interface NodeRuntime {
  request: AgentflowRequest;
  ports: AgentflowPorts;
  /** ports.ctx with the run's own signal (aborted on client abort, and when a sibling branch fails). */
  ctx: RunContext;
  signal: AbortSignal;
  /** Runtime state when the node started. */
  state: FlowState;
  /** Stored messages of the session (emptied by Start's ephemeral memory). */
  pastChatHistory: AgentflowMessage[];
  /** Messages the nodes of this run added so far. */
  runtimeChatHistory: AgentflowMessage[];
  /** The form of this run (request, else restored from the session's previous execution). */
  form: Record<string, unknown>;
  emit: NodeEmitter;
  /** The request asked for a stream. */
  streaming: boolean;
  /** This node's output is the answer the client sees (no children, or a pausing Human Input), outside iterations. */
  isLastNode: boolean;
  /** Only for the node a resume starts at. */
  humanInput?: HumanInput;
  /** The pending action of the last executed entry (the Agent resumes its tool calls from it). */
  humanInputAction?: HumanInputAction;
  iteration?: IterationContext;
  now(): number;
}

export interface NodeRunArgs {
  node: AgentflowNode;
  /** Inputs with overrides applied and variables resolved. */
  inputs: Record<string, unknown>;
  /** What every node receives: the question (uploaded file text first), or the form as `k: v` lines. */
  input: string | undefined;
  rt: NodeRuntime;
}

export interface AgentflowNodeDef {
  name: string;
  /** Inputs whose strings are resolved (Flowise's `acceptVariable` params), besides any the node's inputParams flag. */
  variableParams: string[];
  /** The flow's entry: exactly one, outside Iteration blocks. */
  start?: true;
  /**
   * Decision nodes (Condition, Condition Agent, Human Input): how many branches the node has; its
   * `output.conditions[i].isFulfilled` selects the edges leaving from handle `<id>-output-<i>`.
   */
  branches?(inputs: Record<string, unknown>): number;
  /** Whether this run pauses the flow for a human (`resumed`: it was given the answer). Before the run, `result` is undefined. */
  pauses?(result: NodeResultData | undefined, resumed: boolean): boolean;
  /** Runs the nodes of its block once per item of its input (Iteration). */
  runsBlock?: true;
  /** Goes back to `output.nodeID` until its count is used up (Loop). */
  loopsBack?: true;
  /** Only in graphs a translation made (Agentflow V1, `graph.translated`): unknown in a saved agentflow. */
  translatedOnly?: true;
  /** May not be inside an Iteration block. */
  topLevelOnly?: true;
  run(args: NodeRunArgs): Promise<NodeResultData>;
}
