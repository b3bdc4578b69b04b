// Agentflow V1 (`type: MULTIAGENT`) on the Agentflow V2 runtime: the graph is translated once
// (translate.ts) and runs on the V2 executor, with its checkpoints, executions and humanInput
// resume. This module adds what V1 answers: agentReasoning, every step's tools and documents, the
// V1 approval action, and Flowise's V1 stream frames.
import { fail } from "../../errors";
import type { FlowGraph } from "../core/types";
import { runAgentflow } from "../agentflow";
import type { AgentflowGraph, AgentflowOutcome, AgentflowPorts, AgentflowRequest } from "../agentflow/types";
import { validateAgentflow } from "../agentflow/validate";
import { snake } from "./nodes/common";
import { ReasoningReader, actionOf, sourceDocumentsOf, usedToolsOf, v1Events } from "./reasoning";
import { translateV1 } from "./translate";
import type { AgentReasoning, V1Action } from "./types";

export type { AgentReasoning, V1Action } from "./types";

export interface V1Outcome extends AgentflowOutcome {
  agentReasoning: AgentReasoning[];
  /** The pending approval in Flowise V1's shape (STOPPED). */
  v1Action?: V1Action;
}

/** Why the V1 graph cannot run (named nodes), or undefined: the save-time warning and the prediction 400. */
export function multiagentFault(graph: FlowGraph): string | undefined {
  const { graph: translated, errors } = translateV1(graph);
  if (!errors.length) errors.push(...validateAgentflow(translated).errors);
  return errors.length ? `This multi-agent flow cannot run: ${errors.join("; ")}` : undefined;
}

/** The translated graph; a graph that cannot run is a 400 naming why. */
export function loadMultiagent(graph: FlowGraph): AgentflowGraph {
  const { graph: translated, errors } = translateV1(graph);
  if (!errors.length) errors.push(...validateAgentflow(translated).errors);
  if (errors.length) throw fail("INVALID_FLOW", `This multi-agent flow cannot run: ${errors.join("; ")}`);
  return translated;
}

export async function runMultiagent(graph: AgentflowGraph, request: AgentflowRequest, ports: AgentflowPorts): Promise<V1Outcome> {
  const reader = new ReasoningReader(request.resume?.executedData);
  const labels = new Map(graph.nodes.map((n) => [snake(n.data.label), n.data.label]));
  const sink = request.streaming ? ports.events : undefined;
  const outcome = await runAgentflow(graph, request, { ...ports, events: sink ? v1Events(sink, reader, labels) : ports.events });
  const agentReasoning = reader.entries(outcome.executedData);
  const v1Action = outcome.state === "STOPPED" ? actionOf(outcome.executedData, outcome.action?.id ?? crypto.randomUUID()) : undefined;
  const done: V1Outcome = {
    ...outcome,
    agentReasoning,
    usedTools: usedToolsOf(agentReasoning),
    sourceDocuments: sourceDocumentsOf(agentReasoning),
    ...(v1Action ? { v1Action } : {}),
  };
  if (sink && (outcome.state === "FINISHED" || outcome.state === "STOPPED")) {
    // Flowise V1 sends the final answer as one token after the steps, then the action and totals.
    sink.event("token", done.text);
    if (v1Action) sink.event("action", v1Action);
    if (done.usedTools.length) sink.event("usedTools", done.usedTools);
    if (done.sourceDocuments.length) sink.event("sourceDocuments", done.sourceDocuments);
  }
  return done;
}
