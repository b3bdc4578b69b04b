// The MULTIAGENT runtime behind the engine's door (../index.ts): prepare translates and checks the
// V1 graph (the prediction's 400 names the node), and the stateless run (a RunContext only, no
// execution: a pause is a 409) goes through the agentflow door's. The prediction service runs
// MULTIAGENT flows with executions and resume through runMultiagent (./index.ts) directly.
import type { FlowRuntime } from "../core/flow-runtime";
import { runStateless } from "../agentflow/door";
import { loadMultiagent, multiagentFault, runMultiagent } from "./index";

export const multiagentRuntime: FlowRuntime = {
  prepare(graph) {
    const translated = loadMultiagent(graph);
    return { graph, streamable: true, run: (ctx, sink) => runStateless(translated, ctx, sink, runMultiagent) };
  },
  canStream: (graph) => multiagentFault(graph) === undefined,
};
