// Variable resolution in agentflow inputs (AGENTFLOW.md §2): before a node runs, every string of its
// variable-accepting params (walked through arrays and objects) has TipTap HTML turned into text
// and each `{{ … }}` replaced in order. References that resolve to nothing stay literally.
import { plainText } from "./html";
import { historyText } from "./messages";
import type { AgentflowNodeDef } from "./node-types";
import type { AgentflowMessage, AgentflowNode, ExecutedData } from "./types";
import { getPath, isObject } from "./util";

export interface ResolveScope {
  /** The request question ('' when none). */
  question: string;
  /** Text of uploaded files: `{{ file_attachment }}`, and put before a string using `{{ question }}`. */
  fileText: string;
  form: Record<string, unknown>;
  /** `$webhook.*`: the webhook's body, headers and query (empty for other triggers). */
  webhook?: Record<string, unknown>;
  /** `$flow.*`: chatflowId/chatflowid, chatId, sessionId, apiMessageId, chatHistory, runtimeChatHistoryLength, state. */
  flow: Record<string, unknown>;
  vars: Record<string, string>;
  /** Past + runtime messages (`{{ chat_history }}`). */
  chatHistory: AgentflowMessage[];
  executedData: ExecutedData[];
  iteration?: { value: unknown };
  loopCount: number;
  now: () => number;
}

const REFERENCE = /{{(.*?)}}/g;
const PROTOTYPE_PATH = /(^|[.[])(__proto__|constructor|prototype)(\]|\.|$)/;

/** Objects and arrays as JSON, other values as they are. */
const formatted = (v: unknown): unknown => (Array.isArray(v) || isObject(v) ? JSON.stringify(v) : v);

const latest = (data: ExecutedData[], nodeId: string) => {
  for (let i = data.length - 1; i >= 0; i--) if (data[i].nodeId === nodeId) return data[i];
  return undefined;
};

/** One string resolved (may become a number/boolean when it is exactly a `{{ node.output.x }}` reference). */
export function resolveString(raw: string, scope: ResolveScope): unknown {
  const value = plainText(raw);
  const matches = value.match(REFERENCE);
  if (!matches) return value;
  let out: unknown = value;
  const replace = (match: string, by: unknown) => {
    out = String(out).replace(match, () => String(by));
  };
  for (const match of matches) {
    if (typeof out !== "string") break;
    const ref = match.replace(/[{}]/g, "").trim();
    if (ref === "question") {
      replace(match, scope.question);
      if (scope.fileText) out = `${scope.fileText}\n\n${out}`;
      continue;
    }
    if (ref === "file_attachment") {
      replace(match, scope.fileText);
      continue;
    }
    if (ref === "chat_history") {
      replace(match, historyText(scope.chatHistory));
      continue;
    }
    if (ref === "runtime_messages_length") {
      replace(match, scope.flow.runtimeChatHistoryLength ?? 0);
      continue;
    }
    if (ref === "loop_count") {
      replace(match, scope.loopCount);
      continue;
    }
    if (ref === "current_date_time") {
      replace(match, new Date(scope.now()).toISOString());
      continue;
    }
    const prefixed = (prefix: string, source: unknown) => {
      const v = getPath(source, ref.slice(prefix.length));
      if (v !== null && v !== undefined) replace(match, formatted(v));
    };
    if (ref.startsWith("$form.")) {
      prefixed("$form.", scope.form);
      continue;
    }
    if (ref.startsWith("$webhook.")) {
      // The sender wrote this object: no walking into prototypes (`__proto__`, `constructor`).
      if (!PROTOTYPE_PATH.test(ref)) prefixed("$webhook.", scope.webhook);
      continue;
    }
    if (ref.startsWith("$vars.")) {
      prefixed("$vars.", scope.vars);
      continue;
    }
    if (ref.startsWith("$flow.")) {
      prefixed("$flow.", scope.flow);
      continue;
    }
    if (ref === "$iteration" || ref.startsWith("$iteration.")) {
      const item = scope.iteration?.value;
      if (item === undefined || item === null || item === "") continue;
      if (ref === "$iteration" || typeof item === "string") replace(match, formatted(item));
      else {
        const v = getPath(item, ref.slice("$iteration.".length));
        if (v !== undefined) replace(match, formatted(v));
      }
      continue;
    }
    // `{{ nodeId.output.path }}`: that path of the node's latest output.
    const outputRef = /^(.*?)\.output\.(.+)$/.exec(ref);
    if (outputRef) {
      const entry = latest(scope.executedData, outputRef[1].replace(/\\/g, ""));
      const v = entry?.data?.output ? getPath(entry.data.output, outputRef[2].trim()) : undefined;
      if (v !== undefined) {
        if (out === match) out = formatted(v);
        else replace(match, formatted(v));
        continue;
      }
    }
    // `{{ nodeId }}`: the node's latest output content (or HTTP data).
    const entry = latest(scope.executedData, ref.replace(/\\/g, ""));
    if (entry?.data) {
      const output = entry.data.output ?? {};
      const actual = output.content ?? (isObject(output.http) ? output.http.data : undefined);
      if (actual !== undefined && actual !== null) replace(match, formatted(actual));
    }
  }
  return out;
}

function resolveValue(value: unknown, scope: ResolveScope): unknown {
  if (typeof value === "string") return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, scope)]));
  return value;
}

/** Params whose values are resolved: the node definition's, and any its inputParams mark acceptVariable. */
function variableParams(node: AgentflowNode, def: AgentflowNodeDef): Set<string> {
  const names = new Set(def.variableParams);
  for (const p of node.data.inputParams ?? []) if (p.acceptVariable === true) names.add(p.name);
  return names;
}

export function resolveInputs(
  node: AgentflowNode,
  def: AgentflowNodeDef,
  inputs: Record<string, unknown>,
  scope: ResolveScope,
): Record<string, unknown> {
  const params = variableParams(node, def);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(inputs))
    out[key] = params.has(key) ? resolveValue(structuredClone(value), scope) : structuredClone(value);
  return out;
}
