// flowData (a JSON string, as Flowise exports it) → a checked graph. Both runtimes read it.
import { fail } from "../../errors";
import { isObject } from "./inputs";
import type { FlowEdge, FlowGraph, FlowNode } from "./types";
import { errorMessage } from "../../lib/error-message";

const REF = /\{\{\s*([^{}\s.]+)\.data\.instance\s*\}\}/g;

export const isStickyNote = (node: FlowNode): boolean => node.type === "stickyNote" || node.data.name === "stickyNote";

/** Parses and checks the shape the engine relies on. Throws ApiError 400 saying what is wrong. */
export function parseFlowData(flowData: string): FlowGraph {
  let parsed: unknown;
  try {
    parsed = JSON.parse(flowData);
  } catch (err) {
    throw fail("INVALID_FLOW", `flowData is not valid JSON: ${errorMessage(err)}`);
  }
  if (!isObject(parsed)) throw fail("INVALID_FLOW", "flowData must be a JSON object with a nodes array");
  if (!Array.isArray(parsed.nodes)) throw fail("INVALID_FLOW", "flowData has no nodes array");
  if (parsed.edges !== undefined && parsed.edges !== null && !Array.isArray(parsed.edges))
    throw fail("INVALID_FLOW", "flowData edges must be an array");

  const ids = new Set<string>();
  const nodes: FlowNode[] = parsed.nodes.map((raw: unknown, i: number) => {
    if (!isObject(raw)) throw fail("INVALID_FLOW", `flowData node #${i + 1} is not an object`);
    const data = raw.data;
    const id = typeof raw.id === "string" && raw.id ? raw.id : isObject(data) && typeof data.id === "string" ? data.id : "";
    if (!id) throw fail("INVALID_FLOW", `flowData node #${i + 1} has no id`);
    if (!isObject(data) || typeof data.name !== "string" || !data.name) throw fail("INVALID_FLOW", `flowData node ${id} has no data.name`);
    if (ids.has(id)) throw fail("INVALID_FLOW", `flowData has two nodes with id ${id}`);
    ids.add(id);
    if (data.inputs !== undefined && data.inputs !== null && !isObject(data.inputs))
      throw fail("INVALID_FLOW", `flowData node ${id} has inputs that are not an object`);
    return {
      ...(raw as object),
      id,
      data: {
        ...data,
        id,
        name: data.name,
        label: typeof data.label === "string" && data.label ? data.label : data.name,
        category: typeof data.category === "string" ? data.category : "",
      },
    } as FlowNode;
  });

  const edges: FlowEdge[] = ((parsed.edges as unknown[] | undefined) ?? []).map((raw, i) => {
    if (!isObject(raw) || typeof raw.source !== "string" || typeof raw.target !== "string") {
      throw fail("INVALID_FLOW", `flowData edge #${i + 1} needs a source and a target`);
    }
    for (const end of [raw.source, raw.target]) {
      if (!ids.has(end)) throw fail("INVALID_FLOW", `flowData edge #${i + 1} refers to a node that does not exist: ${end}`);
    }
    return raw as unknown as FlowEdge;
  });
  return { nodes, edges };
}

/** Ids of the nodes a node's inputs refer to with {{<id>.data.instance}} (strings, arrays, nested). */
export function referencedIds(node: FlowNode): string[] {
  const found = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") for (const m of v.matchAll(REF)) found.add(m[1]);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  visit(node.data.inputs ?? {});
  return [...found];
}
