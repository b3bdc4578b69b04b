// GET /validation/{id}: what stands between a saved flow and a run, per node, in Flowise's shape
// ([{id, label, name, issues}], only nodes with issues; [] when none). Three sources: the catalogue
// (unknown nodes, missing inputs, connections and credentials: ./inputs.ts), the graph (nodes
// connected to nothing, edges to nodes that do not exist, a schedule that cannot run) and the
// engine's own checks (an agentflow's validateAgentflow, a chatflow's plan), each reason placed on
// the node it names.
import { ApiError } from "../../errors";
import {
  type AgentflowGraph,
  type FlowEdge,
  type FlowGraph,
  type FlowNode,
  parseFlowData,
  prepareFlow,
  validateAgentflow,
} from "../../engine";
import { isObject } from "../../lib/inputs";
import type { Deps } from "../deps";
import { nodeDescriptor } from "../catalogue/files";
import type { Descriptor } from "../catalogue/node-data";
import { getChatflow } from "../chatflows";
import { startSchedule } from "../schedules/start-schedule";
import { inputIssues } from "./inputs";

export interface ValidationResult {
  id: string;
  label: string;
  name: string;
  issues: string[];
}

const NOTES = new Set(["stickyNote", "stickyNoteAgentflow"]);
// The engine's own sentence for nodes it does not know: the catalogue check already names each one.
const UNKNOWN_NODES = /^Unknown agentflow nodes:/;

const NAME = /^[A-Za-z0-9_-]{1,100}$/;

async function load(names: Iterable<string>, into: Map<string, Descriptor | undefined>): Promise<void> {
  const wanted = [...new Set(names)].filter((n) => NAME.test(n) && !into.has(n));
  const found = await Promise.all(wanted.map(async (n) => [n, await nodeDescriptor(n).catch(() => undefined)] as const));
  for (const [n, d] of found) into.set(n, d as Descriptor | undefined);
}

/** The components (chat model, tool…) a node picks through its loadConfig inputs, top level and in array rows. */
function componentsNamed(node: FlowNode, d: Descriptor): string[] {
  const inputs = node.data.inputs ?? {};
  const names: string[] = [];
  for (const p of d.inputs ?? []) {
    const value = inputs[p.name];
    if (p.loadConfig && typeof value === "string") names.push(value);
    if (p.array && Array.isArray(value))
      for (const row of value)
        for (const sub of p.array)
          if (sub.loadConfig && isObject(row) && typeof row[sub.name] === "string") names.push(row[sub.name] as string);
  }
  return names;
}

/** The descriptors of every node and of every component a node picks; undefined for a name the catalogue lacks. */
async function descriptorsOf(graph: FlowGraph): Promise<Map<string, Descriptor | undefined>> {
  const found = new Map<string, Descriptor | undefined>();
  await load(
    graph.nodes.map((n) => n.data.name),
    found,
  );
  await load(
    graph.nodes.flatMap((n) => {
      const d = found.get(n.data.name);
      return d ? componentsNamed(n, d) : [];
    }),
    found,
  );
  return found;
}

/** Where each edge ends: the input names connected into each node (from `<id>-input-<name>-<type>` handles). */
function connectedInputs(graph: FlowGraph): Map<string, Set<string>> {
  const into = new Map<string, Set<string>>();
  for (const e of graph.edges) {
    const prefix = `${e.target}-input-`;
    const handle = e.targetHandle ?? "";
    if (!handle.startsWith(prefix)) continue;
    const rest = handle.slice(prefix.length);
    const name = rest.slice(0, rest.lastIndexOf("-") > 0 ? rest.lastIndexOf("-") : rest.length);
    if (!into.has(e.target)) into.set(e.target, new Set());
    into.get(e.target)!.add(name);
  }
  return into;
}

/** The engine's reasons the flow cannot run (none for a flow it would run). */
function engineReasons(type: string, flowData: string, graph: FlowGraph): string[] {
  if (type === "AGENTFLOW") return validateAgentflow(graph as AgentflowGraph).errors.filter((e) => !UNKNOWN_NODES.test(e));
  try {
    prepareFlow(type, flowData);
    return [];
  } catch (err) {
    if (err instanceof ApiError) return [err.message];
    throw err;
  }
}

/**
 * The graph as the engine reads it, less the edges whose ends are not in it (the engine refuses
 * those outright; here they are issues of the node still there), and those edges.
 */
