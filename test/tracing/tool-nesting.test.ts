// A tool that runs LangChain models, chains or retrievers inside reports them under its own TOOL span
// (as Phoenix receives the trace, OpenInference over OTLP protobuf): a Tool Agent's chainTool (its chain's
// LLM), webBrowser (its summary model call) and queryEngineToolLlamaIndex (its RETRIEVER and LLM). A flow
// called as a tool (ChatflowTool) is a run of its own, as Flowise's HTTP call makes it: the caller's trace
// holds the tool call alone, the callee's calls go to the callee's own trace.
import { afterEach, describe, expect, inject, it } from "vitest";
import { callOf } from "../engine/agents-flows";
import { standinUrl } from "../engine/helpers";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { townStore } from "../engine/llamaindex-flows";
import { BAKERY, flow, ref, standinModel } from "../engine/retrieval-flows";
import { afEdge, afNode, saveAgentflowOf, start } from "../agentflow-api/flows";
import { json } from "../helpers";
import { setVars } from "../security/helpers";
import { attrs, credential, expectAccepted, marker, receivedWith, tracingUrl, PHOENIX } from "./helpers";

type Decoded = { name: string; traceId: string; spanId: string; parentSpanId?: string; a: Record<string, any> };

const phoenixAnalytic = async (projectName: string) => {
  const id = await credential("phoenixApi", { phoenixApiKey: "phx-nesting-key", phoenixEndpoint: `${tracingUrl()}/phoenix` });
  return JSON.stringify({ phoenix: { credentialId: id, status: true, projectName } });
};

/** The traces Phoenix received for the run marked `m`, by project, each as its spans with attributes as a plain object. */
async function tracesOf(m: string, count = 1): Promise<Map<string, Decoded[]>> {
  const got = (await receivedWith(m, count)).filter((r) => r.path === PHOENIX);
  expect(got).toHaveLength(count);
  for (const r of got) expectAccepted(r);
  const traces = new Map<string, Decoded[]>();
  for (const r of got) {
    const [resourceSpans] = r.body.resourceSpans;
    const project = String(attrs(resourceSpans.resource)["openinference.project.name"]);
    traces.set(
      project,
      (resourceSpans.scopeSpans[0].spans as any[]).map((s) => ({ ...s, a: attrs(s) })),
    );
  }
  return traces;
}

const ofKind = (spans: Decoded[], kind: string) => spans.filter((s) => s.a["openinference.span.kind"] === kind);

