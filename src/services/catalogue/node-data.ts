// A node's canvas data made from its catalogue descriptor, as Flowise's canvas makes it when a node
// is dropped (the UI's initNode): inputs split into parameters and anchors, each with its handle id,
// defaults filled in, output anchors, and each parameter's `display` from its show/hide rules. The
// templates (services/templates) and the agentflow generator build their nodes with it, so what
// they answer opens on the canvas exactly as a node the user added.
import { isObject } from "../../lib/inputs";

export interface Param {
  name: string;
  label?: string;
  type: string;
  default?: unknown;
  optional?: boolean;
  show?: Record<string, unknown>;
  hide?: Record<string, unknown>;
  array?: Param[];
  loadConfig?: boolean;
  list?: boolean;
  id?: string;
  display?: boolean;
  [key: string]: unknown;
}

export interface Descriptor {
  name: string;
  label: string;
  version: number;
  type: string;
  category: string;
  description?: string;
  baseClasses: string[];
  credential?: Param;
  inputs?: Param[];
  outputs?: { name: string; label: string; baseClasses?: string[]; description?: string; [key: string]: unknown }[];
  hideOutput?: boolean;
  hideInput?: boolean;
  color?: string;
  [key: string]: unknown;
}

export type Inputs = Record<string, unknown>;

/** The canvas data of one node (Flowise's `node.data`). */
export interface NodeData {
  id: string;
  name: string;
  label: string;
  version: number;
  type: string;
  category: string;
  description?: string;
  baseClasses: string[];
  color?: string;
  inputs: Inputs;
  inputParams: Param[];
  inputAnchors: Param[];
  outputAnchors: Record<string, unknown>[];
  outputs: Inputs;
  credential?: string;
  selected?: boolean;
  [key: string]: unknown;
}

// The input types the canvas edits in place; any other type is a class a connection brings (an anchor).
const PARAM_TYPES = new Set([
  "asyncOptions",
  "asyncMultiOptions",
  "options",
  "multiOptions",
  "array",
  "datagrid",
  "string",
  "number",
  "boolean",
  "password",
  "json",
  "code",
  "date",
  "file",
  "folder",
  "tabs",
  "conditionFunction",
  "timePicker",
  "weekDaysPicker",
  "monthDaysPicker",
  "datePicker",
]);

/** Whether the canvas edits an input in place (else it is an anchor a connection fills). */
export const isParamType = (type: string) => PARAM_TYPES.has(type);

export const isAgentflowNode = (d: Pick<Descriptor, "category">) => d.category === "Agent Flows";

/** Each parameter's default, or "" (Flowise's initializeDefaultNodeData: a falsy default is ""). */
export function defaultsOf(params: readonly Param[]): Inputs {
  return Object.fromEntries(params.map((p) => [p.name, p.default || ""]));
}

