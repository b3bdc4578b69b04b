// A V1 graph (Flowise `type: MULTIAGENT`: seq* nodes, or a supervisor and its workers) translated
// ONCE, at load, into the V2 execution model (../agentflow): flow nodes keep their Flowise name and
// become agentflow nodes (decisions by branch handle, loops as Loop-like nodes), while chat models,
// tools, vector stores… stay components, built through the chatflow registry when their node runs.
// What makes a graph impossible to run is collected as errors naming the node.
import type { FlowEdge, FlowGraph } from "../core/types";
import type { AgentflowGraph, AgentflowNode } from "../agentflow/types";
import { refId } from "../core/refs";
import { type TranslateScope, v1Defs } from "./nodes/registry";
import { channelsOf } from "./nodes/seq-common";
import type { ComponentGraph, V1Info } from "./types";

/**
 * Nodes that are neither flow nor component: their job is done by the translation (state, memory).
 * Every agent memory node means the same here: the session's previous execution, kept in D1.
 */
export const ABSORBED = new Set(["seqState", "agentMemory", "sqliteAgentMemory", "postgresAgentMemory", "mySQLAgentMemory"]);
const STICKY = new Set(["stickyNote", "stickyNoteAgentflow"]);

export interface V1Translation {
  graph: AgentflowGraph;
  mode: "team" | "sequential";
  errors: string[];
}

/** Ids an input value refers to (`{{id.data.instance}}`, alone or in a list). */
function refsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsOf);
  const id = refId(value);
  return id ? [id] : [];
}

/** The components `roots` use, and theirs: every node reached backwards through non-flow nodes. */
function componentClosure(graph: FlowGraph, roots: string[], isComponent: (id: string) => boolean): ComponentGraph {
  const ids = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift()!;
    for (const e of graph.edges)
      if (e.target === id && isComponent(e.source) && !ids.has(e.source)) {
        ids.add(e.source);
        queue.push(e.source);
      }
    const node = graph.nodes.find((n) => n.id === id);
    for (const ref of Object.values(node?.data.inputs ?? {}).flatMap(refsOf))
      if (isComponent(ref) && !ids.has(ref)) {
        ids.add(ref);
        queue.push(ref);
      }
  }
  // Edges into the roots too: a root that is itself a component (a Tool Node's tool) is built after its own.
  const into = new Set([...ids, ...roots]);
  return { nodes: graph.nodes.filter((n) => ids.has(n.id)), edges: graph.edges.filter((e) => ids.has(e.source) && into.has(e.target)) };
}

export function translateV1(graph: FlowGraph): V1Translation {
  const errors: string[] = [];
  const nodes = graph.nodes.filter((n) => !STICKY.has(n.data?.name) && n.type !== "stickyNote");
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const flow = nodes.filter((n) => v1Defs.has(n.data.name));
  const flowIds = new Set(flow.map((n) => n.id));
  const absorbed = nodes.filter((n) => ABSORBED.has(n.data.name));
  const isComponent = (id: string) => byId.has(id) && !flowIds.has(id) && !ABSORBED.has(byId.get(id)!.data.name);
  const team = flow.some((n) => v1Defs.get(n.data.name)!.mode === "team");
  const sequential = flow.some((n) => v1Defs.get(n.data.name)!.mode === "sequential");
  if (team && sequential)
    errors.push("A multi-agent flow is either sequential agents (seqStart …) or a " + "supervisor with workers, not both");
  if (!flow.length)
    errors.push("A multi-agent flow needs a Start node (seqStart) or a Supervisor (supervisor) with workers; this one has neither");
  const mode = team ? "team" : "sequential";
  if (mode === "sequential" && flow.length) {
    if (!flow.some((n) => n.data.name === "seqStart")) errors.push("A sequential agent flow needs a Start node (seqStart)");
    if (!flow.some((n) => n.data.name === "seqEnd" || n.data.name === "seqLoop"))
      errors.push("A sequential agent flow needs at least one End (seqEnd) or Loop (seqLoop) node");
  }

  const flowEdges = graph.edges.filter((e) => flowIds.has(e.source) && flowIds.has(e.target));
  const scope: TranslateScope = {
    graph,
    byId,
    flow,
    errors,
    childrenOf: (id) => [...new Set(flowEdges.filter((e) => e.source === id).map((e) => e.target))],
    parentsOf: (id) => [...new Set(flowEdges.filter((e) => e.target === id).map((e) => e.source))],
    edgesFrom: (id) => flowEdges.filter((e) => e.source === id),
    ofName: (name) => flow.filter((n) => n.data.name === name),
    stateNode: absorbed.find((n) => n.data.name === "seqState"),
  };

  const translated: AgentflowNode[] = [];
  const handles = new Map<FlowEdge, string>();
  for (const node of flow) {
    const def = v1Defs.get(node.data.name)!;
    const refs = Object.values(node.data.inputs ?? {}).flatMap(refsOf);
    const info: V1Info = {
      original: node,
      components: componentClosure(graph, [node.id], isComponent),
      skipped: refs.filter((r) => !isComponent(r)),
    };
    if (mode === "sequential") {
      const start = scope.ofName("seqStart")[0];
      info.channels = channelsOf(scope.stateNode).types;
      if (start && start.id !== node.id) info.startModel = refId(start.data.inputs?.model);
    }
    const t = def.translate?.(node, scope) ?? {};
    Object.assign(info, t.info ?? {});
    for (const ref of [info.fallbackModel, info.startModel, ...(info.toolRefs ?? [])]) {
      if (!ref) continue;
      const extra = componentClosure(graph, [ref], isComponent);
      const have = new Set(info.components.nodes.map((n) => n.id));
      const root = byId.get(ref);
      if (root && !have.has(ref)) info.components.nodes.push(root);
      info.components.nodes.push(...extra.nodes.filter((n) => !have.has(n.id) && n.id !== ref));
      info.components.edges.push(...extra.edges.filter((e) => !info.components.edges.includes(e)));
    }
    for (const [edge, handle] of t.handles ?? []) handles.set(edge, handle);
    translated.push({
      id: node.id,
      type: "agentFlow",
      position: node.position,
      data: {
        id: node.id,
        name: node.data.name,
        label: t.label ?? node.data.label ?? node.data.name,
        category: node.data.category,
        inputs: t.inputs ?? {},
        v1: info,
      },
    } as AgentflowNode);
  }
  const edges: FlowEdge[] = flowEdges.map((e) => ({ ...e, sourceHandle: handles.get(e) ?? `${e.source}-output-v1` }));
  return { graph: { nodes: translated, edges, translated: true }, mode, errors };
}
