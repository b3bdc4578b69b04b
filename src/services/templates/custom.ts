// The user's own templates (Flowise's /marketplaces/custom): a saved flow exported as a template
// (its node data trimmed to what a template carries, secrets and files left out), or a tool's
// {iconSrc, schema, func}. Answered in the shape Flowise's marketplace page reads.
import { desc } from "drizzle-orm";
import { customTemplate } from "../../db/schema";
import { badRequest } from "../../errors";
import { isObject } from "../../lib/inputs";
import { getChatflow } from "../chatflows";
import { type Resource, deleteRecord, insertRecord } from "../crud";
import type { Deps } from "../deps";

const templates: Resource<typeof customTemplate> = { table: customTemplate, label: "Custom template", sqlName: "custom_template" };

type Row = typeof customTemplate.$inferSelect;

export interface CustomTemplateInput {
  name: string;
  description?: string | null;
  badge?: string | null;
  usecases?: string[];
  type?: string;
  chatflowId?: string;
  tool?: { iconSrc?: string | null; schema?: string | null; func?: string | null };
}

const FLOW_TYPES: Record<string, string> = {
  CHATFLOW: "Chatflow",
  AGENTFLOW: "AgentflowV2",
  MULTIAGENT: "Agentflow",
  ASSISTANT: "Chatflow",
};
// Inputs a template never carries: they hold secrets or the user's files.
const PRIVATE_INPUT_TYPES = new Set(["password", "file", "folder"]);
// The node data a template keeps (Flowise's export for templates); credentials are not among them.
const KEPT = [
  "id",
  "label",
  "version",
  "name",
  "type",
  "color",
  "hideOutput",
  "hideInput",
  "baseClasses",
  "tags",
  "category",
  "description",
  "inputParams",
  "inputAnchors",
  "outputAnchors",
  "outputs",
] as const;

type Node = { data?: Record<string, unknown>; [key: string]: unknown };

/** A flow's graph as a template: each node's data trimmed, private inputs dropped; and its framework. */
export function exportFlow(flowData: string): { flowData: string; framework: string } {
  let graph: { nodes?: Node[]; edges?: unknown[] };
  try {
    graph = JSON.parse(flowData);
  } catch {
    throw badRequest("The chatflow's flowData is not valid JSON");
  }
  let framework = "Langchain";
  const nodes = (Array.isArray(graph?.nodes) ? graph.nodes : []).map((node) => {
    const data = isObject(node.data) ? node.data : {};
    if (Array.isArray(data.tags) && data.tags.includes("LlamaIndex")) framework = "LlamaIndex";
    const params = Array.isArray(data.inputParams) ? (data.inputParams as { name?: string; type?: string }[]) : [];
    const hidden = new Set(params.filter((p) => PRIVATE_INPUT_TYPES.has(String(p.type))).map((p) => p.name));
    const inputs = Object.fromEntries(Object.entries(isObject(data.inputs) ? data.inputs : {}).filter(([k]) => !hidden.has(k)));
    const kept = Object.fromEntries(KEPT.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
    return { ...node, selected: false, data: { ...kept, inputs, selected: false } };
  });
  return { flowData: JSON.stringify({ nodes, edges: Array.isArray(graph?.edges) ? graph.edges : [] }), framework };
}

function categoriesOf(flowData: string): string[] {
  try {
    const nodes = (JSON.parse(flowData) as { nodes?: Node[] }).nodes ?? [];
    return [...new Set(nodes.map((n) => n.data?.category).filter((c): c is string => typeof c === "string" && !!c))];
  } catch {
    return [];
  }
}

function usecasesOf(text: string | null): string[] {
  try {
    const list = text ? JSON.parse(text) : [];
    return Array.isArray(list) ? list.filter((u): u is string => typeof u === "string") : [];
  } catch {
    return [];
  }
}

/** The row as Flowise's marketplace page reads it: a tool's parts spread out, a flow's categories. */
export function present(row: Row) {
  const base = { ...row, usecases: usecasesOf(row.usecases), badge: row.badge ?? "", framework: row.framework ?? "" };
  if (row.type !== "Tool") return { ...base, categories: categoriesOf(row.flowData) };
  let tool: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(row.flowData);
    if (isObject(parsed)) tool = parsed;
  } catch {
    // a tool template is written by saveCustomTemplate only; unreadable parts are answered empty
  }
  const part = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    ...base,
    flowData: undefined,
    iconSrc: part(tool.iconSrc),
    schema: part(tool.schema),
    func: part(tool.func),
    categories: [] as string[],
  };
}

export async function listCustomTemplates(deps: Deps<"db">) {
  const { db } = deps;
  const rows = await db.select().from(customTemplate).orderBy(desc(customTemplate.createdDate)).all();
  return rows.map(present);
}

export async function saveCustomTemplate(deps: Deps<"db">, input: CustomTemplateInput) {
  const { db } = deps;
  let flowData: string;
  let framework = "";
  let type = input.type;
  if (input.chatflowId) {
    const flow = await getChatflow(deps, input.chatflowId);
    ({ flowData, framework } = exportFlow(flow.flowData));
    type ??= FLOW_TYPES[flow.type] ?? "Chatflow";
  } else if (input.tool) {
    flowData = JSON.stringify({ iconSrc: input.tool.iconSrc ?? null, schema: input.tool.schema ?? null, func: input.tool.func ?? null });
    type = "Tool";
  } else {
    throw badRequest("A template is made from a chatflow (chatflowId) or a tool (tool)");
  }
  const row = await insertRecord(db, templates, {
    name: input.name,
    flowData,
    description: input.description ?? null,
    badge: input.badge ?? null,
    framework,
    usecases: JSON.stringify(input.usecases ?? []),
    type: type ?? null,
  });
  return present(row);
}

export const deleteCustomTemplate = ({ db }: Deps<"db">, id: string) => deleteRecord(db, templates, id);