function readGraph(flowData: string): { graph: FlowGraph; text: string; dangling: FlowEdge[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(flowData);
  } catch {
    return { graph: parseFlowData(flowData), text: flowData, dangling: [] }; // throws the engine's own 400
  }
  const edges = isObject(raw) && Array.isArray(raw.edges) ? (raw.edges as FlowEdge[]) : [];
  const nodes = isObject(raw) && Array.isArray(raw.nodes) ? (raw.nodes as unknown[]) : [];
  const ids = new Set(nodes.map((n) => (isObject(n) ? n.id : undefined)));
  const joins = (e: FlowEdge) => isObject(e) && ids.has(e.source) && ids.has(e.target);
  const text = isObject(raw) && Array.isArray(raw.edges) ? JSON.stringify({ ...raw, edges: edges.filter(joins) }) : flowData;
  return { graph: parseFlowData(text), text, dangling: edges.filter((e) => isObject(e) && !joins(e)) };
}

const mentions = (reason: string, id: string) =>
  new RegExp(`(^|[^A-Za-z0-9_])${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^A-Za-z0-9_])`).test(reason);

export async function validateFlow(deps: Deps<"db">, id: string): Promise<ValidationResult[]> {
  const flow = await getChatflow(deps, id);
  const flowEntry = (issues: string[]): ValidationResult => ({ id: flow.id, label: flow.name, name: "flow", issues });
  let read: ReturnType<typeof readGraph>;
  try {
    read = readGraph(flow.flowData);
  } catch (err) {
    if (err instanceof ApiError) return [flowEntry([err.message])];
    throw err;
  }
  const { graph, dangling } = read;
  const nodes = graph.nodes.filter((n) => !NOTES.has(n.data.name));
  const descriptors = await descriptorsOf(graph);
  const missing = new Set<string>();
  const componentOf = (name: string) => descriptors.get(name);
  const connected = new Set([...graph.edges, ...dangling].flatMap((e) => [e.source, e.target]));
  const into = connectedInputs(graph);
  const results = new Map<string, ValidationResult>();
  const add = (node: FlowNode, issue: string) => {
    const entry = results.get(node.id) ?? { id: node.id, label: node.data.label, name: node.data.name, issues: [] };
    entry.issues.push(issue);
    results.set(node.id, entry);
  };

  for (const node of nodes) {
    const d = descriptors.get(node.data.name);
    if (!connected.has(node.id) && nodes.length > 1) add(node, "This node is not connected to anything");
    if (!d) {
      missing.add(node.id);
      add(node, `edgeflow has no node ${node.data.name}: replace it with one from the node list`);
      continue;
    }
    const inputs = node.data.inputs ?? {};
    const check = { id: node.id, credential: node.data.credential, inputs, connected: into.get(node.id) ?? new Set<string>() };
    for (const issue of inputIssues(check, d, componentOf)) add(node, issue);
    if (node.data.name === "startAgentflow" && inputs.startInputType === "scheduleInput") {
      const schedule = startSchedule(inputs, node.id, new Date());
      if (!schedule.canEnable) add(node, `Schedule configuration is invalid: ${schedule.reason}`);
    }
  }

  const ids = new Set(graph.nodes.map((n) => n.id));
  const edgeResults: ValidationResult[] = [];
  for (const e of dangling) {
    const source = graph.nodes.find((n) => n.id === e.source);
    const target = graph.nodes.find((n) => n.id === e.target);
    if (source && !ids.has(e.target)) add(source, `Connected to non-existent target node ${e.target}`);
    else if (target && !ids.has(e.source)) add(target, `Connected to non-existent source node ${e.source}`);
    else if (!source && !target)
      edgeResults.push({
        id: e.id ?? `${e.source}-${e.target}`,
        label: `Edge ${e.id ?? ""}`.trim(),
        name: "edge",
        issues: ["Disconnected edge - both source and target nodes do not exist"],
      });
  }

  // The engine speaks only when the catalogue knows every node (else its first word is that it does not).
  const unplaced: string[] = [];
  if (!missing.size) {
    for (const reason of engineReasons(flow.type, read.text, graph)) {
      const named = nodes.filter((n) => mentions(reason, n.id));
      if (named.length) for (const n of named) add(n, reason);
      else unplaced.push(reason);
    }
  }
  const ordered = nodes.map((n) => results.get(n.id)).filter((r): r is ValidationResult => !!r);
  return [...ordered, ...edgeResults, ...(unplaced.length ? [flowEntry(unplaced)] : [])];
}
