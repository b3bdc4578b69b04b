// What the agentflow executor (executor.ts) is built from and hands around: the state every run of
// one request shares, a node in flight, and a node's failure.
import type { EventStream } from "./events";
import type { NodeEmitter } from "./node-types";
import type { FlowState } from "./state";
import type { AgentflowGraph, AgentflowNode, AgentflowPorts, AgentflowRequest, NodeResultData } from "./types";
import { errorMessage } from "./util";

/** What every run of one request shares (iteration sub-runs included). */
export interface Shared {
  graph: AgentflowGraph;
  request: AgentflowRequest;
  ports: AgentflowPorts;
  events: EventStream;
  /** The user input every node receives. */
  input: string | undefined;
  now: () => number;
  steps: { count: number };
}

/** A node that failed (or was stopped), with the node it happened in. */
export class NodeFailure extends Error {
  constructor(
    readonly node: AgentflowNode,
    readonly cause: unknown,
  ) {
    super(errorMessage(cause));
  }
}

export interface Running {
  node: AgentflowNode;
  channel: NodeEmitter & { close(): void };
  promise: Promise<{ result: NodeResultData; pause: boolean; startState: FlowState }>;
}
