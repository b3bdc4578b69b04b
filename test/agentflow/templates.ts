// Flowise 3.1.4's agentflow templates (fixtures/templates, unchanged) and what it takes to run them
// here: every chat model swapped for the OpenAI-compatible stand-in, document stores re-pointed.
import type { AgentflowGraph } from "../../src/engine/agentflow/types";
import agenticRag from "./fixtures/templates/agentic-rag.json";
import agentsHandoff from "./fixtures/templates/agents-handoff.json";
import deepResearchMultiTurn from "./fixtures/templates/deep-research-with-multi-turn-conversations.json";
import deepResearchSubagents from "./fixtures/templates/deep-research-with-subagents.json";
import humanInTheLoop from "./fixtures/templates/human-in-the-loop.json";
import interactingWithApi from "./fixtures/templates/interacting-with-api.json";
import iterations from "./fixtures/templates/iterations.json";
import simpleRag from "./fixtures/templates/simple-rag.json";
import sqlAgent from "./fixtures/templates/sql-agent.json";
import structuredOutput from "./fixtures/templates/structured-output.json";
import supervisorWorker from "./fixtures/templates/supervisor-worker.json";
import translator from "./fixtures/templates/translator.json";
import workplaceChat from "./fixtures/templates/workplace-chat.json";
import { modelConfig } from "./helpers";

export const TEMPLATES = {
  "Agentic RAG": agenticRag,
  "Agents Handoff": agentsHandoff,
  "Deep Research With Multi-turn Conversations": deepResearchMultiTurn,
  "Deep Research With Subagents": deepResearchSubagents,
  "Human In The Loop": humanInTheLoop,
  "Interacting With API": interactingWithApi,
  Iterations: iterations,
  "Simple RAG": simpleRag,
  "SQL Agent": sqlAgent,
  "Structured Output": structuredOutput,
  "Supervisor Worker": supervisorWorker,
  Translator: translator,
  "Workplace Chat": workplaceChat,
} as const;

export type TemplateName = keyof typeof TEMPLATES;

type Node = AgentflowGraph["nodes"][number];

/** A template's graph, as saved (a deep copy). */
export const template = (name: TemplateName): AgentflowGraph =>
  structuredClone({ nodes: TEMPLATES[name].nodes, edges: TEMPLATES[name].edges }) as unknown as AgentflowGraph;

const MODEL_PARAMS = ["llmModel", "agentModel", "conditionAgentModel", "humanInputModel"];

/** Every chat model of the template → chatOpenAI at the stand-in; document stores → `storeId`. */
export function runnable(name: TemplateName, over: { storeId?: string; patch?: (nodes: Map<string, Node>) => void } = {}): AgentflowGraph {
  const g = template(name);
  for (const n of g.nodes) {
    const inputs = (n.data.inputs ??= {});
    for (const param of MODEL_PARAMS) {
      if (typeof inputs[param] === "string" && inputs[param]) {
        inputs[param] = "chatOpenAI";
        inputs[`${param}Config`] = modelConfig();
      }
    }
    for (const key of ["agentKnowledgeDocumentStores", "retrieverKnowledgeDocumentStores"]) {
      const raw = inputs[key];
      const rows = typeof raw === "string" && raw.trim() ? JSON.parse(raw) : Array.isArray(raw) ? raw : [];
      if (rows.length && over.storeId) {
        inputs[key] = rows.map((r: { documentStore: string }) => ({
          ...r,
          documentStore: `${over.storeId}:${r.documentStore.split(":").slice(1).join(":")}`,
        }));
      }
    }
  }
  over.patch?.(new Map(g.nodes.map((n) => [n.id, n])));
  return g;
}
