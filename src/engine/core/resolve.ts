// Resolves a node's inputs before it is built: API overrides first, then {{<id>.data.instance}}
// references (whole strings, list items, inside JSON params), then the text variables
// {{question}}, {{chat_history}} (only in params that accept variables, as Flowise does),
// {{$vars.<name>}} and {{$flow.sessionId|chatId|chatflowId|input}}.
import { fail } from "../../errors";
import { isObject } from "./inputs";
import type { RunContext } from "./ports";
import { refId } from "./refs";
import { turnsToText } from "./turns";
import type { FlowGraph, FlowNode } from "./types";

export interface ResolveState {
  graph: FlowGraph;
  /** Built instances by node id. */
  built: Map<string, unknown>;
  /** Nodes deliberately not built (upsert-only): references to them resolve to nothing. */
  skipped: Set<string>;
}

const VARIABLE = /\{\{\s*([^{}]+?)\s*\}\}/g;
const SKIP = Symbol("skip");

/** Text for an instance placed inside a string (a predicted answer is already text). */
export function instanceText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Inputs with the caller's overrides for this node's label applied on top. */
function inputsWithOverrides(node: FlowNode, ctx: Pick<RunContext, "nodeOverrides">): Record<string, unknown> {
  const overrides = ctx.nodeOverrides?.[node.data.label] ?? ctx.nodeOverrides?.[node.id];
  return { ...(node.data.inputs ?? {}), ...(overrides ?? {}) };
}

export async function resolveInputs(node: FlowNode, state: ResolveState, ctx: RunContext): Promise<Record<string, unknown>> {
  const inputs = inputsWithOverrides(node, ctx);
  const params = node.data.inputParams;
  const acceptsVariables = (key: string) => !Array.isArray(params) || params.some((p) => p.name === key && p.acceptVariable === true);
  const isJsonParam = (key: string) =>
    key === "promptValues" || (Array.isArray(params) && params.some((p) => p.name === key && p.type === "json"));

  let history: Promise<string> | undefined;
  const chatHistory = () => (history ??= ctx.loadMemory().then(turnsToText));

  const instanceOf = (id: string, key: string): unknown => {
    if (state.skipped.has(id)) return SKIP;
    if (state.built.has(id)) return state.built.get(id);
    const exists = state.graph.nodes.some((n) => n.id === id);
    throw fail(
      "INVALID_FLOW",
      exists
        ? `Node ${node.id} input ${key} refers to node ${id}, which is not built before it`
        : `Node ${node.id} input ${key} refers to node ${id}, which does not exist`,
    );
  };

  const substitute = async (text: string, key: string): Promise<string> => {
    if (!text.includes("{{")) return text;
    const matches = [...text.matchAll(VARIABLE)];
    if (!matches.length) return text;
    const values = new Map<string, string>();
    for (const m of matches) {
      const name = m[1];
      if (values.has(m[0])) continue;
      let value: string | undefined;
      if (name === "question") value = acceptsVariables(key) ? ctx.question : undefined;
      else if (name === "chat_history") value = acceptsVariables(key) ? await chatHistory() : undefined;
      else if (name.startsWith("$vars.")) value = ctx.vars?.[name.slice(6)];
      else if (name.startsWith("$flow.")) value = flowValue(name.slice(6), ctx);
      else if (/^[^\s.]+\.data\.instance$/.test(name)) {
        const v = instanceOf(name.split(".")[0], key);
        value = v === SKIP ? "" : instanceText(v);
      }
      if (value !== undefined) values.set(m[0], value);
    }
    return text.replace(VARIABLE, (whole) => values.get(whole) ?? whole);
  };

  const resolve = async (value: unknown, key: string, top = false): Promise<unknown> => {
    if (typeof value === "string") {
      const id = refId(value);
      if (id) return instanceOf(id, key);
      if (top && isJsonParam(key) && value.trim()) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(value);
        } catch {
          throw fail("INVALID_FLOW", `Node ${node.data.label} (${node.id}): ${key} is not valid JSON`);
        }
        return resolve(parsed, key);
      }
      return substitute(value, key);
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) {
        const r = await resolve(item, key);
        if (r !== SKIP) out.push(r);
      }
      return out;
    }
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const r = await resolve(v, key);
        if (r !== SKIP) out[k] = r;
      }
      return out;
    }
    return value;
  };

  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(inputs)) {
    const r = await resolve(value, key, true);
    resolved[key] = r === SKIP ? undefined : r;
  }
  return resolved;
}

function flowValue(name: string, ctx: RunContext): string | undefined {
  switch (name) {
    case "sessionId":
      return ctx.sessionId;
    case "chatId":
      return ctx.chatId;
    case "chatflowId":
      return ctx.chatflowid;
    case "input":
      return ctx.question;
    default:
      return undefined;
  }
}
