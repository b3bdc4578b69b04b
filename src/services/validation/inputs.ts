// What one node lacks, judged by its catalogue descriptor (not by the inputParams the flow carries):
// a required input is one that is neither optional nor defaulted, and only while its show/hide
// rules show it; a required connection (a chatflow anchor) needs an edge or a reference; a
// credential unless optional; each array row's required fields; and a chosen component (a chat
// model, a tool: `<param>Config`) with its own required inputs and credential.
import { isObject } from "../../lib/inputs";
import { type Descriptor, type Inputs, type Param, isParamType, isShown } from "../catalogue/node-data";

export interface NodeUnderCheck {
  id: string;
  credential?: unknown;
  inputs: Inputs;
  /** Input names an edge connects into. */
  connected: Set<string>;
}

const empty = (v: unknown) => v === undefined || v === null || v === "" || v === "<p></p>" || (Array.isArray(v) && v.length === 0);

// A `hidden` input is never drawn by the page (the Custom Tool's name, schema, function: taken from
// the chosen tool): nobody could fill it, so it is never reported as missing.
const required = (p: Param) => !p.optional && !p.hidden && p.default === undefined;

const label = (p: Param) => p.label || p.name;

/** The credential a node or a component config names, in any of the places Flowise keeps it. */
const hasCredential = (...holders: unknown[]) => holders.some((h) => (typeof h === "string" ? !!h.trim() : false));

function componentIssues(what: string, name: string, config: unknown, componentOf: (n: string) => Descriptor | undefined): string[] {
  const component = componentOf(name);
  if (!component) return [`${what}: edgeflow has no ${name}`];
  const values = isObject(config) ? (config as Inputs) : {};
  const issues: string[] = [];
  for (const p of component.inputs ?? []) {
    if (isParamType(p.type) && required(p) && isShown(p, values) && empty(values[p.name]))
      issues.push(`${what} configuration: ${label(p)} is required`);
  }
  if (component.credential && !component.credential.optional && !hasCredential(values.FLOWISE_CREDENTIAL_ID, values.credential))
    issues.push(`${what} requires a credential`);
  return issues;
}

function rowIssues(p: Param, rows: unknown[], inputs: Inputs, componentOf: (n: string) => Descriptor | undefined): string[] {
  const issues: string[] = [];
  rows.forEach((row, i) => {
    const item = isObject(row) ? (row as Inputs) : {};
    const scope = { ...inputs, ...item };
    for (const sub of p.array ?? []) {
      if (!isShown(sub, scope, i)) continue;
      const what = `${label(p)} item #${i + 1}`;
      const value = item[sub.name];
      if (required(sub) && empty(value)) issues.push(`${what}: ${label(sub)} is required`);
      else if (sub.loadConfig && typeof value === "string" && value)
        issues.push(...componentIssues(`${what} (${value})`, value, item[`${sub.name}Config`], componentOf));
    }
  });
  return issues;
}

/** The node's problems, in the order of its descriptor's inputs. */
export function inputIssues(node: NodeUnderCheck, d: Descriptor, componentOf: (n: string) => Descriptor | undefined): string[] {
  const issues: string[] = [];
  const { inputs } = node;
  if (d.credential && !d.credential.optional && !hasCredential(node.credential, inputs.FLOWISE_CREDENTIAL_ID, inputs.credential))
    issues.push("Credential is required");
  for (const p of d.inputs ?? []) {
    if (!isShown(p, inputs)) continue;
    const value = inputs[p.name];
    if (!isParamType(p.type)) {
      if (!p.optional && empty(value) && !node.connected.has(p.name)) issues.push(`${label(p)} is required: connect a node to it`);
      continue;
    }
    if (required(p) && empty(value)) {
      issues.push(`${label(p)} is required`);
      continue;
    }
    if (p.type === "array" && Array.isArray(value)) issues.push(...rowIssues(p, value, inputs, componentOf));
    if (p.loadConfig && typeof value === "string" && value)
      issues.push(...componentIssues(label(p), value, inputs[`${p.name}Config`], componentOf));
  }
  return issues;
}
