// A chatflow agent's loop as one LangChain run of type "agent" (Flowise's agents run as an AgentExecutor
// chain): the handlers the run's config carries — the trace recorder (services/tracing/trace.ts) — see the
// agent as one span from the question to the answer, its model and tool calls under it (OpenInference's
// AGENT span). Without handlers nothing is made and the calls keep the run's own config.
import type { Callbacks } from "@langchain/core/callbacks/manager";
import type { SerializedNotImplemented } from "@langchain/core/load/serializable";
import { ensureConfig, getCallbackManagerForConfig } from "@langchain/core/runnables";

export interface AgentRun {
  /** For the agent's model and tool calls: children of the agent's run. */
  callbacks?: Callbacks;
  end(output: string): Promise<void>;
  fail(err: unknown): Promise<void>;
}

const AGENT: SerializedNotImplemented = { lc: 1, type: "not_implemented", id: ["edgeflow", "agents", "Agent"] };

/** Starts the agent's run (named by its label, the question as its input). */
export async function startAgentRun(label: string, question: string): Promise<AgentRun> {
  const manager = await getCallbackManagerForConfig(ensureConfig());
  if (!manager?.handlers.length) return { end: async () => {}, fail: async () => {} };
  const run = await manager.handleChainStart(AGENT, { input: question }, undefined, "agent", undefined, undefined, label);
  return {
    callbacks: run.getChild(),
    end: (output) => run.handleChainEnd({ output }),
    fail: (err) => run.handleChainError(err),
  };
}
