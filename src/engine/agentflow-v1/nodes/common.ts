// What the V1 nodes share: the team's message channel (the V2 run's chat history: every V1 node
// appends its messages, as LangGraph's `messages` channel does), its LangChain form, prompt
// variables, and the opening messages of a run (agentMemory: the session's previous execution).
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { FlowEdge, FlowGraph, FlowNode } from "../../core/types";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { UsedTool } from "../../core/types";
import type { AgentTool } from "../../agentflow/agent-loop";
import type { AgentflowNodeDef, NodeRuntime } from "../../agentflow/node-types";
import type { AgentflowMessage } from "../../agentflow/types";
import { isObject } from "../../agentflow/util";
import type { AgentReasoning, V1Info } from "../types";

export interface TranslateScope {
  graph: FlowGraph;
  byId: Map<string, FlowNode>;
  /** The flow nodes (V1 nodes this runtime runs). */
  flow: FlowNode[];
  errors: string[];
  childrenOf(id: string): string[];
  parentsOf(id: string): string[];
  edgesFrom(id: string): FlowEdge[];
  ofName(name: string): FlowNode[];
  stateNode?: FlowNode;
}

export interface Translated {
  label?: string;
  /** The translated node's inputs (what the V2 executor reads: branch counts, loop targets). */
  inputs?: Record<string, unknown>;
  info?: Partial<V1Info>;
  /** Branch handles of the node's outgoing edges (decisions). */
  handles?: Map<FlowEdge, string>;
}

export interface V1NodeDef extends AgentflowNodeDef {
  /** Which kind of V1 flow the node belongs to. */
  mode: "team" | "sequential";
  translate?(node: FlowNode, scope: TranslateScope): Translated;
}

/** Flowise's agent name: `Senior Engineer` → `senior_engineer`. */
export const snake = (label: string): string => label.toLowerCase().replace(/\s/g, "_").trim();

/** The team's conversation as LangChain messages (names kept: a model tells the speakers apart). */
export function toMessages(messages: AgentflowMessage[]): BaseMessage[] {
  return messages.map((m) => {
    if (m.role === "system" || m.role === "developer") return new SystemMessage(m.content);
    if (m.role === "tool") return new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id ?? "", name: m.name });
    if (m.role === "assistant") {
      const tool_calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args, type: "tool_call" as const }));
      return new AIMessage({ content: m.content, tool_calls, ...(m.name ? { name: m.name } : {}) });
    }
    return new HumanMessage({ content: m.content, ...(m.name ? { name: m.name } : {}) });
  });
}

/** `{name}` placeholders of a V1 prompt filled from `values` (unknown ones stay). */
export function fillPrompt(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([\w$.-]+)\}/g, (whole, key: string) => {
    if (!(key in values)) return whole;
    const v = values[key];
    return typeof v === "string" ? v : JSON.stringify(v);
  });
}

/** `promptValues` (a JSON object, or one already parsed). */
export function promptValuesOf(raw: unknown): Record<string, unknown> {
  if (isObject(raw)) return raw;
  if (typeof raw !== "string" || !raw.trim()) return {};
  try {
    const parsed = JSON.parse(raw);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The messages a run opens with: with agent memory, the conversation of the session's previous
 * execution (every node's messages, in order: Flowise's checkpointed `messages` channel), else the
 * request's `history`; then the question.
 */
export function openingMessages(rt: NodeRuntime, input: string | undefined, memory: boolean): AgentflowMessage[] {
  const earlier: AgentflowMessage[] = memory
    ? (rt.request.previousExecution ?? [])
        .filter((e) => e.status === "FINISHED")
        .flatMap((e) => (Array.isArray(e.data?.chatHistory) ? e.data.chatHistory : []))
        .map((m) => ({ ...m, additional_kwargs: { ...m.additional_kwargs, earlier: true } }))
    : (rt.request.history ?? []).map((t) => ({
        role: t.role === "apiMessage" ? ("assistant" as const) : ("user" as const),
        content: t.content,
      }));
  return [...earlier, { role: "user", content: input ?? "" }];
}

/** The last message a node of this run said (its reasoning's last message), for a final answer. */
export const lastSaid = (messages: AgentflowMessage[], type?: string): AgentflowMessage | undefined =>
  [...messages]
    .reverse()
    .find((m) => m.role !== "system" && !m.additional_kwargs?.earlier && (type === undefined || m.additional_kwargs?.type === type));

/** Messages of this request (not restored from an earlier turn by agent memory). */
export const thisTurn = (messages: AgentflowMessage[]): AgentflowMessage[] => messages.filter((m) => !m.additional_kwargs?.earlier);

/** A decision's branch count (its routes, then the one leading nowhere), set by its translation. */
export const routeBranches = (inputs: Record<string, unknown>): number => Number(inputs.v1Branches) || 1;

/** A V1 agent's tools for the tool loop: each its own component, all asking approval first or none. */
export const agentTools = (tools: StructuredToolInterface[], requiresHumanInput: boolean): AgentTool[] =>
  tools.map((tool) => ({ tool, requiresHumanInput, component: tool.name }));

/** usedTools and sourceDocuments, each only when there are some (how an answer and its message carry them). */
export const carried = (usedTools: UsedTool[], sourceDocuments: unknown[]): { usedTools?: UsedTool[]; sourceDocuments?: unknown[] } => ({
  ...(usedTools.length ? { usedTools } : {}),
  ...(sourceDocuments.length ? { sourceDocuments } : {}),
});

/** One agentReasoning entry as a node's output carries it. */
export const reasoning = (entry: AgentReasoning): { agentReasoning: AgentReasoning[] } => ({ agentReasoning: [entry] });
