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
import { v1NodeList } from "../../agentflow-v1/nodes/registry";

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
  ...v1NodeList, // Agentflow V1 nodes: only translated MULTIAGENT graphs have them
];

export const agentflowNodes: ReadonlyMap<string, AgentflowNodeDef> = new Map(definitions.map((d) => [d.name, d]));

/** Node names the runtime runs, sorted (for messages and the save-time check). */
export const agentflowNodeNames = (): string[] => definitions.filter((d) => !d.translatedOnly).map((d) => d.name).sort();
