// `{{<id>.data.instance}}` references, shared by the graph planner, the resolver and node families.
// (No registry import here, so node families can use it without an import cycle.)
import type { FlowGraph, FlowNode } from "./types";

/** A whole-string reference: `{{chatOpenAI_0.data.instance}}`. */
const WHOLE_REF = /^\s*\{\{\s*([^{}\s.]+)\.data\.instance\s*\}\}\s*$/;

/** The id a value refers to when it is exactly one reference, else undefined. */
export function refId(value: unknown): string | undefined {
  return typeof value === "string" ? WHOLE_REF.exec(value)?.[1] : undefined;
}

/** The node an input of `node` refers to (first one for a list input). */
export function inputNode(graph: FlowGraph, node: FlowNode, input: string): FlowNode | undefined {
  const value = node.data.inputs?.[input];
  const id = Array.isArray(value) ? value.map(refId).find(Boolean) : refId(value);
  return id ? graph.nodes.find((n) => n.id === id) : undefined;
}

/** Whether an input holds a reference to another node (an empty string or [] does not). */
export function isConnected(node: FlowNode, input: string): boolean {
  const value = node.data.inputs?.[input];
  return Array.isArray(value) ? value.some((v) => refId(v)) : refId(value) !== undefined;
}