/** The one TOOL span, under the one AGENT span; the agent's own two model turns under the agent. */
function toolUnderAgent(spans: Decoded[], toolName: string): Decoded {
  const [agent, ...agents] = ofKind(spans, "AGENT");
  expect(agents).toEqual([]);
  const [tool, ...tools] = ofKind(spans, "TOOL");
  expect(tools).toEqual([]);
  expect(tool.a["tool.name"]).toBe(toolName);
  expect(tool.parentSpanId).toBe(agent.spanId);
  expect(ofKind(spans, "LLM").filter((s) => s.parentSpanId === agent.spanId)).toHaveLength(2);
  return tool;
}

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe("a tool's inner calls nest under its TOOL span", () => {
  it("chainTool: the llmChain's LLM span is a child of the TOOL span, not of the agent or the trace", async () => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-nesting" });
    const flowData = flow([
      standinModel("model_0", openai),
      standinModel("model_1", openai),
      ["prompt_0", "promptTemplate", "Prompts", { template: "Tell me about {topic}", promptValues: "" }],
      ["chain_0", "llmChain", "Chains", { model: ref("model_1"), prompt: ref("prompt_0") }],
      ["tool_0", "chainTool", "Tools", { name: "ask chain", description: "Knows about topics", baseChain: ref("chain_0") }],
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ] as never);
    const { id } = await json("POST", "/chatflows", {
      body: { name: "chain tool spans", flowData, analytic: await phoenixAnalytic("chain") },
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("ask_chain", { input: `dogs ${m}` })}` } });
    expect(answer.text).toBe(`tools said: echo: Tell me about dogs ${m}`);

    const spans = (await tracesOf(m)).get("chain")!;
    const tool = toolUnderAgent(spans, "ask_chain");
    expect(tool.a["output.value"]).toBe(`echo: Tell me about dogs ${m}`);
    const inner = ofKind(spans, "LLM").filter((s) => s.parentSpanId === tool.spanId);
    expect(inner).toHaveLength(1);
    expect(inner[0].a["llm.input_messages.0.message.content"]).toBe(`Tell me about dogs ${m}`);
    expect(inner[0].a["llm.output_messages.0.message.content"]).toBe(`echo: Tell me about dogs ${m}`);
    expect(ofKind(spans, "LLM")).toHaveLength(3);
  });

  it("webBrowser: its model's summary call is a child of the TOOL span", async () => {
    const services = inject("servicesUrl");
    restore = setVars({ OUTBOUND_ALLOW: "127.0.0.1" });
    const openai = await credential("openAIApi", { openAIApiKey: "sk-nesting" });
    const flowData = flow([
      standinModel("model_0", openai),
      ["emb_0", "openAIEmbeddings", "Embeddings", { credential: openai, basepath: `${standinUrl()}/v1` }],
      ["browser_0", "webBrowser", "Tools", { model: ref("model_0"), embeddings: ref("emb_0") }],
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("browser_0")] }],
    ] as never);
    const { id } = await json("POST", "/chatflows", {
      body: { name: "browser spans", flowData, analytic: await phoenixAnalytic("browser") },
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, {
      body: { question: `Sum ${m} ${callOf("web-browser", { input: `${services}/web/${m},` })}` },
    });
    expect(answer.text).toMatch(new RegExp(`^tools said: echo: Text:menu Hello from /web/${m}[\\s\\S]*I need a summary`));

    const spans = (await tracesOf(m)).get("browser")!;
    const tool = toolUnderAgent(spans, "web-browser");
    const inner = ofKind(spans, "LLM").filter((s) => s.parentSpanId === tool.spanId);
    expect(inner).toHaveLength(1);
    expect(inner[0].a["llm.input_messages.0.message.content"]).toMatch(/^Text:menu Hello from [\s\S]*I need a summary from the above text/);
    expect(ofKind(spans, "LLM")).toHaveLength(3);
  });

  it("queryEngineToolLlamaIndex: the engine's RETRIEVER and LLM spans are children of the TOOL span", async () => {
    restore = setVars({ OPENAI_BASE_URL: `${standinUrl()}/v1`, OPENAI_API_KEY: "sk-default-llm" });
    const openai = await credential("openAIApi", { openAIApiKey: "sk-nesting" });
    const flowData = flow([
      ...townStore("1"),
      standinModel("model_0", openai),
      ["qe_0", "queryEngine", "Engine", { vectorStoreRetriever: ref("vs_0") }],
      ["tool_0", "queryEngineToolLlamaIndex", "Tools", { baseQueryEngine: ref("qe_0"), toolName: "bakery_tool", toolDesc: "Bakery facts" }],
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ] as never);
    const { id } = await json("POST", "/chatflows", {
      body: { name: "engine spans", flowData, analytic: await phoenixAnalytic("engine") },
    });
    await json("POST", `/vector/upsert/${id}`, { body: {} });
    const m = marker();
    const query = "Sunrise Bakery opening time in the morning croissants sourdough";
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("bakery_tool", { query })} ${m}` } });
    expect(answer.text).toMatch(/^tools said: echo: /);

    const spans = (await tracesOf(m)).get("engine")!;
    const tool = toolUnderAgent(spans, "bakery_tool");
    const [retriever, ...retrievers] = ofKind(spans, "RETRIEVER");
    expect(retrievers).toEqual([]);
    expect(retriever.parentSpanId).toBe(tool.spanId);
    expect(retriever.a).toMatchObject({ "input.value": query, "retrieval.documents.0.document.content": BAKERY });
    const inner = ofKind(spans, "LLM").filter((s) => s.parentSpanId === tool.spanId);
    expect(inner).toHaveLength(1);
    expect(inner[0].a["llm.input_messages.0.message.content"]).toContain(BAKERY);
  });
});

