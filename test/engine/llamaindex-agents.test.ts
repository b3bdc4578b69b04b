// The LlamaIndex agents (openAIToolAgentLlamaIndex, anthropicAgentLlamaIndex) through POST
// /prediction: a LlamaIndex chat model twin calls a queryEngineToolLlamaIndex (a query engine over
// the town store) natively, the engine answers, the model answers from it; usedTools as Flowise's.
// Queries name several bakery words: the store's local hash embeddings have 256 dimensions, and a
// query of one bakery word plus a random marker could land nearer another passage.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callOf } from "./agents-flows";
import { credential, marker, requestsWith, standinUrl } from "./helpers";
import { BAKERY, flow, ref } from "./retrieval-flows";
import { townStore } from "./llamaindex-flows";
import { call, expectError, json } from "../helpers";
import { framesOf, setVars } from "../security/helpers";

const anthropicUrl = () => inject("anthropicUrl");
type Received = { path: string; headers: Record<string, string>; body: Record<string, any> };
const anthropicRequests = async (m: string): Promise<Received[]> =>
  (await fetch(`${anthropicUrl()}/requests?contains=${encodeURIComponent(m)}`)).json();
const textQA = (context: string, query: string) =>
  `Context information is below.\n---------------------\n${context}\n---------------------\nGiven the context information and not prior knowledge, answer the query.\nQuery: ${query}\nAnswer:`;

type Spec = Parameters<typeof flow>[0][number];

/** The town store, a query engine as `bakery_tool`, buffer memory and the agent over `model`. */
async function agentFlow(agent: string, model: Spec, agentInputs: Record<string, unknown> = {}) {
  const flowData = flow([
    ...townStore("1"),
    model,
    ["qe_0", "queryEngine", "Engine", { vectorStoreRetriever: ref("vs_0") }],
    ["tool_0", "queryEngineToolLlamaIndex", "Tools", { baseQueryEngine: ref("qe_0"), toolName: "bakery_tool", toolDesc: "Bakery facts" }],
    ["mem_0", "bufferMemory", "Memory", {}],
    ["agent_0", agent, "Agents", { tools: [ref("tool_0")], memory: ref("mem_0"), model: ref("model_0"), ...agentInputs }],
  ] as never);
  const { id } = await json("POST", "/chatflows", { body: { name: `llamaindex ${agent}`, flowData } });
  await json("POST", `/vector/upsert/${id}`, { body: {} });
  return id as string;
}

const openAIModel = async (): Promise<Spec> => [
  "model_0",
  "chatOpenAI_LlamaIndex",
  "Chat Models",
  { modelName: "gpt-li", basepath: `${standinUrl()}/v1`, credential: await credential("openAIApi", { openAIApiKey: "sk-li-agent" }) },
];
const claudeModel = async (): Promise<Spec> => [
  "model_0",
  "chatAnthropic_LlamaIndex",
  "Chat Models",
  { modelName: "claude-3-haiku", credential: await credential("anthropicApi", { anthropicApiKey: "sk-ant-li-agent" }) },
];

let restore: () => void;
beforeAll(() => {
  // The query engine answers through LlamaIndex's default LLM (OPENAI_*); Claude at the Anthropic stand-in.
  restore = setVars({ OPENAI_BASE_URL: `${standinUrl()}/v1`, OPENAI_API_KEY: "sk-default-llm", ANTHROPIC_BASE_URL: anthropicUrl() });
});
afterAll(() => restore());

