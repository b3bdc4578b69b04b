// The one place MCP runs a flow: a new chat, as POST /prediction would run it (same memory, stored
// messages — chatType MCP —, executions, limits, scrubbed errors), the answer as text or JSON, or the
// question a paused run asks. Everything MCP needs from the prediction services goes through here,
// so pointing MCP at another way of starting runs means changing this file alone.
import type { Db, Env } from "../../env";
import type { Runtime } from "../../engine";
import { newId } from "../../lib/ids";
import type { PredictionInput } from "../../schemas/prediction";
import { executeRun, prepareRun } from "../prediction";
import { agentflowAnswer, executeAgentflow } from "../prediction/agentflow";
import { runsOnAgentflowRuntime } from "../prediction/agentflow-check";
import { prepareAgentflowRun } from "../prediction/agentflow-prepare";
import { lookUpRun } from "../prediction/lookups";

export interface McpRunDeps {
  db: Db;
  env: Env;
  runtime: Runtime;
}

export type McpRunInput = { question: string } | { form: Record<string, unknown> };

export interface McpRunResult {
  text: string;
  json?: unknown;
  /** Set when the run paused for human input: the question it asks. */
  paused?: string;
}

/** The run stops when the caller does (the MCP request's signal), until it has ended. */
async function following<T>(signal: AbortSignal, controller: AbortController, run: () => Promise<T>): Promise<T> {
  const stop = () => controller.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  try {
    return await run();
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/** Runs the flow `flowId` (read again here, whole: the caller's look-up leaves flowData out). */
export async function runFlowForMcp(deps: McpRunDeps, flowId: string, args: McpRunInput, signal: AbortSignal): Promise<McpRunResult> {
  const { db, env, runtime } = deps;
  const lookups = lookUpRun(db, env, flowId);
  const [flow, prefetched] = await Promise.all([lookups.flow, lookups.prefetched]);
  const input: PredictionInput = { ...args, chatId: newId(), streaming: false };
  if (runsOnAgentflowRuntime(flow.type)) {
    const run = await prepareAgentflowRun(db, env, runtime, flow, input, [], prefetched);
    run.chatType = "MCP";
    const done = await following(signal, run.controller, () => executeAgentflow(run));
    const { text } = agentflowAnswer(run, done);
    // A pause's text is the human input's question (after the node's own output, if any).
    return done.outcome.state === "STOPPED" ? { text, paused: text.trim() } : { text };
  }
  const run = await prepareRun(db, env, runtime, flow, input, [], prefetched);
  run.chatType = "MCP";
  const { result } = await following(signal, run.controller, () => executeRun(run, env.FILES));
  return { text: result.text, json: result.json };
}
