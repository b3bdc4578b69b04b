// The plan a chat model answers for POST /agentflowv2-generator/generate, and how it becomes a flow
// the canvas opens: every node name checked against the catalogue (and every tool), ids made
// canonical, node data made from the descriptors (services/catalogue/node-data.ts) with the chosen
// chat model in every model input, edges drawn as the canvas draws them, nodes laid out left to
// right. A plan that names what edgeflow lacks, or joins what is not there, is a 422 saying so.
import { z } from "zod";
import { ApiError } from "../../errors";
import { type Descriptor, type Inputs, type NodeData, fillComponentConfigs, initNodeData, withDisplay } from "../catalogue/node-data";
import { type FlowEdge, type FlowNode, agentflowEdge, canvasNode } from "../templates/expand";

export const Plan = z.object({
  description: z.string().optional().describe("What the flow does, in one sentence"),
  nodes: z
    .array(
      z.object({
        id: z.string().describe("<node name>_<number>, e.g. llmAgentflow_0"),
        name: z.string().describe("The node's name, from the list of nodes"),
        label: z.string().describe("What the node does in this flow, in a few words"),
        instructions: z.string().optional().describe("System prompt, reply message, reviewer question or routing instruction"),
        scenarios: z.array(z.string()).optional().describe("conditionAgentAgentflow only: the branches to choose between"),
        tools: z.array(z.string()).optional().describe("agentAgentflow and toolAgentflow only: tool names from the list of tools"),
        loopBackTo: z.string().optional().describe("loopAgentflow only: the id of the earlier node to go back to"),
        parentNode: z.string().optional().describe("The id of the iterationAgentflow this node runs inside"),
      }),
    )
    .min(1)
    .max(40),
  edges: z
    .array(
      z.object({
        source: z.string(),
        target: z.string(),
        branch: z.number().int().min(0).optional().describe("conditionAgentAgentflow and humanInputAgentflow only: the branch index"),
      }),
    )
    .max(80),
});
export type Plan = z.infer<typeof Plan>;

/** The chat model the user chose, as each model input of a node holds it (name + `<input>Config`). */
export interface ChosenModel {
  name: string;
  inputs: Inputs;
}

export interface Catalogue {
  /** Agentflow nodes the plan may name. */
  nodes: Map<string, Descriptor>;
  /** Tools an agent may call. */
  tools: Set<string>;
  /** Any descriptor by name (components: chat models, tools). */
  component(name: string): Descriptor | undefined;
}

