// Flowise also reads `{{<nodeId>}}` as that node's instance (its resolver takes the reference's
// first path segment as the node id), and Flowise's UI saves custom assistants that way: the Tool
// Agent's model `{{chatOpenAI_0}}`, its tools `["{{retrieverTool_0}}", "{{<toolNodeId>}}"]`. The
// chatflow runtime rewrites such a whole-string reference to a node of the same flow into the
// `{{<id>.data.instance}}` form the planner and resolver read. (Agentflow V2 gives `{{<nodeId>}}`
// another meaning, a node's output text: this is for chatflows only.)
import { isObject } from "../core/inputs";
import type { FlowGraph, FlowNode } from "../core/types";

const BARE_REF = /^\s*\{\{\s*([^{}\s.]+)\s*\}\}\s*$/;

export function withInstanceRefs(graph: FlowGraph): FlowGraph {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const rewrite = (value: unknown): unknown => {
    if (typeof value === "string") {
      const id = BARE_REF.exec(value)?.[1];
      return id && ids.has(id) ? `{{${id}.data.instance}}` : value;
    }
    if (!Array.isArray(value)) return value;
    const items = value.map(rewrite);
    return items.some((item, i) => item !== value[i]) ? items : value;
  };
  let changed = false;
  const nodes = graph.nodes.map((node): FlowNode => {
    const inputs = node.data.inputs;
    if (!isObject(inputs)) return node;
    const next = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, rewrite(v)]));
    if (Object.keys(next).every((k) => next[k] === inputs[k])) return node;
    changed = true;
    return { ...node, data: { ...node.data, inputs: next } };
  });
  return changed ? { ...graph, nodes } : graph;
}
