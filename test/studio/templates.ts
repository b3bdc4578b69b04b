// The marketplace's templates as the studio reads them, and saving one as the canvas's "Use
// template" then Save does (POST /chatflows with the template's flowData and the flow's type).
import { json } from "../helpers";

export interface Template {
  id: string;
  templateName: string;
  flowData: string;
  description: string;
  type: "Chatflow" | "AgentflowV2";
  categories: string[];
  usecases: string[];
  framework: string[];
  badge?: string;
  speechToText?: string;
  textToSpeech?: string;
}

export interface Flow {
  nodes: Array<{ id: string; type: string; data: { name: string; inputs: Record<string, any>; [k: string]: any }; [k: string]: any }>;
  edges: Array<{ id: string; source: string; target: string; sourceHandle: string; targetHandle: string; [k: string]: any }>;
}

export const NAMES = {
  agent: "Agent with Tools",
  docStore: "Document Store QnA with Workers AI",
  hitl: "Human in the Loop: Review Before Replying",
  mcp: "Translator Served over MCP",
  digest: "Scheduled Morning Digest",
  voice: "Voice Assistant with Workers AI",
  webhook: "Webhook: Triage New GitHub Issues",
} as const;

export const templates = () => json<Template[]>("GET", "/marketplaces/templates");

export async function template(name: string): Promise<{ template: Template; flow: Flow }> {
  const found = (await templates()).find((t) => t.templateName === name);
  if (!found) throw new Error(`no template ${name}`);
  return { template: found, flow: JSON.parse(found.flowData) };
}

export const nodeOf = (flow: Flow, id: string) => {
  const node = flow.nodes.find((n) => n.id === id);
  if (!node) throw new Error(`no node ${id}`);
  return node;
};

/** Saves the flow as the canvas does; answers the saved record (its `warning` too). */
export async function saveTemplate(
  t: Template,
  flow: Flow,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; warning?: string; [k: string]: unknown }> {
  const type = t.type === "AgentflowV2" ? "AGENTFLOW" : "CHATFLOW";
  return json("POST", "/chatflows", { body: { name: t.templateName, type, flowData: JSON.stringify(flow), ...extra } });
}
