import type { FlowGraph } from "../../engine";

interface OverrideSettings {
  status?: boolean;
  nodes?: Record<string, Array<{ name?: string; enabled?: boolean }>>;
  variables?: Array<{ name?: string; enabled?: boolean }>;
}

function settingsOf(apiConfig: string | null): OverrideSettings | null {
  if (!apiConfig) return null;
  try {
    const parsed = JSON.parse(apiConfig) as { overrideConfig?: OverrideSettings };
    return parsed?.overrideConfig ?? null;
  } catch {
    return null;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * overrideConfig applies only where the chatflow's apiConfig.overrideConfig enables it, per node
 * label and parameter (as Flowise does). A value may be plain (every enabled node) or an object
 * keyed by node id (that node only). Answers label → param → value.
 */
export function gateNodeOverrides(graph: FlowGraph, apiConfig: string | null, overrideConfig: Record<string, unknown>) {
  const settings = settingsOf(apiConfig);
  const out: Record<string, Record<string, unknown>> = {};
  if (!settings?.status || !settings.nodes) return out;
  for (const node of graph.nodes) {
    const label = node.data?.label;
    const enabled = (settings.nodes[label] ?? []).filter((p) => p.enabled && p.name).map((p) => p.name as string);
    for (const param of enabled) {
      if (!(param in overrideConfig)) continue;
      let value = overrideConfig[param];
      if (isPlainObject(value) && node.id in value) value = value[node.id];
      else if (isPlainObject(value) && Object.keys(value).some((k) => graph.nodes.some((n) => n.id === k))) continue;
      (out[label] ??= {})[param] = value;
    }
  }
  return out;
}

/** `overrideConfig.vars`, only for variables the chatflow enabled. */
export function gateVarOverrides(apiConfig: string | null, overrideConfig: Record<string, unknown>): Record<string, string> {
  const settings = settingsOf(apiConfig);
  const vars = overrideConfig.vars;
  if (!settings?.status || !isPlainObject(vars)) return {};
  const enabled = new Set((settings.variables ?? []).filter((v) => v.enabled && v.name).map((v) => v.name as string));
  return Object.fromEntries(
    Object.entries(vars)
      .filter(([k]) => enabled.has(k))
      .map(([k, v]) => [k, String(v)]),
  );
}