describe("a flow called as a tool is traced on its own", () => {
  it("ChatflowTool: the caller's trace holds the tool call, not the callee's model call; the callee sends its own trace", async () => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-nesting" });
    const calleeData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      for (const n of nodes.values()) if (n.data.category === "Chat Models") pointAtStandin(n, openai);
    });
    const callee = await json("POST", "/chatflows", {
      body: { name: "namer", flowData: calleeData, analytic: await phoenixAnalytic("callee") },
    });
    const callerData = flow([
      standinModel("model_0", openai),
      ["tool_0", "ChatflowTool", "Tools", { selectedChatflow: callee.id, name: "ask_names", description: "Finds a company name" }],
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ] as never);
    const caller = await json("POST", "/chatflows", {
      body: { name: "caller", flowData: callerData, analytic: await phoenixAnalytic("caller") },
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${caller.id}`, {
      body: { question: `name one ${callOf("ask_names", { input: `socks ${m}` })}` },
    });
    const calleeAnswer = `echo: What is a good name for a company that makes socks ${m}?`;
    expect(answer.text).toBe(`tools said: ${calleeAnswer}`);

    const traces = await tracesOf(m, 2);
    const mine = traces.get("caller")!;
    const tool = toolUnderAgent(mine, "ask_names");
    expect(tool.a["output.value"]).toBe(calleeAnswer);
    expect(ofKind(mine, "LLM")).toHaveLength(2);
    expect(mine.filter((s) => s.parentSpanId === tool.spanId)).toEqual([]);

    const theirs = traces.get("callee")!;
    const [root] = theirs;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.name).toBe("namer");
    expect(root.traceId).not.toBe(mine[0].traceId);
    expect(root.a["input.value"]).toBe(`socks ${m}`);
    const [llm, ...more] = ofKind(theirs, "LLM");
    expect(more).toEqual([]);
    expect(llm.parentSpanId).toBe(root.spanId);
    expect(llm.a["llm.output_messages.0.message.content"]).toBe(calleeAnswer);
  });
});

describe("a flow run by Agentflow V2's Execute Flow is traced on its own", () => {
  it("the caller's trace holds the Execute Flow node, not the callee's model call; the callee sends its own trace", async () => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-nesting" });
    const calleeData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
      for (const n of nodes.values()) if (n.data.category === "Chat Models") pointAtStandin(n, openai);
    });
    const callee = await json("POST", "/chatflows", {
      body: { name: "namer", flowData: calleeData, analytic: await phoenixAnalytic("executed") },
    });
    const executeFlow = afNode("executeFlowAgentflow_0", "Execute Flow 0", {
      executeFlowSelectedFlow: callee.id,
      executeFlowInput: "{{ question }}",
    });
    const caller = await saveAgentflowOf([start(), executeFlow], [afEdge("startAgentflow_0", "executeFlowAgentflow_0")], {
      analytic: await phoenixAnalytic("executor"),
    });
    const m = marker();
    const answer = await json("POST", `/prediction/${caller.id}`, { body: { question: `boots ${m}` } });
    expect(answer.text).toContain(`makes boots ${m}?`);

    const traces = await tracesOf(m, 2);
    const mine = traces.get("executor")!;
    expect(ofKind(mine, "LLM")).toEqual([]);
    const theirs = traces.get("executed")!;
    const [root] = theirs;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.traceId).not.toBe(mine[0].traceId);
    const [llm, ...more] = ofKind(theirs, "LLM");
    expect(more).toEqual([]);
    expect(llm.parentSpanId).toBe(root.spanId);
  });
});
