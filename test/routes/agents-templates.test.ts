// Flowise's ReAct Agent, OpenAI Assistant, OpenAPI YAML Agent and Advanced Structured Output
// Parser templates through the HTTP API: saved with POST /chatflows without a warning, then
// answered by POST /prediction against the stand-ins (the engine tests cover the details).
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import advancedParser from "../engine/fixtures/advanced-structured-output-parser.json";
import openAIAssistant from "../engine/fixtures/openai-assistant.json";
import openApiAgent from "../engine/fixtures/openapi-yaml-agent.json";
import reactAgent from "../engine/fixtures/react-agent.json";
import { type Fixture, flowDataOf, pointAtStandin, standinUrl } from "../engine/helpers";
import { json } from "../helpers";
import { setVars } from "../security/helpers";

const credentialOf = async (credentialName: string, plainDataObj: Record<string, unknown>): Promise<string> =>
  (await json("POST", "/credentials", { body: { name: credentialName, credentialName, plainDataObj } })).id;

describe("agent and parser templates over HTTP", () => {
  it("all four save without a warning", async () => {
    for (const fixture of [reactAgent, openAIAssistant, openApiAgent, advancedParser]) {
      const saved = await json("POST", "/chatflows", { body: { name: "template", flowData: flowDataOf(fixture as unknown as Fixture) } });
      expect(saved).not.toHaveProperty("warning");
    }
  });

  it("Advanced Structured Output Parser answers the JSON a model following its instructions wrote", async () => {
    const cred = await credentialOf("openAIApi", { openAIApiKey: "sk-route" });
    const flowData = flowDataOf(advancedParser as unknown as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const { id } = await json("POST", "/chatflows", { body: { name: "parser", flowData } });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: "Top movies [schema]" } });
    expect(answer.json).toEqual([
      { title: "text with a line\nbreak", yearOfRelease: 1999, genres: ["Action"], shortDescription: "text with a line\nbreak" },
    ]);
  });

  it("ReAct Agent uses the calculator and answers", async () => {
    const cred = await credentialOf("openAIApi", { openAIApiKey: "sk-route" });
    const flowData = flowDataOf(reactAgent as unknown as Fixture, (n) => pointAtStandin(n.get("chatOpenAI_0")!, cred));
    const { id } = await json("POST", "/chatflows", { body: { name: "react", flowData } });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `[react calculator: 6*7] ${crypto.randomUUID()}` } });
    expect(answer.text).toBe("observed 42");
    expect(answer.usedTools).toEqual([{ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" }]);
    // The flow does not stream (the replies hold Thoughts and Actions): asked to, it answers JSON.
    const streamed = await json("POST", `/prediction/${id}`, {
      body: { question: `[react calculator: 5*5] ${crypto.randomUUID()}`, streaming: true },
    });
    expect(streamed.text).toBe("observed 25");
    expect(await json("GET", `/chatflows-streaming/${id}`)).toEqual({ isStreaming: false });
  });

  it("OpenAI Assistant runs the assistant saved with POST /assistants", async () => {
    const cred = await credentialOf("openAIApi", { openAIApiKey: "sk-route", basePath: `${standinUrl()}/v1` });
    const assistant = await json("POST", "/assistants", {
      body: { credential: cred, details: { model: "m-route", instructions: "Be Pat." } },
    });
    const flowData = flowDataOf(openAIAssistant as unknown as Fixture, (n) => {
      n.get("openAIAssistant_0")!.data.inputs = { selectedAssistant: assistant.id, tools: ["{{calculator_0.data.instance}}"] };
    });
    // Only the assistant and its calculator (serper and customTool are covered by the engine tests).
    const data = JSON.parse(flowData);
    data.nodes = data.nodes.filter((n: { id: string }) => n.id === "openAIAssistant_0" || n.id === "calculator_0");
    data.edges = data.edges.filter((e: { source: string }) => e.source === "calculator_0");
    const { id } = await json("POST", "/chatflows", { body: { name: "assistant", flowData: JSON.stringify(data) } });
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: `[call calculator {"input":"2*21"}] ${crypto.randomUUID()}` },
    });
    expect(answer.text).toBe("tools said: 42");
  });

  it("OpenAPI YAML Agent calls the API of its spec (OUTBOUND_ALLOW lists loopback here)", async () => {
    const restore = setVars({ OUTBOUND_ALLOW: "127.0.0.1", ANTHROPIC_BASE_URL: inject("anthropicUrl") });
    try {
      const cred = await credentialOf("anthropicApi", { anthropicApiKey: "sk-ant-route" });
      const spec = `openapi: 3.0.0\nservers: [{url: "${inject("servicesUrl")}/echo/api"}]\npaths:\n  /status:\n    get: {operationId: getStatus, summary: the status}\n`;
      const flowData = flowDataOf(openApiAgent as unknown as Fixture, (n) => {
        n.get("chatAnthropic_0")!.data.credential = cred;
        n.get("openAPIToolkit_0")!.data.inputs!.yamlFile = `data:application/x-yaml;base64,${btoa(spec)},filename:spec.yaml`;
      });
      const { id } = await json("POST", "/chatflows", { body: { name: "openapi", flowData } });
      const answer = await json("POST", `/prediction/${id}`, { body: { question: `[call getStatus {}] ${crypto.randomUUID()}` } });
      expect(answer.usedTools).toHaveLength(1);
      expect(JSON.parse(answer.usedTools[0].toolOutput)).toMatchObject({ method: "GET", path: "/echo/api/status" });
    } finally {
      restore();
    }
  });
});
