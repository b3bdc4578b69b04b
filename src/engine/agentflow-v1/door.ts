// The MULTIAGENT runtime behind the engine's door (../index.ts): prepare translates and checks the
// V1 graph once (the prediction's 400 names the node); the prepared flow runs on the agentflow
// runtime through runMultiagent, which adds V1's answer (agentReasoning, its approval action).
import type { FlowRuntime } from "../core/flow-runtime";
import type { PreparedAgentflow } from "../agentflow/door";
import { type V1Outcome, loadMultiagent, multiagentFault, runMultiagent } from "./index";

export const multiagentRuntime: FlowRuntime<PreparedAgentflow<V1Outcome>> = {
  prepare(graph) {
    const translated = loadMultiagent(graph);
    return { kind: "agentflow", graph: translated, run: (request, ports) => runMultiagent(translated, request, ports) };
  },
  canStream: (graph) => multiagentFault(graph) === undefined,
};
