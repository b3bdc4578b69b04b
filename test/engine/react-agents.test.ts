// reactAgentChat / reactAgentLLM: Flowise's "ReAct Agent" template (googleCustomSearch, calculator,
// buffer memory, chatOpenAI) unchanged but for the model's endpoint and credentials, against the
// OpenAI-compatible stand-in's ReAct replies ([react NAME: INPUT], test/standin/react.mjs) and the
// services stand-in's Google Custom Search. What the model was sent, what the tools received.
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { iterationLimitMessage } from "../../src/engine/chatflow/nodes/agents";
import { flowDataWarning } from "../../src/services/chatflows";
import reactAgent from "./fixtures/react-agent.json";
import {
  type Fixture,
  closedUrl,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  requestsWith,
  runFlow,
  runtimeWith,
  storeTurns,
} from "./helpers";

const services = () => inject("servicesUrl");
const openAI = () => credential("openAIApi", { openAIApiKey: "sk-react-test" });
const google = () =>
  credential("googleCustomSearchApi", { googleCustomSearchApiKey: "g-key-react-123", googleCustomSearchApiId: "cx-react" });

async function templateFlow(patch?: (nodes: Map<string, import("../../src/engine").FlowNode>) => void): Promise<string> {
  const [model, search] = [await openAI(), await google()];
  return flowDataOf(reactAgent as unknown as Fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, model);
    n.get("googleCustomSearch_0")!.data.credential = search;
    patch?.(n);
  });
}

const ctxFor = (question: string, googleBase = `${services()}/google`, over = {}) =>
  makeCtx(question, { runtime: runtimeWith({ GOOGLE_CUSTOM_SEARCH_BASE_URL: googleBase }), ...over });

const promptOf = (req: { body: { messages: Array<{ role: string; content: string }> } }) => {
  expect(req.body.messages).toHaveLength(1);
  expect(req.body.messages[0].role).toBe("user");
  return req.body.messages[0].content;
};

describe("ReAct Agent template (reactAgentChat)", () => {
  it("saves without a warning", () => {
    expect(flowDataWarning(flowDataOf(reactAgent as unknown as Fixture))).toBeUndefined();
  });

  it("calculator: Action → Observation → Final Answer; the model's invented Observation is cut", async () => {
    const m = marker();
    const result = await runFlow(await templateFlow(), ctxFor(`What is 6 times 7? [react calculator: 6*7] ${m}`));
    expect(result).toEqual({
      text: "observed 42",
      usedTools: [{ tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" }],
      memoryType: "Buffer Memory",
    });
    const [first, second, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    const p1 = promptOf(first);
    expect(p1).toContain("\ngoogle-custom-search: a custom search engine.");
    expect(p1).toContain("\ncalculator: Useful for getting the result of a math expression.");
    expect(p1).toContain("Action: the tool to use, one of [google-custom-search, calculator]");
    expect(p1).toContain(`New input: What is 6 times 7? [react calculator: 6*7] ${m}`);
    expect(p1.endsWith("\nThought:")).toBe(true);
    const p2 = promptOf(second);
    expect(p2.endsWith("Action: calculator\nAction Input: 6*7\nObservation: 42\nThought:")).toBe(true);
    expect(p2).not.toContain("a result the model invented");
  });

  it("google-custom-search through the service stand-in, then the calculator: two steps in order", async () => {
    const m = marker();
    const result = await runFlow(await templateFlow(), ctxFor(`[react google-custom-search: weather ${m}] [react calculator: 2+3]`));
    expect(result.text).toBe("observed 5");
    expect(result.usedTools?.map((u) => u.tool)).toEqual(["google-custom-search", "calculator"]);
    expect(JSON.parse(result.usedTools![0].toolOutput)).toEqual([
      { title: `Google on weather ${m}`, link: "https://example.com/g", snippet: `google snippet for weather ${m}` },
    ]);
    const got = await (await fetch(`${services()}/requests?service=google&contains=${m}`)).json<Array<{ query: Record<string, string> }>>();
    expect(got).toHaveLength(1);
    expect(got[0].query).toMatchObject({ key: "g-key-react-123", cx: "cx-react", q: `weather ${m}` });
    const reqs = await requestsWith(m);
    expect(reqs).toHaveLength(3);
    expect(promptOf(reqs[2])).toContain(`Observation: [{"title":"Google on weather ${m}"`);
  });

  it("a search service that is down is an Observation the model reads; the run goes on", async () => {
    const m = marker();
    const result = await runFlow(await templateFlow(), ctxFor(`[react google-custom-search: news ${m}]`, `${closedUrl()}/google`));
    expect(result.text).toMatch(/^observed Error: Google Custom Search is unreachable/);
    expect(JSON.stringify(result)).not.toContain("g-key-react-123");
  });

  it("memory: the stored conversation is in the prompt", async () => {
    const m = marker();
    const chatflowid = crypto.randomUUID();
    await storeTurns(chatflowid, "s1", [
      { role: "userMessage", content: "My name is Ada" },
      { role: "apiMessage", content: "Hello Ada" },
    ]);
    await runFlow(await templateFlow(), ctxFor(`Who am I? ${m}`, undefined, { chatflowid, sessionId: "s1" }));
    const [req] = await requestsWith(m);
    expect(promptOf(req)).toContain(`Conversation so far:\nHuman: My name is Ada\nAssistant: Hello Ada\n\nNew input: Who am I? ${m}`);
  });

  it("maxIterations: after that many tool steps the run ends with the agents' stop answer", async () => {
    const m = marker();
    const flow = await templateFlow((n) => void (n.get("reactAgentChat_0")!.data.inputs!.maxIterations = "1"));
    const result = await runFlow(flow, ctxFor(`[react calculator: 1+1] [react calculator: 2+2] ${m}`));
    expect(result.text).toBe(iterationLimitMessage(1));
    expect(result.usedTools).toHaveLength(1);
    expect(await requestsWith(m)).toHaveLength(2);
  });

  it("an unknown tool is an Observation naming the tools; a reply without the format is the answer", async () => {
    const m = marker();
    const result = await runFlow(await templateFlow(), ctxFor(`[react weather: Paris] ${m}`));
    expect(result.text).toBe('observed Error: there is no tool named "weather". The tools are: google-custom-search, calculator.');
    const plain = await runFlow(await templateFlow(), ctxFor(`[react-noformat] ${marker()}`));
    expect(plain.text).toBe("Just a plain answer without the format.");
    expect(plain.usedTools).toBeUndefined();
  });

  it("a model that is down → 502 naming the provider", async () => {
    const flow = await templateFlow((n) => pointAtStandin(n.get("chatOpenAI_0")!, undefined, `${closedUrl()}/v1`));
    await expect(runFlow(flow, ctxFor(`hi ${marker()}`))).rejects.toMatchObject({ status: 502 });
  });
});

describe("reactAgentLLM", () => {
  it("same loop without memory: the prompt asks a Question", async () => {
    const flow = await templateFlow((n) => {
      const agent = n.get("reactAgentChat_0")!;
      agent.data.name = "reactAgentLLM";
      agent.data.inputs!.memory = "";
    });
    const m = marker();
    const result = await runFlow(flow, ctxFor(`[react calculator: 3*3] ${m}`));
    expect(result.text).toBe("observed 9");
    const [first] = await requestsWith(m);
    const p = promptOf(first);
    expect(p).toContain(`\nQuestion: [react calculator: 3*3] ${m}\nThought:`);
    expect(p).not.toContain("Conversation so far");
  });
});