describe("openAIToolAgentLlamaIndex", () => {
  it("the model calls the query engine tool; its answer goes back; usedTools and the text as Flowise answers them", async () => {
    const id = await agentFlow("openAIToolAgentLlamaIndex", await openAIModel(), { systemMessage: "You know the town." });
    const m = marker();
    const query = `bakery sourdough croissants hours ${m}`;
    const question = `${callOf("bakery_tool", { query })} ${m}`;
    const res = await call("POST", `/prediction/${id}`, { body: { question } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; usedTools: unknown[] };
    const engineAnswer = `echo: ${textQA(BAKERY, query)}`;
    expect(body.text).toBe(`tools said: ${engineAnswer}`);
    expect(body.usedTools).toEqual([{ tool: "bakery_tool", toolInput: { query }, toolOutput: engineAnswer }]);

    const reqs = (await requestsWith(m)).filter((r) => r.path.endsWith("/chat/completions"));
    const agentTurns = reqs.filter((r) => r.headers.authorization === "Bearer sk-li-agent");
    expect(agentTurns).toHaveLength(2);
    const first = agentTurns[0].body as any;
    expect(first.model).toBe("gpt-li");
    expect(first.messages).toEqual([
      { role: "system", content: "You know the town." },
      { role: "user", content: question },
    ]);
    expect(first.tools).toEqual([
      {
        type: "function",
        function: expect.objectContaining({
          name: "bakery_tool",
          description: "Bakery facts",
          parameters: expect.objectContaining({ required: ["query"] }),
        }),
      },
    ]);
    // The tool's engine asked LlamaIndex's default LLM with the text QA prompt.
    expect(reqs.filter((r) => r.headers.authorization === "Bearer sk-default-llm").map((r) => (r.body as any).messages[0].content)).toEqual(
      [textQA(BAKERY, query)],
    );
  });

  it("no system message unless set; the session's turns (memory) come before the question; streams tokens and usedTools", async () => {
    const id = await agentFlow("openAIToolAgentLlamaIndex", await openAIModel());
    const m = marker();
    const first = await json("POST", `/prediction/${id}`, { body: { question: `hello ${m}` } });
    expect(first.text).toBe(`echo: hello ${m}`);
    const query = `bakery sourdough croissants ${m}-2`;
    const res = await call("POST", `/prediction/${id}`, {
      body: { question: `${callOf("bakery_tool", { query })} ${m}-2`, streaming: true, chatId: first.chatId, sessionId: first.sessionId },
    });
    const frames = await framesOf(res);
    const events = frames.map((f) => f.event);
    expect(events).toContain("token");
    expect(events).toContain("usedTools");
    const tokens = frames
      .filter((f) => f.event === "token")
      .map((f) => f.data)
      .join("");
    expect(tokens).toBe(`tools said: echo: ${textQA(BAKERY, query)}`);
    const [turn] = (await requestsWith(`${m}-2`)).filter((r) => r.headers.authorization === "Bearer sk-li-agent");
    expect((turn.body as any).messages.slice(0, 2)).toEqual([
      { role: "user", content: `hello ${m}` },
      { role: "assistant", content: `echo: hello ${m}` },
    ]);
  });

  it("a tools input that is not a tool is a 400; the model failing is a 502 without the key", async () => {
    const id = await agentFlow("openAIToolAgentLlamaIndex", await openAIModel(), { tools: ["not a tool"] });
    await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    const ok = await agentFlow("openAIToolAgentLlamaIndex", await openAIModel());
    const err = await expectError(await call("POST", `/prediction/${ok}`, { body: { question: `[fail] ${marker()}` } }), 502);
    expect(err.message).not.toContain("sk-li-agent");
  });
});

describe("anthropicAgentLlamaIndex", () => {
  it("Claude calls the tool (tool_use → tool_result) and answers; never streamed, as in Flowise", async () => {
    const id = await agentFlow("anthropicAgentLlamaIndex", await claudeModel(), { systemMessage: "Be brief." });
    const m = marker();
    const query = `bakery sourdough croissants opening ${m}`;
    const res = await call("POST", `/prediction/${id}`, {
      body: { question: `${callOf("bakery_tool", { query })} ${m}`, streaming: true },
    });
    expect(res.status).toBe(200);
    const engineAnswer = `echo: ${textQA(BAKERY, query)}`;
    // Not streamable (Flowise never streams this agent): a streaming request is answered as JSON.
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(((await res.json()) as { text: string }).text).toBe(`tools said: ${engineAnswer}`);
    const turns = await anthropicRequests(m);
    expect(turns).toHaveLength(2);
    expect(turns.every((t) => !t.body.stream)).toBe(true);
    expect(turns[0].headers["x-api-key"]).toBe("sk-ant-li-agent");
    expect(turns[0].body).toMatchObject({
      model: "claude-3-haiku",
      system: "Be brief.",
      tools: [expect.objectContaining({ name: "bakery_tool" })],
    });
    expect(turns[1].body.messages.at(-1).content).toEqual([expect.objectContaining({ type: "tool_result", content: engineAnswer })]);

    const plain = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("bakery_tool", { query })} ${m}-b` } });
    expect(plain.text).toBe(`tools said: ${engineAnswer}`);
    expect(plain.usedTools).toEqual([{ tool: "bakery_tool", toolInput: { query }, toolOutput: engineAnswer }]);
  });
});
