// One entry per Flowise V1 node name this runtime runs (multi agents and sequential agents). They are
// registered into the agentflow node registry (../../agentflow/nodes/registry.ts) when this module
// loads, so the translated graph runs on the one executor (V2 does not import V1).
import { registerTranslatedNodes } from "../../agentflow/nodes/registry";
import type { V1NodeDef } from "./common";
import { seqAgentNode } from "./seq-agent";
import { seqConditionAgentNode, seqConditionNode } from "./seq-condition";
import { seqEndNode, seqLoopNode } from "./seq-flow";
import { seqCustomFunctionNode, seqExecuteFlowNode } from "./seq-function";
import { seqLLMNode } from "./seq-llm";
import { seqStartNode } from "./seq-start";
import { seqToolNode } from "./seq-tool";
import { supervisorNode } from "./supervisor";
import { workerNode } from "./worker";

export type { TranslateScope, V1NodeDef } from "./common";

const defs: V1NodeDef[] = [
  supervisorNode,
  workerNode,
  seqStartNode,
  seqAgentNode,
  seqLLMNode,
  seqToolNode,
  seqConditionNode,
  seqConditionAgentNode,
  seqLoopNode,
  seqEndNode,
  seqCustomFunctionNode,
  seqExecuteFlowNode,
];

export const v1NodeList: V1NodeDef[] = defs.map((d) => ({ ...d, translatedOnly: true as const }));

export const v1Defs: ReadonlyMap<string, V1NodeDef> = new Map(v1NodeList.map((d) => [d.name, d]));

registerTranslatedNodes(v1NodeList);
