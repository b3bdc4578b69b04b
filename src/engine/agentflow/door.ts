// The agentflow runtime behind the engine's door (../index.ts, `AGENTFLOW`): prepare checks the
// graph (the save-time warning and the prediction's 400 come from here), canStream says whether
// it can run. `run` is the stateless path: the agentflow runs over the RunContext with its frames
// on the sink, but keeps no execution (nothing to resume: a pause is a 409 saying so) and has no
// Execute Flow. The agentflow prediction service runs agentflows with executions, resume and
// Execute Flow through runAgentflow (./index.ts) directly.
import { ApiError, badRequest, conflict } from "../../errors";
import { RunAborted } from "../../lib/run-control";
import type { FlowRuntime } from "../core/flow-runtime";
import type { RunContext } from "../core/ports";
import type { FlowGraph, RunResult, StreamSink } from "../core/types";
import { runAgentflow } from "./index";
import type { AgentflowGraph, AgentflowPorts } from "./types";
import { validateAgentflow } from "./validate";

function check(graph: FlowGraph): AgentflowGraph {
  const { errors } = validateAgentflow(graph as AgentflowGraph);
  if (errors.length) throw badRequest(`This agentflow cannot run: ${errors.join("; ")}`);
  return graph as AgentflowGraph;
}

/** `runner` is the agentflow runtime's entry (Agentflow V1 passes its own, which wraps it). */
export async function runStateless(graph: AgentflowGraph, ctx: RunContext, sink?: StreamSink, runner = runAgentflow): Promise<RunResult> {
  const ports: AgentflowPorts = {
    ctx,
    pastChatHistory: () => ctx.runtime.memory.load(ctx.chatflowid, ctx.sessionId),
    checkpoint: async () => undefined,
    events: { event: (name, data) => (name === "token" ? sink?.token(String(data)) : sink?.event(name, data)) },
    runFlow: async () => {
      throw badRequest("Execute Flow needs the agentflow prediction service (this run keeps no execution)");
    },
  };
  const request = {
    chatflowId: ctx.chatflowid, chatId: ctx.chatId, sessionId: ctx.sessionId, question: ctx.question,
    history: ctx.history, nodeOverrides: ctx.nodeOverrides, vars: ctx.vars, streaming: sink !== undefined,
  };
  const outcome = await runner(graph, request, ports);
  if (outcome.state === "TERMINATED") throw new RunAborted();
  if (outcome.state === "ERROR") throw new ApiError(outcome.errorStatus ?? 400, outcome.error ?? "The agentflow failed");
  if (outcome.state === "STOPPED") throw conflict("This agentflow paused for human input, which needs its execution stored: run it through the agentflow prediction service");
  return { text: outcome.text, sourceDocuments: outcome.sourceDocuments, usedTools: outcome.usedTools, memoryType: null };
}

export const agentflowRuntime: FlowRuntime = {
  prepare(graph) {
    const checked = check(graph);
    return { graph, streamable: true, run: (ctx, sink) => runStateless(checked, ctx, sink) };
  },
  canStream: (graph) => validateAgentflow(graph as AgentflowGraph).errors.length === 0,
};
