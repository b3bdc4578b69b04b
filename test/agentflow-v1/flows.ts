// Flowise 3.1.4's Agentflow V1 templates (`type: MULTIAGENT`) as saved, their chat models pointed at
// the OpenAI-compatible stand-in; saving and asking them over the API.
import type { FlowNode } from "../../src/engine";
import { pointAtStandin } from "../engine/helpers";
import { json } from "../helpers";
import { openAICredential } from "../agentflow-api/flows";

export interface Template {
  nodes: FlowNode[];
  edges: Array<Record<string, unknown>>;
}

/** A deep copy whose chat models (chatOpenAI, chatAnthropic …) are the stand-in, with a stored credential. */
export async function onStandin(template: unknown, patch?: (nodes: Map<string, FlowNode>) => void): Promise<Template> {
  const copy = structuredClone(template) as Template;
  const credential = await openAICredential();
  for (const node of copy.nodes) {
    if (node.data.category !== "Chat Models") continue;
    node.data.name = "chatOpenAI";
    node.data.inputs = { ...node.data.inputs, modelName: "gpt-standin", streaming: true };
    pointAtStandin(node, credential);
  }
  patch?.(new Map(copy.nodes.map((n) => [n.id, n])));
  return copy;
}

export async function saveMultiagent(t: Template, name = "multiagent"): Promise<{ id: string; warning?: string }> {
  return json("POST", "/chatflows", { body: { name, type: "MULTIAGENT", flowData: JSON.stringify({ nodes: t.nodes, edges: t.edges }) } });
}

export const marker = () => `m${crypto.randomUUID().slice(0, 8)}`;

/** agentReasoning as [agentName, next] pairs (next only where the step has one). */
export const steps = (reasoning: Array<{ agentName: string; next?: string }>) =>
  reasoning.map((r) => (r.next ? `${r.agentName} → ${r.next}` : r.agentName));

/** A hand-built V1 node, edge and `{{id.data.instance}}` reference (for flows no template holds). */
export const v1Node = (id: string, name: string, category: string, inputs: Record<string, unknown>) => ({
  id,
  type: "customNode",
  position: { x: 0, y: 0 },
  data: { id, name, label: name, category, inputs },
});
export const v1Edge = (source: string, target: string, sourceName: string, targetInput: string) => ({
  id: `${source}-${target}`,
  source,
  target,
  sourceHandle: `${source}-output-${sourceName}`,
  targetHandle: `${target}-input-${targetInput}`,
});
export const v1Ref = (id: string) => `{{${id}.data.instance}}`;
