// Flowise 3.1.4's 13 agentflow templates through the HTTP API: every one saves without a warning,
// and the Human In The Loop template (its web-search tool removed, Gmail replaced by a stored
// custom tool) pauses, is rejected (loops back and pauses again), then proceeds and sends.
import { describe, expect, it } from "vitest";
import agenticRag from "../agentflow/fixtures/templates/agentic-rag.json";
import agentsHandoff from "../agentflow/fixtures/templates/agents-handoff.json";
import deepResearchMulti from "../agentflow/fixtures/templates/deep-research-with-multi-turn-conversations.json";
import deepResearchSub from "../agentflow/fixtures/templates/deep-research-with-subagents.json";
import humanInTheLoop from "../agentflow/fixtures/templates/human-in-the-loop.json";
import interactingWithApi from "../agentflow/fixtures/templates/interacting-with-api.json";
import iterations from "../agentflow/fixtures/templates/iterations.json";
import simpleRag from "../agentflow/fixtures/templates/simple-rag.json";
import sqlAgent from "../agentflow/fixtures/templates/sql-agent.json";
import structuredOutput from "../agentflow/fixtures/templates/structured-output.json";
import supervisorWorker from "../agentflow/fixtures/templates/supervisor-worker.json";
import translator from "../agentflow/fixtures/templates/translator.json";
import workplaceChat from "../agentflow/fixtures/templates/workplace-chat.json";
import { json } from "../helpers";
import { messagesOf, modelConfig, openAICredential } from "./flows";

type Template = { nodes: Array<{ id: string; data: { name: string; inputs?: Record<string, any> } }>; edges: unknown[] };

const TEMPLATES: Record<string, unknown> = {
  agenticRag,
  agentsHandoff,
  deepResearchMulti,
  deepResearchSub,
  humanInTheLoop,
  interactingWithApi,
  iterations,
  simpleRag,
  sqlAgent,
  structuredOutput,
  supervisorWorker,
  translator,
  workplaceChat,
};

const flowDataOf = (t: Template) => JSON.stringify({ nodes: t.nodes, edges: t.edges });

/** Every chat model of the template becomes the stand-in (AGENTFLOW.md §11: map `chat*` to the OpenAI-compatible one). */
function pointModelsAtStandin(t: Template, credential: string): void {
  for (const node of t.nodes) {
    const inputs = node.data.inputs ?? {};
    for (const key of Object.keys(inputs)) {
      if (/Model$/.test(key) && typeof inputs[key] === "string" && inputs[key]) {
        inputs[key] = "chatOpenAI";
        inputs[`${key}Config`] = modelConfig(credential);
      }
    }
  }
}

describe("Flowise's agentflow templates over the API", () => {
  it("all 13 save as AGENTFLOW without a warning, flowData kept as sent", async () => {
    expect(Object.keys(TEMPLATES)).toHaveLength(13);
    for (const [name, template] of Object.entries(TEMPLATES)) {
      const flowData = flowDataOf(template as Template);
      const saved = await json("POST", "/chatflows", { body: { name, type: "AGENTFLOW", flowData } });
      expect(saved.warning, name).toBeUndefined();
      expect(saved.flowData).toBe(flowData);
    }
  });

  it("Human In The Loop: pause on the draft, reject loops back and pauses again, proceed sends the email", async () => {
    const credential = await openAICredential();
    const tool = await json("POST", "/tools", {
      body: {
        name: "send_email",
        description: "Sends an email",
        schema: JSON.stringify([
          { property: "to", type: "string", description: "recipient", required: true },
          { property: "subject", type: "string", description: "subject", required: true },
          { property: "body", type: "string", description: "body", required: true },
        ]),
        func: "return `sent to ${String($to).trim()}: ${$subject}`;",
      },
    });
    const template = structuredClone(humanInTheLoop) as unknown as Template;
    pointModelsAtStandin(template, credential);
    for (const node of template.nodes) {
      if (node.id === "agentAgentflow_0") node.data.inputs!.agentTools = []; // googleCustomSearch needs a web API key
      if (node.id === "toolAgentflow_0") {
        node.data.inputs!.toolAgentflowSelectedTool = "customTool";
        node.data.inputs!.toolAgentflowSelectedToolConfig = { selectedTool: tool.id };
      }
    }
    const { id, warning } = await json("POST", "/chatflows", { body: { name: "hitl", type: "AGENTFLOW", flowData: flowDataOf(template) } });
    expect(warning).toBeUndefined();

    const form = { subject: "Pricing", body: "How much is the pro plan?", from: "bob@example.com" };
    const paused = await json("POST", `/prediction/${id}`, { body: { form } });
    expect(paused.form).toEqual(form);
    expect(paused.text).toContain("Are you sure you want to proceed?");
    expect(paused.action.data.nodeId).toBe("humanInputAgentflow_0");
    const chatId = paused.chatId;

    const again = await json("POST", `/prediction/${id}`, {
      body: { question: "Reject", chatId, humanInput: { type: "reject", feedback: "be warmer" } },
    });
    expect(again.executionId).toBe(paused.executionId);
    expect(again.action?.data.nodeId).toBe("humanInputAgentflow_0");
    expect(again.agentFlowExecutedData.map((e: any) => e.nodeId)).toContain("loopAgentflow_0");
    expect((await json("GET", `/executions/${paused.executionId}`)).state).toBe("STOPPED");

    const sent = await json("POST", `/prediction/${id}`, { body: { question: "Proceed", chatId, humanInput: { type: "proceed" } } });
    expect(sent.text).toMatch(/^sent to bob@example\.com: /);
    expect(sent).not.toHaveProperty("action");
    const execution = await json("GET", `/executions/${paused.executionId}`);
    expect(execution.state).toBe("FINISHED");
    expect(JSON.parse(execution.executionData).at(-1)).toMatchObject({ nodeId: "toolAgentflow_0", status: "FINISHED" });
    const messages = await messagesOf(id);
    expect(messages.map((m) => m.role)).toEqual(["userMessage", "apiMessage", "userMessage", "apiMessage", "userMessage", "apiMessage"]);
    expect(messages.filter((m) => m.action)).toEqual([]);
    expect(new Set(messages.map((m) => m.executionId))).toEqual(new Set([paused.executionId]));
  });
});
