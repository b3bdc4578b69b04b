// Agent chatflows for the agent and tool tests, built from Flowise's Tool Agent marketplace fixture
// (tool-agent.json). Its serpAPI node is a web search that needs a SerpAPI key and the network,
// which edgeflow does not fake: every flow here removes that node, its edge and its reference in
// the agent's `tools` input, and keeps everything else as exported (calculator, buffer memory,
// chatOpenAI, the agent). The chat model points at the stand-in; extra tools are added as nodes
// connected to the agent the way Flowise's editor connects them.
import type { FlowNode } from "../../src/engine";
import toolAgent from "./fixtures/tool-agent.json";
import { pointAtStandin } from "./helpers";

export interface ExtraNode {
  id: string;
  name: string;
  label?: string;
  category?: string;
  inputs?: Record<string, unknown>;
  /** Connected to the agent's tools input (default true for category Tools). */
  asTool?: boolean;
}

export interface AgentFlowOptions {
  /** An openAIApi credential id for the chat model. */
  credential?: string;
  /** Inputs merged into the agent node's (maxIterations, systemMessage, …). */
  agent?: Record<string, unknown>;
  /** Another agent node name (conversationalAgent, openAIFunctionAgent, …). */
  agentName?: string;
  /** Inputs merged into the chat model node's. */
  model?: Record<string, unknown>;
  /** Keep the fixture's calculator (default true). */
  calculator?: boolean;
  /** Keep the fixture's buffer memory (default true). */
  memory?: boolean;
  /** More nodes: tools (connected to the agent) and what they need. */
  nodes?: ExtraNode[];
  /** Model base URL (default: the stand-in). */
  base?: string;
}

const ref = (id: string) => `{{${id}.data.instance}}`;

/** The Tool Agent fixture without serpAPI, as a chatflow's flowData string. */
export function toolAgentFlow(options: AgentFlowOptions = {}): string {
  const copy = structuredClone({ nodes: toolAgent.nodes, edges: toolAgent.edges }) as unknown as {
    nodes: FlowNode[];
    edges: Array<Record<string, unknown>>;
  };
  const drop = new Set(["serpAPI_0"]);
  if (options.calculator === false) drop.add("calculator_1");
  if (options.memory === false) drop.add("bufferMemory_1");
  copy.nodes = copy.nodes.filter((n) => !drop.has(n.id));
  copy.edges = copy.edges.filter((e) => !drop.has(String(e.source)));

  const byId = new Map(copy.nodes.map((n) => [n.id, n]));
  const agent = byId.get("toolAgent_0")!;
  const inputs = agent.data.inputs!;
  inputs.tools = (inputs.tools as string[]).filter((r) => ![...drop].some((id) => r === ref(id)));
  if (options.memory === false) inputs.memory = "";
  if (options.agentName) agent.data.name = options.agentName;
  Object.assign(inputs, options.agent ?? {});

  const model = byId.get("chatOpenAI_0")!;
  pointAtStandin(model, options.credential, options.base);
  Object.assign(model.data.inputs!, options.model ?? {});

  for (const extra of options.nodes ?? []) {
    const category = extra.category ?? "Tools";
    copy.nodes.push({
      id: extra.id,
      type: "customNode",
      position: { x: 0, y: 0 },
      data: { id: extra.id, name: extra.name, label: extra.label ?? extra.name, category, inputs: extra.inputs ?? {} },
    });
    if (extra.asTool ?? category === "Tools") {
      (inputs.tools as string[]).push(ref(extra.id));
      copy.edges.push({
        id: `${extra.id}-toolAgent_0`,
        source: extra.id,
        target: "toolAgent_0",
        sourceHandle: `${extra.id}-output-${extra.name}-Tool`,
        targetHandle: "toolAgent_0-input-tools-Tool",
      });
    }
    for (const value of Object.values(extra.inputs ?? {})) {
      const m = typeof value === "string" ? /^\{\{(\S+)\.data\.instance\}\}$/.exec(value) : null;
      if (m) copy.edges.push({ id: `${m[1]}-${extra.id}`, source: m[1], target: extra.id });
    }
  }
  return JSON.stringify(copy);
}

/** A customTool node selecting a stored tool. */
export const customToolNode = (id: string, toolId: string, inputs: Record<string, unknown> = {}): ExtraNode => ({
  id,
  name: "customTool",
  label: "Custom Tool",
  inputs: { selectedTool: toolId, returnDirect: false, ...inputs },
});

/** The stand-in's instruction to call a tool: `[call NAME {json}]`. */
export const callOf = (name: string, args: Record<string, unknown>) => `[call ${name} ${JSON.stringify(args)}]`;
