// $flow.state: the Update Flow State merge and the `{{ output }}` templates filled after a node ran
// (AGENTFLOW.md §2.3).
import { getPath, listOf } from "./util";

export type FlowState = Record<string, unknown>;

/** `[{key, value}]` rows (already resolved) merged over the state; later rows win. */
export function updateFlowState(state: FlowState, rows: unknown): FlowState {
  const next: FlowState = { ...state };
  for (const row of listOf<{ key?: unknown; value?: unknown }>(rows)) {
    if (row && typeof row.key === "string" && row.key) next[row.key] = row.value ?? "";
  }
  return next;
}

const OUTPUT_PATH = /\{\{\s*output\.([\w.]+)\s*\}\}/;

/**
 * Every state value mentioning `{{ output }}` / `{{ output.path }}` gets the node's final output:
 * exactly `{{ output }}` → the output; `{{ output.path }}` → that path of the output parsed as
 * JSON, keeping its type (the template stays when it does not parse or the path is missing);
 * otherwise `{{ output }}` substrings are replaced.
 */
export function fillOutputTemplates(state: FlowState, output: string): FlowState {
  const next: FlowState = { ...state };
  for (const [key, raw] of Object.entries(next)) {
    if (typeof raw !== "string") continue; // values already filled (objects, numbers) hold no template
    const value = raw;
    if (!value.includes("{{ output") && !value.includes("{{output")) continue;
    if (value === "{{ output }}" || value === "{{output}}") {
      next[key] = output;
      continue;
    }
    const match = OUTPUT_PATH.exec(value);
    if (match) {
      try {
        next[key] = getPath(JSON.parse(output), match[1]) ?? value;
      } catch {
        next[key] = value;
      }
      continue;
    }
    next[key] = value.split("{{ output }}").join(output);
  }
  return next;
}

/** The keys a node changed relative to the state it started with (for merging concurrent branches). */
export function changedKeys(before: FlowState, after: FlowState): FlowState {
  const out: FlowState = {};
  for (const [k, v] of Object.entries(after)) {
    if (!Object.hasOwn(before, k) || JSON.stringify(before[k]) !== JSON.stringify(v)) out[k] = v;
  }
  return out;
}
