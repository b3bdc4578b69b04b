// One entry per Flowise Agentflow V2 component name: adding a node is adding its file and a line.
import type { AgentflowNodeDef } from "../node-types";
import { agentNode } from "./agent";
import { conditionNode } from "./condition";
import { conditionAgentNode } from "./condition-agent";
import { customFunctionNode } from "./custom-function";
import { directReplyNode } from "./direct-reply";
import { executeFlowNode } from "./execute-flow";
import { httpNode } from "./http";
import { humanInputNode } from "./human-input";
import { iterationNode } from "./iteration";
import { llmNode } from "./llm";
import { loopNode } from "./loop";
import { retrieverNode } from "./retriever";
import { startNode } from "./start";
import { stickyNoteNode } from "./sticky-note";
import { toolNode } from "./tool";

const definitions: AgentflowNodeDef[] = [
  startNode,
  llmNode,
  agentNode,
  toolNode,
  retrieverNode,
  conditionNode,
  conditionAgentNode,
  loopNode,
  iterationNode,
  humanInputNode,
  customFunctionNode,
  directReplyNode,
  executeFlowNode,
  httpNode,
  stickyNoteNode,
];

const nodes = new Map(definitions.map((d) => [d.name, d]));
export const agentflowNodes: ReadonlyMap<string, AgentflowNodeDef> = nodes;

/**
 * Adds nodes only a translation makes (Agentflow V1's, from ../../agentflow-v1/nodes/registry.ts,
 * when it loads): V2 does not import V1. A V1 node can only be in a graph V1 translated, so it is
 * registered before any graph naming it runs; a saved AGENTFLOW naming one is refused either way.
 */
export function registerTranslatedNodes(defs: readonly AgentflowNodeDef[]): void {
  for (const def of defs) {
    if (!def.translatedOnly) throw new Error(`${def.name}: only translatedOnly nodes are registered from outside`);
    if (nodes.has(def.name) && nodes.get(def.name) !== def) throw new Error(`${def.name}: an agentflow node of that name exists`);
    nodes.set(def.name, def);
  }
}

/** Node names the runtime runs, sorted (for messages and the save-time check). */
export const agentflowNodeNames = (): string[] =>
  definitions
    .filter((d) => !d.translatedOnly)
    .map((d) => d.name)
    .sort();
