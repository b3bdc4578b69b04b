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

/** The run stops when the caller does (the MCP request's signal). */
function follow(signal: AbortSignal, controller: AbortController): void {
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
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
    follow(signal, run.controller);
    const done = await executeAgentflow(run);
    const answer = agentflowAnswer(run, done);
    return done.outcome.state === "STOPPED" ? { text: answer.text, paused: answer.text } : { text: answer.text };
  }
  const run = await prepareRun(db, env, runtime, flow, input, [], prefetched);
  run.chatType = "MCP";
  follow(signal, run.controller);
  const { result } = await executeRun(run, env.FILES);
  return { text: result.text, json: result.json };
}
