// A template's short form (src/services/templates/flows/*.json, checked by scripts/lib/templates.mjs)
// expanded into the flowData the canvas opens: every node's full data made from its catalogue
// descriptor (services/catalogue/node-data.ts), chatflow connections written into the target's
// inputs as `{{<source>.data.instance}}`, handles and edge ids as the canvas makes them.
import { isObject } from "../../lib/inputs";
import { type Descriptor, type Inputs, type NodeData, fillComponentConfigs, initNodeData, withDisplay } from "../catalogue/node-data";

export type TemplateType = "Chatflow" | "AgentflowV2";

export interface SourceNode {
  id: string;
  position: { x: number; y: number };
  label?: string;
  inputs?: Inputs;
  /** The chosen output of a node with several (a vector store's retriever or vectorStore). */
  output?: string;
  parentNode?: string;
}

export interface SourceEdge {
  source: string;
  target: string;
  /** Chatflows: the target's input anchor. */
  input?: string;
  /** Agentflows: the source's branch (Condition, Condition Agent, Human Input). */
  branch?: number;
}

export interface TemplateSource {
  id: string;
  templateName: string;
  type: TemplateType;
  description: string;
  usecases: string[];
  framework?: string[];
  badge?: string;
  speechToText?: unknown;
  textToSpeech?: unknown;
  nodes: SourceNode[];
  edges: SourceEdge[];
}

export interface FlowNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  positionAbsolute: { x: number; y: number };
  width: number;
  height: number;
  selected: boolean;
  dragging: boolean;
  data: NodeData;
  parentNode?: string;
  extent?: string;
}

export interface FlowEdge {
  id: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
  type: string;
  data?: Record<string, unknown>;
}

export const nodeNameOf = (id: string) => id.replace(/_\d+$/, "");

/** React Flow's node type: agentflow nodes are `agentFlow` (an Iteration `iteration`), chatflow ones `customNode`; notes `stickyNote`. */
export function canvasType(name: string, agentflow: boolean): string {
  if (name === "stickyNote" || name === "stickyNoteAgentflow") return "stickyNote";
  if (agentflow) return name === "iterationAgentflow" ? "iteration" : "agentFlow";
  return "customNode";
}

/** A canvas node around its data. Sizes are the canvas's usual ones; it measures nodes again when it draws them. */
export function canvasNode(data: NodeData, position: { x: number; y: number }, agentflow: boolean, parentNode?: string): FlowNode {
  const type = canvasType(data.name, agentflow);
  const [width, height] = type === "iteration" ? [480, 250] : agentflow ? [180, 70] : [300, 160 + 60 * data.inputParams.length];
  return {
    id: data.id,
    type,
    position,
    positionAbsolute: position,
    width,
    height,
    selected: false,
    dragging: false,
    data,
    ...(parentNode ? { parentNode, extent: "parent" } : {}),
  };
}

/** An agentflow edge as the canvas draws it: the source's output (or branch) to the target node. */
export function agentflowEdge(source: NodeData, target: NodeData, branch?: number): FlowEdge {
  const sourceHandle = branch === undefined ? `${source.id}-output-${source.name}` : `${source.id}-output-${branch}`;
  const outputs = (source.outputAnchors ?? []) as unknown[];
  const label = branch === undefined ? undefined : source.name === "humanInputAgentflow" ? ["proceed", "reject"][branch] : String(branch);
  return {
    id: `${source.id}-${sourceHandle}-${target.id}-${target.id}`,
    source: source.id,
    sourceHandle,
    target: target.id,
    targetHandle: target.id,
    type: "agentFlow",
    data: {
      sourceColor: source.color,
      targetColor: target.color,
      ...(label !== undefined && outputs.length ? { edgeLabel: label } : {}),
      isHumanInput: source.name === "humanInputAgentflow",
    },
  };
}

/** A chatflow connection: the source's (chosen) output anchor into the target's input anchor, also written into its inputs. */
function chatflowEdge(source: NodeData, target: NodeData, input: string): FlowEdge {
  const anchor = source.outputAnchors[0] ?? {};
  const options = Array.isArray(anchor.options) ? (anchor.options as { id: string; name: string }[]) : undefined;
  const sourceHandle = options ? options.find((o) => o.name === source.outputs.output)?.id : (anchor.id as string | undefined);
  const targetHandle = target.inputAnchors.find((a) => a.name === input)?.id;
  if (!sourceHandle || !targetHandle) throw new Error(`Template edge ${source.id} → ${target.id}.${input} has no handle`);
  const ref = `{{${source.id}.data.instance}}`;
  const list = target.inputAnchors.find((a) => a.name === input)?.list;
  const held = target.inputs[input];
  target.inputs[input] = list ? [...(Array.isArray(held) ? held : []), ref] : ref;
  return {
    id: `${source.id}-${sourceHandle}-${target.id}-${targetHandle}`,
    source: source.id,
    sourceHandle,
    target: target.id,
    targetHandle,
    type: "buttonedge",
  };
}

/** Inputs over the defaults; a `<param>Config` object merges over what the node filled in. */
function applyInputs(data: NodeData, inputs: Inputs): void {
  for (const [key, value] of Object.entries(inputs)) {
    const held = data.inputs[key];
    data.inputs[key] = isObject(held) && isObject(value) ? { ...held, ...value } : value;
  }
}

/** The template's flowData: its nodes made from the descriptors, and its edges. */
export function expandFlow(t: TemplateSource, descriptors: Record<string, Descriptor>): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const agentflow = t.type === "AgentflowV2";
  const component = (name: string) => descriptors[name];
  const datas = new Map<string, NodeData>();
  for (const n of t.nodes) {
    const descriptor = descriptors[nodeNameOf(n.id)];
    if (!descriptor) throw new Error(`Template ${t.templateName}: no descriptor for ${n.id}`);
    const data = initNodeData(descriptor, n.id);
    if (n.label) data.label = n.label;
    applyInputs(data, n.inputs ?? {});
    if (n.output) data.outputs.output = n.output;
    fillComponentConfigs(data, component);
    datas.set(n.id, data);
  }
  const edges = t.edges.map((e) => {
    const source = datas.get(e.source)!;
    const target = datas.get(e.target)!;
    return agentflow ? agentflowEdge(source, target, e.branch) : chatflowEdge(source, target, e.input ?? "");
  });
  const nodes = t.nodes.map((n) => {
    const data = datas.get(n.id)!;
    data.inputParams = withDisplay(data.inputParams, data.inputs);
    data.inputAnchors = withDisplay(data.inputAnchors, data.inputs);
    return canvasNode(data, n.position, agentflow, n.parentNode);
  });
  return { nodes, edges };
}