/** lodash `get` for the paths show/hide rules use: `a`, `a.b`, `a[0].b`. */
function valueAt(inputs: Inputs, path: string): unknown {
  let value: unknown = inputs;
  for (const key of path.split(/[.[\]]+/).filter(Boolean)) {
    if (!isObject(value) && !Array.isArray(value)) return "";
    value = (value as Record<string, unknown>)[key];
  }
  return value === undefined ? "" : value;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A string rule matches equal text or as a regular expression (the canvas's rule); a rule that is no regex matches equality only. */
function textMatches(rule: string, value: unknown): boolean {
  if (rule === value) return true;
  try {
    return new RegExp(rule).test(String(value));
  } catch {
    return false;
  }
}

function ruleMatches(rule: unknown, ground: unknown): boolean {
  if (typeof ground === "string" && ground.startsWith("[") && ground.endsWith("]")) {
    try {
      ground = JSON.parse(ground);
    } catch {
      // not a list after all: compared as text
    }
  }
  if (Array.isArray(ground)) {
    if (Array.isArray(rule)) return rule.some((r) => ground.includes(r));
    if (typeof rule === "string") return ground.some((g) => textMatches(rule, g));
    if (isObject(rule)) return ground.some((g) => same(rule, g));
    return ground.includes(rule);
  }
  if (Array.isArray(rule)) return rule.includes(ground);
  if (typeof rule === "string") return textMatches(rule, ground);
  if (isObject(rule)) return same(rule, ground);
  return rule === ground;
}

/**
 * Whether a parameter shows, given the node's inputs (the canvas's showHideInputs): every `show`
 * rule must match, no `hide` rule may. `$index` in a rule's path is the array item's index.
 */
export function isShown(param: Pick<Param, "show" | "hide">, inputs: Inputs, index?: number): boolean {
  const at = (path: string) => valueAt(inputs, index === undefined ? path : path.replace("$index", String(index)));
  for (const [path, rule] of Object.entries(param.show ?? {})) if (!ruleMatches(rule, at(path))) return false;
  for (const [path, rule] of Object.entries(param.hide ?? {})) if (ruleMatches(rule, at(path))) return false;
  return true;
}

/** Sets each parameter's `display` for the node's current inputs. */
export function withDisplay(params: Param[], inputs: Inputs): Param[] {
  return params.map((p) => ({ ...p, display: isShown(p, inputs) }));
}

function outputAnchorsOf(d: Descriptor, id: string, agentflow: boolean): Record<string, unknown>[] {
  if (d.hideOutput) return [];
  const outputs = d.outputs ?? [];
  if (agentflow) {
    return outputs.length
      ? outputs.map((_, i) => ({ id: `${id}-output-${i}`, label: d.label, name: d.name }))
      : [{ id: `${id}-output-${d.name}`, label: d.label, name: d.name }];
  }
  if (!outputs.length) {
    const classes = d.baseClasses;
    return [
      {
        id: `${id}-output-${d.name}-${classes.join("|")}`,
        name: d.name,
        label: d.type,
        description: d.description ?? "",
        type: classes.join(" | "),
      },
    ];
  }
  const options = outputs.map((o) => {
    const classes = o.baseClasses ?? [];
    return {
      id: `${id}-output-${o.name}-${classes.join("|")}`,
      name: o.name,
      label: o.label,
      description: o.description ?? "",
      type: classes.join(" | "),
    };
  });
  return [
    { name: "output", label: "Output", type: "options", description: outputs[0].description ?? "", options, default: outputs[0].name },
  ];
}

/** A new node's data, as the canvas makes it from the descriptor (ids from `id`). */
export function initNodeData(descriptor: Descriptor, id: string): NodeData {
  const agentflow = isAgentflowNode(descriptor);
  const { inputs: params = [], outputs, credential, ...rest } = structuredClone(descriptor);
  const withId = (p: Param): Param => ({ ...p, id: `${id}-input-${p.name}-${p.type}` });
  const inputParams = params.filter((p) => PARAM_TYPES.has(p.type)).map(withId);
  const inputAnchors = params.filter((p) => !PARAM_TYPES.has(p.type)).map(withId);
  if (credential) inputParams.unshift(withId(credential));
  const inputs = defaultsOf(params);
  const outputAnchors = outputAnchorsOf({ ...descriptor }, id, agentflow);
  const data: NodeData = {
    ...rest,
    id,
    inputs,
    inputParams: withDisplay(inputParams, inputs),
    inputAnchors: withDisplay(inputAnchors, inputs),
    outputAnchors,
    outputs: outputs ? defaultsOf(outputAnchors as Param[]) : {},
    selected: false,
  };
  if (credential) data.credential = "";
  return data;
}

/**
 * The `<param>Config` object of each input that picks a component (loadConfig: a chat model, a
 * tool…): the component's defaults under what the node already holds, with the component's name
 * under the parameter's own (as the canvas keeps it). `component` finds a descriptor by name.
 */
export function fillComponentConfigs(data: NodeData, component: (name: string) => Descriptor | undefined): void {
  const fill = (params: readonly Param[], holder: Inputs) => {
    for (const p of params) {
      const chosen = holder[p.name];
      if (p.type === "array" && p.array && Array.isArray(chosen)) {
        for (const item of chosen) if (isObject(item)) fill(p.array, item as Inputs);
        continue;
      }
      const d = p.loadConfig && typeof chosen === "string" ? component(chosen) : undefined;
      if (!d) continue;
      const key = `${p.name}Config`;
      const held = isObject(holder[key]) ? (holder[key] as Inputs) : {};
      holder[key] = { ...defaultsOf(d.inputs ?? []), ...held, [p.name]: chosen };
    }
  };
  fill(data.inputParams, data.inputs);
}
