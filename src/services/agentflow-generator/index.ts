// POST /agentflowv2-generator/generate: an agentflow drafted from a description by the chat model
// the user chose (Flowise's selectedChatModel: the node data of a chat model, its credential
// included), answered as the canvas loads it, {nodes, edges}. The model is built from the providers'
// registry through the request's ports and asked for a plan as structured output (./plan.ts); the
// plan is checked against the catalogue and the agentflow runtime's own rules before it is answered.
// A model that fails is a 502/504; an answer that is no plan a 502; a plan edgeflow cannot run a 422.
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { type AgentflowGraph, type Runtime, validateAgentflow } from "../../engine";
import { invokeStructured } from "../../engine/agentflow/structured";
import { ApiError, badRequest } from "../../errors";
import { isObject } from "../../lib/inputs";
import { buildChatModel } from "../../providers/chat/registry";
import { builtOptions, nodeList } from "../catalogue/files";
import type { Descriptor, Inputs } from "../catalogue/node-data";
import type { FlowEdge, FlowNode } from "../templates/expand";
import { type Catalogue, type ChosenModel, Plan, planToFlow } from "./plan";
import { type Offer, systemPrompt } from "./prompt";

export interface GenerateRequest {
  question: string;
  selectedChatModel: { name: string; inputs?: Inputs; credential?: string | null; [key: string]: unknown };
}

export interface Generated {
  description?: string;
  nodes: FlowNode[];
  edges: FlowEdge[];
}

// Flowise leaves these out of what it offers the model: they need the flow's own setup to mean anything.
const NOT_OFFERED = new Set(["stickyNoteAgentflow"]);

async function catalogue(): Promise<Catalogue & { offers: Offer[]; toolOffers: Offer[]; models: Set<string> }> {
  const file = await nodeList("agentflowv2");
  const all = (await new Response(file.body).json()) as Descriptor[];
  const byName = new Map(all.map((d) => [d.name, d]));
  const nodes = new Map(all.filter((d) => d.category === "Agent Flows" && !NOT_OFFERED.has(d.name)).map((d) => [d.name, d]));
  const tools = (await builtOptions("agentAgentflow", "listTools")) ?? [];
  const models = (await builtOptions("llmAgentflow", "listModels")) ?? [];
  const offer = (d: Descriptor | undefined, name: string, label: string): Offer => ({ name, label, description: d?.description });
  return {
    nodes,
    tools: new Set(tools.map((t) => t.name)),
    models: new Set(models.map((m) => m.name)),
    component: (name) => byName.get(name),
    offers: [...nodes.values()].map((d) => offer(d, d.name, d.label)),
    toolOffers: tools.map((t) => offer(byName.get(t.name), t.name, t.label)),
  };
}

/** The chosen model's inputs with its credential where the nodes keep it (FLOWISE_CREDENTIAL_ID). */
function chosenModel(selected: GenerateRequest["selectedChatModel"]): ChosenModel {
  const inputs: Inputs = isObject(selected.inputs) ? { ...selected.inputs } : {};
  const credential = typeof selected.credential === "string" && selected.credential ? selected.credential : inputs.FLOWISE_CREDENTIAL_ID;
  if (typeof credential === "string" && credential) inputs.FLOWISE_CREDENTIAL_ID = credential;
  return { name: selected.name, inputs };
}

export async function generateAgentflow(runtime: Runtime, request: GenerateRequest, signal: AbortSignal): Promise<Generated> {
  const cat = await catalogue();
  const chosen = chosenModel(request.selectedChatModel);
  if (!cat.models.has(chosen.name))
    throw badRequest(`selectedChatModel: ${chosen.name} is not a chat model edgeflow has (${[...cat.models].join(", ")})`);
  const credential = chosen.inputs.FLOWISE_CREDENTIAL_ID;
  const model = await buildChatModel(
    chosen.name,
    { ...chosen.inputs, ...(typeof credential === "string" ? { credential } : {}) },
    { env: runtime.providers, getCredential: runtime.credentials, signal },
  );
  const messages = [new SystemMessage(systemPrompt(cat.offers, cat.toolOffers)), new HumanMessage(request.question)];
  const { value } = await invokeStructured(model, messages, Plan, "Agentflow generator", signal, {
    name: "agentflow_plan",
    description: "The agentflow's nodes and the edges between them",
  });
  const plan = Plan.parse(value);
  const flow = planToFlow(plan, cat, chosen);
  const { errors } = validateAgentflow(flow as unknown as AgentflowGraph);
  if (errors.length) throw new ApiError(422, `The generated flow cannot be used: ${errors.join("; ")}`);
  return { ...(plan.description ? { description: plan.description } : {}), ...flow };
}
