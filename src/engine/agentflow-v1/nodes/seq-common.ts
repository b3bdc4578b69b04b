// What the sequential-agent nodes share: `$flow` paths (state, output, vars), prompt values,
// conversation history selection, state channels (Replace / Append) and their updates, the
// approval question, and Flowise's structured-output rows.
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { contentText } from "../../../providers/chat/messages";
import { refId } from "../../core/refs";
import { callChat } from "../../agentflow/model-call";
import type { NodeRuntime } from "../../agentflow/node-types";
import { runFunction } from "../../agentflow/nodes/custom-function";
import { invokeStructured } from "../../agentflow/structured";
import type { AgentflowMessage } from "../../agentflow/types";
import { isObject, listOf, nonBlank } from "../../agentflow/util";
import type { V1Node } from "../types";
import { type Translated, fillPrompt, promptValuesOf, thisTurn } from "./common";

/** The agent name a sequential node is known by (Loop's "Loop To", reasoning's agentName). */
export const seqName = (inputs: Record<string, unknown> | undefined, label: string): string =>
  nonBlank(inputs?.agentName) ??
  nonBlank(inputs?.llmNodeName) ??
  nonBlank(inputs?.toolNodeName) ??
  nonBlank(inputs?.conditionAgentName) ??
  nonBlank(inputs?.conditionName) ??
  nonBlank(inputs?.functionName) ??
  nonBlank(inputs?.seqExecuteFlowName) ??
  label;

/** A sequential node's translation when it needs nothing but its name. */
export const seqTranslate = (node: { data: { inputs?: Record<string, unknown>; label: string } }): Translated => ({
  label: seqName(node.data.inputs, node.data.label),
});

/** Flowise's customGet: `a.b[0]`, `a.b[-1]`, `messages.length`. */
function pathGet(root: unknown, path: string): unknown {
  let value = root;
  for (const part of path.split(".").filter(Boolean)) {
    const m = /^([^[\]]*)(?:\[(-?\d+)\])?$/.exec(part);
    if (!m) return undefined;
    if (m[1])
      value =
        m[1] === "length" && Array.isArray(value)
          ? value.length
          : isObject(value) || Array.isArray(value)
            ? (value as Record<string, unknown>)[m[1]]
            : undefined;
    if (m[2] !== undefined) {
      if (!Array.isArray(value)) return undefined;
      const i = Number(m[2]);
      value = value[i < 0 ? value.length + i : i];
    }
    if (value === undefined) return undefined;
  }
  return value;
}

/** What `$flow.…` reads: the state (with the conversation as `messages`), the node's output, the vars. */
export function flowOf(rt: NodeRuntime, input: string | undefined, output?: unknown): Record<string, unknown> {
  return {
    chatflowId: rt.request.chatflowId,
    sessionId: rt.request.sessionId,
    chatId: rt.request.chatId,
    input: input ?? "",
    state: { ...rt.state, messages: rt.runtimeChatHistory },
    output,
    vars: rt.request.vars,
  };
}

/** `$flow.x.y` / `$vars.x` values read; anything else is a literal. */
export function flowValue(value: unknown, flow: Record<string, unknown>): unknown {
  if (typeof value !== "string") return value;
  if (value.startsWith("$flow.")) return pathGet(flow, value.slice(6));
  if (value.startsWith("$vars.")) return pathGet(flow.vars, value.slice(6));
  return value;
}

/** The last message a node said in this run (a prompt value naming a node). */
const lastOf = (rt: NodeRuntime, nodeId: string) =>
  [...rt.runtimeChatHistory].reverse().find((m) => m.additional_kwargs?.nodeId === nodeId)?.content ?? "";

/** promptValues: a node reference → its last message, `$flow.state…` → the state, else the resolved text. */
export function promptValues(
  node: V1Node,
  inputs: Record<string, unknown>,
  rt: NodeRuntime,
  input: string | undefined,
): Record<string, unknown> {
  const raw = promptValuesOf(node.data.v1.original.data.inputs?.promptValues);
  const resolved = promptValuesOf(inputs.promptValues);
  const flow = flowOf(rt, input);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const ref = refId(value);
    if (ref) out[key] = lastOf(rt, ref);
    else {
      const v = flowValue(resolved[key] ?? value, flow);
      out[key] = typeof v === "string" || v === undefined ? (v ?? "") : JSON.stringify(v);
    }
  }
  return out;
}

/** conversationHistorySelection: all_messages (default), user_question, last_message, empty. */
export function historyFor(rt: NodeRuntime, input: string | undefined, selection: unknown): AgentflowMessage[] {
  const all = rt.runtimeChatHistory;
  if (selection === "user_question") return [{ role: "user", content: input ?? "" }];
  if (selection === "last_message") return all.slice(-1);
  if (selection === "empty") return [];
  return all;
}

/** [system prompt] + history + [human prompt], `{variables}` filled. */
export function promptMessages(
  inputs: Record<string, unknown>,
  history: AgentflowMessage[],
  values: Record<string, unknown>,
): AgentflowMessage[] {
  const system = nonBlank(inputs.systemMessagePrompt);
  const human = nonBlank(inputs.humanMessagePrompt);
  return [
    ...(system ? [{ role: "system" as const, content: fillPrompt(system, values) }] : []),
    ...history,
    ...(human ? [{ role: "user" as const, content: fillPrompt(human, values) }] : []),
  ];
}

