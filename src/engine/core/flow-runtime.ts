// What a runtime (chatflow today, Agentflow next) offers the engine's door (../index.ts).
import type { RunContext } from "./ports";
import type { FlowGraph, RunResult, StreamSink } from "./types";

/** A flow checked and planned once; the prediction service runs it with a context of its own. */
export interface PreparedFlow {
  graph: FlowGraph;
  /** Whether the run streams tokens when given a sink (decided before the run starts). */
  streamable: boolean;
  run(ctx: RunContext, sink?: StreamSink): Promise<RunResult>;
}

export interface FlowRuntime {
  /** Checks and plans a parsed graph; ApiError 400 saying why it cannot run. */
  prepare(graph: FlowGraph): PreparedFlow;
  /** Whether the graph would stream (the widget asks before predicting); false when it cannot run. */
  canStream(graph: FlowGraph): boolean;
}
