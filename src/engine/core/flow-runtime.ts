// What a runtime offers the engine's door (../index.ts): prepare a parsed graph once (checks and
// plan), then run it per request. Chatflows run over a RunContext with a stream sink; agentflows
// (agentflow/door.ts) over their own request and ports (executions, Execute Flow).
import type { RunContext } from "./ports";
import type { FlowGraph, RunResult, StreamSink } from "./types";

/** A chatflow (or assistant) checked and planned once; the run service runs it with a context of its own. */
export interface PreparedChatflow {
  kind: "chatflow";
  graph: FlowGraph;
  /** Whether the run streams tokens when given a sink (decided before the run starts). */
  streamable: boolean;
  run(ctx: RunContext, sink?: StreamSink): Promise<RunResult>;
}

export interface FlowRuntime<P = PreparedChatflow> {
  /** Checks and plans a parsed graph; ApiError 400 saying why it cannot run. */
  prepare(graph: FlowGraph): P;
  /** Whether the graph would stream (the widget asks before predicting); false when it cannot run. */
  canStream(graph: FlowGraph): boolean;
}