/** A sequential node's prompt: its prompts over the history it selects, its promptValues filled in. */
export const seqPrompt = (node: V1Node, inputs: Record<string, unknown>, rt: NodeRuntime, input: string | undefined): AgentflowMessage[] =>
  promptMessages(inputs, historyFor(rt, input, inputs.conversationHistorySelection), promptValues(node, inputs, rt, input));

/** State channels of the seqState node: key → Replace | Append, and their defaults. */
export function channelsOf(stateNode: { data: { inputs?: Record<string, unknown> } } | undefined): {
  types: Record<string, string>;
  defaults: Record<string, unknown>;
} {
  const types: Record<string, string> = {};
  const defaults: Record<string, unknown> = {};
  const raw = stateNode?.data.inputs?.stateMemoryUI ?? stateNode?.data.inputs?.stateMemory;
  for (const row of listOf(typeof raw === "string" && raw.startsWith("stateMemory") ? [] : raw).filter(isObject)) {
    const key = nonBlank(row.key) ?? nonBlank(row.Key);
    if (!key) continue;
    types[key] = String(row.type ?? row.Operation ?? "Replace");
    defaults[key] = types[key] === "Append" ? [] : (row.defaultValue ?? row["Default Value"] ?? "");
  }
  return { types, defaults };
}

/** The state after a node's updates: Append channels concatenate, the others are replaced. */
export function applyState(
  state: Record<string, unknown>,
  updates: Record<string, unknown>,
  types: Record<string, string> = {},
): Record<string, unknown> {
  const next = { ...state };
  for (const [k, v] of Object.entries(updates)) {
    if (types[k] === "Append") next[k] = [...(Array.isArray(next[k]) ? (next[k] as unknown[]) : []), ...(Array.isArray(v) ? v : [v])];
    else next[k] = v;
  }
  return next;
}

/** The node's state updates: UI rows ({key, value: `$flow.output.x`…}), or code returning an object (sandboxed). */
export async function stateUpdates(
  inputs: Record<string, unknown>,
  rt: NodeRuntime,
  input: string | undefined,
  output: unknown,
  owner: string,
): Promise<Record<string, unknown>> {
  const flow = flowOf(rt, input, output);
  const code = nonBlank(inputs.updateStateMemoryCode);
  if (inputs.updateStateMemory === "updateStateMemoryCode" && code) {
    const text = await runFunction(code, input, {}, rt, { output });
    try {
      const parsed = JSON.parse(text);
      if (isObject(parsed)) return parsed;
    } catch {
      // not an object: refused below
    }
    throw new Error(`${owner}: its Update State code must return an object`);
  }
  const updates: Record<string, unknown> = {};
  for (const row of listOf(inputs.updateStateMemoryUI).filter(isObject)) {
    const key = nonBlank(row.key);
    if (key) updates[key] = flowValue(row.value ?? "", flow);
  }
  return updates;
}

/** Flowise's approval question: the approval prompt (its `{tools}` the pending calls) asked of the model. */
export async function approvalMessage(model: BaseChatModel, prompt: unknown, calls: unknown[], signal: AbortSignal): Promise<string> {
  const text = (nonBlank(prompt) ?? "You are about to execute tool: {tools}. Ask if user want to proceed").replaceAll(
    "{tools}",
    JSON.stringify(calls),
  );
  const reply = await callChat(model, [new HumanMessage(text)], signal);
  return contentText(reply.content) || "Do you want to proceed?";
}

/** Flowise V1 structured-output rows (String, String Array, Number, Boolean, Enum) as the runtime's rows. */
export function structuredRows(raw: unknown): Array<Record<string, unknown>> {
  const types: Record<string, string> = {
    String: "string",
    "String Array": "stringArray",
    Number: "number",
    Boolean: "boolean",
    Enum: "enum",
  };
  return listOf(raw)
    .filter(isObject)
    .map((r) => ({ ...r, type: types[String(r.type)] ?? "string" }));
}

/** The forced `extract` call of a node with structured output rows: the object, and as JSON its content. */
export async function structuredAnswer(
  model: BaseChatModel,
  messages: BaseMessage[],
  schema: z.ZodObject,
  owner: string,
  signal: AbortSignal,
): Promise<Record<string, unknown> & { content: string }> {
  const { value } = await invokeStructured(model, messages, schema, owner, signal, {
    name: "extract",
    description: "Extract structured data from the output",
  });
  return { ...value, content: JSON.stringify(value) };
}

/** A V1 node's reply joining the conversation (named, tagged with its node). */
export const said = (node: V1Node, content: string, extra: Record<string, unknown> = {}): AgentflowMessage => ({
  role: "assistant",
  content,
  name: node.data.label.toLowerCase().replace(/\s/g, "_"),
  additional_kwargs: { nodeId: node.id, ...extra },
});

export { thisTurn };