const unprocessable = (message: string) => new ApiError(422, `The generated flow cannot be used: ${message}`);
const MODEL_INPUTS = ["llmModel", "agentModel", "conditionAgentModel"];
const BRANCHING = new Set(["conditionAgentAgentflow", "humanInputAgentflow"]);

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Rich-text inputs hold HTML paragraphs (the canvas's editor); `{{ … }}` references stay as written. */
const html = (text: string) =>
  text
    .split(/\n+/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join("");

type PlanNode = Plan["nodes"][number];

function inputsFor(node: PlanNode, ids: Map<string, { id: string; label: string }>): Inputs {
  const text = node.instructions?.trim();
  const tools = node.tools ?? [];
  switch (node.name) {
    case "llmAgentflow":
      return text ? { llmMessages: [{ role: "system", content: html(text) }] } : {};
    case "agentAgentflow":
      return {
        ...(text ? { agentMessages: [{ role: "system", content: html(text) }] } : {}),
        agentTools: tools.map((t) => ({ agentSelectedTool: t, agentSelectedToolRequiresHumanInput: false })),
      };
    case "toolAgentflow":
      return tools.length ? { toolAgentflowSelectedTool: tools[0], toolInputArgs: [] } : {};
    case "conditionAgentAgentflow":
      return {
        ...(text ? { conditionAgentInstructions: html(text) } : {}),
        conditionAgentScenarios: (node.scenarios?.length ? node.scenarios : ["", ""]).map((scenario) => ({ scenario })),
      };
    case "humanInputAgentflow":
      return { humanInputDescriptionType: "fixed", humanInputDescription: html(text || "Do you want to proceed?") };
    case "directReplyAgentflow":
      return text ? { directReplyMessage: html(text) } : {};
    case "loopAgentflow": {
      const target = node.loopBackTo ? ids.get(node.loopBackTo) : undefined;
      if (node.loopBackTo && !target) throw unprocessable(`${node.id} loops back to ${node.loopBackTo}, which is not in the flow`);
      return target ? { loopBackToNode: `${target.id}-${target.label}` } : {};
    }
    default:
      return {};
  }
}

/** Each chosen-model input of the node set to the user's chat model and its settings. */
function withModel(data: NodeData, model: ChosenModel): void {
  for (const key of MODEL_INPUTS) {
    if (!(key in data.inputs)) continue;
    data.inputs[key] = model.name;
    data.inputs[`${key}Config`] = { ...model.inputs, [key]: model.name };
  }
}

/** Top-level nodes by their distance from Start; children of an Iteration in a row inside it. */
function layout(nodes: NodeData[], edges: FlowEdge[], parents: Map<string, string>): Map<string, { x: number; y: number }> {
  const depth = new Map<string, number>();
  const start = nodes.find((n) => n.name === "startAgentflow");
  const queue = start ? [start.id] : [];
  if (start) depth.set(start.id, 0);
  while (queue.length) {
    const id = queue.shift()!;
    for (const e of edges.filter((x) => x.source === id && !depth.has(x.target))) {
      depth.set(e.target, depth.get(id)! + 1);
      queue.push(e.target);
    }
  }
  const rows = new Map<number, number>();
  const children = new Map<string, number>();
  const at = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const parent = parents.get(n.id);
    if (parent) {
      const k = children.get(parent) ?? 0;
      children.set(parent, k + 1);
      at.set(n.id, { x: 40 + k * 220, y: 80 });
      continue;
    }
    const d = depth.get(n.id) ?? Math.max(0, ...depth.values()) + 1;
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    at.set(n.id, { x: d * 280, y: row * 160 });
  }
  return at;
}

export function planToFlow(plan: Plan, catalogue: Catalogue, model: ChosenModel): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const unknown = plan.nodes.filter((n) => !catalogue.nodes.has(n.name)).map((n) => `${n.name} (${n.id})`);
  if (unknown.length) throw unprocessable(`edgeflow has no node ${unknown.join(", ")}`);
  const badTools = plan.nodes.flatMap((n) => (n.tools ?? []).filter((t) => !catalogue.tools.has(t)).map((t) => `${t} (${n.id})`));
  if (badTools.length) throw unprocessable(`edgeflow has no tool ${badTools.join(", ")}`);

  // Canonical ids, <name>_<n> in the plan's order, whatever the model called them.
  const ids = new Map<string, { id: string; label: string }>();
  const counts = new Map<string, number>();
  for (const n of plan.nodes) {
    if (ids.has(n.id)) throw unprocessable(`two nodes have the id ${n.id}`);
    const k = counts.get(n.name) ?? 0;
    counts.set(n.name, k + 1);
    ids.set(n.id, { id: `${n.name}_${k}`, label: n.label.trim() || catalogue.nodes.get(n.name)!.label });
  }
  const parents = new Map<string, string>();
  const datas = plan.nodes.map((n) => {
    const { id, label } = ids.get(n.id)!;
    const data = initNodeData(catalogue.nodes.get(n.name)!, id);
    data.label = label;
    Object.assign(data.inputs, inputsFor(n, ids));
    withModel(data, model);
    fillComponentConfigs(data, catalogue.component);
    if (n.name === "conditionAgentAgentflow")
      data.outputAnchors = (data.inputs.conditionAgentScenarios as unknown[]).map((_, i) => ({
        id: `${id}-output-${i}`,
        label,
        name: n.name,
      }));
    data.inputParams = withDisplay(data.inputParams, data.inputs);
    if (n.parentNode) {
      const parent = ids.get(n.parentNode)?.id;
      if (!parent?.startsWith("iterationAgentflow_"))
        throw unprocessable(`${n.id} is inside ${n.parentNode}, which is no Iteration node of the flow`);
      parents.set(id, parent);
    }
    return data;
  });
  const byId = new Map(datas.map((d) => [d.id, d]));
  const taken = new Map<string, number>();
  const edges = plan.edges.map((e) => {
    const source = byId.get(ids.get(e.source)?.id ?? "");
    const target = byId.get(ids.get(e.target)?.id ?? "");
    if (!source || !target) throw unprocessable(`the edge ${e.source} → ${e.target} joins a node that is not in the flow`);
    if (!BRANCHING.has(source.name)) return agentflowEdge(source, target);
    // A branch the model left out is the next one of that node.
    const branch = e.branch ?? taken.get(source.id) ?? 0;
    taken.set(source.id, branch + 1);
    const count = source.outputAnchors.length;
    if (branch >= count)
      throw unprocessable(`the edge ${e.source} → ${e.target} leaves from branch ${branch}, but ${e.source} has ${count}`);
    return agentflowEdge(source, target, branch);
  });
  const at = layout(datas, edges, parents);
  // React Flow draws a parent before its children: nodes inside an Iteration come last.
  const ordered = [...datas.filter((d) => !parents.has(d.id)), ...datas.filter((d) => parents.has(d.id))];
  return { nodes: ordered.map((d) => canvasNode(d, at.get(d.id)!, true, parents.get(d.id))), edges };
}
