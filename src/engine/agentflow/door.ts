// The agentflow runtime behind the engine's door (../index.ts, `AGENTFLOW`): prepare checks the
// graph once (the save-time warning and the prediction's 400 come from here), and the prepared
// flow runs through runAgentflow with the ports its caller gives — executions (checkpoint),
// stored history, Execute Flow (runFlow), frames. src/services/runs is that caller.
import { fail } from "../../errors";
import type { FlowRuntime } from "../core/flow-runtime";
import type { FlowGraph } from "../core/types";
import { runAgentflow } from "./index";
import type { AgentflowGraph, AgentflowOutcome, AgentflowPorts, AgentflowRequest } from "./types";
import { validateAgentflow } from "./validate";

/** An agentflow checked (V1: translated) once; each run brings its request and ports. */
export interface PreparedAgentflow<O extends AgentflowOutcome = AgentflowOutcome> {
  kind: "agentflow";
  graph: AgentflowGraph;
  /** Failures during the run are the outcome (ERROR, TERMINATED); a request that cannot start is a 400. */
  run(request: AgentflowRequest, ports: AgentflowPorts): Promise<O>;
}

function check(graph: FlowGraph): AgentflowGraph {
  const { errors } = validateAgentflow(graph as AgentflowGraph);
  if (errors.length) throw fail("INVALID_FLOW", `This agentflow cannot run: ${errors.join("; ")}`);
  return graph as AgentflowGraph;
}

export const agentflowRuntime: FlowRuntime<PreparedAgentflow> = {
  prepare(graph) {
    const checked = check(graph);
    return { kind: "agentflow", graph: checked, run: (request, ports) => runAgentflow(checked, request, ports) };
  },
  canStream: (graph) => validateAgentflow(graph as AgentflowGraph).errors.length === 0,
};
