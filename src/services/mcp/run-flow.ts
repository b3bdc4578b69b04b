// The one place MCP runs a flow: the run door's `mcp` trigger (services/runs/triggers.ts) — a new
// chat, as POST /prediction would run it (same memory, stored messages with chatType MCP,
// executions, limits, scrubbed errors) — and the answer as text or JSON, or the question a paused
// run asks. The MCP route checked the token or key, the Origin and the rate limit before calling.
import type { RunAnswer } from "../runs";
import { newId } from "../../lib/ids";
import { type RunDeps, runFlow } from "../runs";

export type McpRunInput = { question: string } | { form: Record<string, unknown> };

export interface McpRunResult {
  text: string;
  json?: unknown;
  /** Set when the run paused for human input: the question it asks. */
  paused?: string;
}

/** Runs the flow `flowId` through the door; the run stops when `signal` aborts (the MCP request's). */
export async function runFlowForMcp(deps: RunDeps, flowId: string, args: McpRunInput, signal: AbortSignal): Promise<McpRunResult> {
  const delivered = await runFlow(deps, { trigger: "mcp", flowId, input: { ...args, chatId: newId() }, delivery: "json", signal });
  if (delivered.kind !== "json") throw new Error("The mcp trigger answers JSON");
  const answer: RunAnswer = delivered.body;
  // A pause's text is the human input's question (after the node's own output, if any).
  if ("action" in answer && answer.action) return { text: answer.text, paused: answer.text.trim() };
  return { text: answer.text, json: "json" in answer ? (answer.json ?? undefined) : undefined };
}
