// OpenInference's RETRIEVER and AGENT spans as Phoenix receives them (OTLP/HTTP protobuf, decoded by the
// tracing stand-in): a conversational retrieval chain over a vector store with the town's documents gives a
// RETRIEVER span with the query as input.value and each document's content and metadata; an Agentflow V2
// Agent node and a chatflow Tool Agent give an AGENT span with the agent's input and output, its model calls
// (LLM) and tool calls (TOOL) under it; a Tool Agent's retriever tool nests RETRIEVER under TOOL under AGENT.
// One trace id, distinct span ids, every parent a span of the trace.
import { describe, expect, it } from "vitest";
import { afEdge, afNode, modelConfig, saveAgentflowOf, start } from "../agentflow-api/flows";
import { callOf } from "../engine/agents-flows";
import { BAKERY, TOWN_TEXT, flow, ref, retrievalFixtureFlow, standinModel } from "../engine/retrieval-flows";
import { call, json } from "../helpers";
import { attrs, credential, marker, one, receivedWith, toolAgentFlow, tracingUrl, PHOENIX } from "./helpers";

const phoenixAnalytic = async () => {
  const id = await credential("phoenixApi", { phoenixApiKey: "phx-spans-key", phoenixEndpoint: `${tracingUrl()}/phoenix` });
  return JSON.stringify({ phoenix: { credentialId: id, status: true, projectName: "spans" } });
};

type Decoded = { name: string; traceId: string; spanId: string; parentSpanId?: string; a: Record<string, any> };

/** The spans Phoenix received for the run marked `m`, with their attributes as a plain object. */
async function spansOf(m: string): Promise<Decoded[]> {
  const got = await receivedWith(m, 1);
  const spans = one(got, PHOENIX).body.resourceSpans[0].scopeSpans[0].spans as any[];
  return spans.map((s) => ({ ...s, a: attrs(s) }));
}

const ofKind = (spans: Decoded[], kind: string) => spans.filter((s) => s.a["openinference.span.kind"] === kind);

/** One trace: a single root (no parent), every other span's parent a span of the trace. */
function expectOneTree(spans: Decoded[]) {
  const [root, ...rest] = spans;
  expect(root.parentSpanId).toBeUndefined();
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));
  const ids = new Set(spans.map((s) => s.spanId));
  expect(ids.size).toBe(spans.length);
  for (const s of rest) expect(ids.has(s.parentSpanId!), `${s.name}'s parent is in the trace`).toBe(true);
  return root;
}

describe("OpenInference RETRIEVER spans (Phoenix)", () => {
  it("a conversational retrieval chain: the query as input.value, each document's content and metadata", async () => {
    const flowData = retrievalFixtureFlow(
      await credential("mistralAIApi", { mistralAIAPIKey: "k" }),
      await credential("openAIApi", { openAIApiKey: "k" }),
    );
    const { id } = await json("POST", "/chatflows", { body: { name: "retrieval spans", flowData, analytic: await phoenixAnalytic() } });
    const form = new FormData();
    form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
    expect((await call("POST", `/vector/upsert/${id}`, { raw: form })).status).toBe(200);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe(`echo: ${question}`);

    const spans = await spansOf(m);
    const root = expectOneTree(spans);
    const [retriever, ...more] = ofKind(spans, "RETRIEVER");
    expect(more).toEqual([]);
    expect(retriever.a).toMatchObject({ "input.value": question, "input.mime_type": "text/plain", "session.id": answer.chatId });
    const docs = Object.keys(retriever.a).filter((k) => /^retrieval\.documents\.\d+\.document\.content$/.test(k));
    expect(docs.length).toBeGreaterThan(0);
    expect(retriever.a["retrieval.documents.0.document.content"]).toBe(BAKERY);
    expect(JSON.parse(retriever.a["retrieval.documents.0.document.metadata"])).toMatchObject({ source: "town.txt" });
    // The chain is the run itself (the root CHAIN span): the retriever hangs right under it.
    expect(retriever.parentSpanId).toBe(root.spanId);
    expect(root.a).toMatchObject({ "openinference.span.kind": "CHAIN", "input.value": question, "output.value": answer.text });
  });
});

describe("OpenInference AGENT spans (Phoenix)", () => {
  it("an Agentflow V2 Agent node: AGENT with its input and output; its LLM and TOOL spans under it", async () => {
    const openai = await credential("openAIApi", { openAIApiKey: "sk-spans" });
    const agent = afNode("agentAgentflow_0", "Agent 0", {
      agentModel: "chatOpenAI",
      agentModelConfig: modelConfig(openai, { streaming: false }),
      agentMessages: [],
      agentTools: [{ agentSelectedTool: "calculator", agentSelectedToolConfig: {} }],
    });
    const { id } = await saveAgentflowOf([start(), agent], [afEdge("startAgentflow_0", "agentAgentflow_0")], {
      analytic: await phoenixAnalytic(),
    });
    const m = marker();
    const question = `What is 6 times 7? ${callOf("calculator", { input: "6*7" })} ${m}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: 42");

    const spans = await spansOf(m);
    const root = expectOneTree(spans);
    const [agentSpan, ...more] = ofKind(spans, "AGENT");
    expect(more).toEqual([]);
    expect(agentSpan.name).toBe("Agent 0");
    expect(agentSpan.parentSpanId).toBe(root.spanId);
    expect(agentSpan.a["session.id"]).toBe(answer.chatId);
    expect(agentSpan.a["input.value"]).toContain(m);
    expect(agentSpan.a["output.value"]).toContain("tools said: 42");
    const llms = ofKind(spans, "LLM");
    expect(llms).toHaveLength(2);
    for (const s of llms) expect(s.parentSpanId).toBe(agentSpan.spanId);
    const [tool] = ofKind(spans, "TOOL");
    expect(tool.a).toMatchObject({ "tool.name": "calculator", "output.value": "42" });
    expect(tool.parentSpanId).toBe(agentSpan.spanId);
  });

  it("a chatflow Tool Agent: AGENT with the question and the answer; its LLM and TOOL spans under it", async () => {
    const id = await toolAgentFlow({ analytic: await phoenixAnalytic() });
    const m = marker();
    const question = `What is 2+2? ${m} ${callOf("calculator", { input: "2+2" })}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: 4");

    const spans = await spansOf(m);
    const root = expectOneTree(spans);
    const [agentSpan, ...more] = ofKind(spans, "AGENT");
    expect(more).toEqual([]);
    expect(agentSpan.name).toBe("Tool Agent");
    expect(agentSpan.parentSpanId).toBe(root.spanId);
    expect(agentSpan.a).toMatchObject({
      "input.value": question,
      "input.mime_type": "text/plain",
      "output.value": "tools said: 4",
      "output.mime_type": "text/plain",
      "agent.name": "Tool Agent",
      "session.id": answer.chatId,
    });
    const llms = ofKind(spans, "LLM");
    expect(llms).toHaveLength(2);
    for (const s of llms) expect(s.parentSpanId).toBe(agentSpan.spanId);
    const [tool] = ofKind(spans, "TOOL");
    expect(tool.parentSpanId).toBe(agentSpan.spanId);
  });
});

describe("OpenInference spans nested (Phoenix)", () => {
  it("a Tool Agent's retriever tool: RETRIEVER under its TOOL under the AGENT, every span id distinct", async () => {
    // The tool and the retriever it asks start in the same millisecond (no I/O between them): their span
    // ids must still differ, or Phoenix nests the trace wrongly.
    const openai = await credential("openAIApi", { openAIApiKey: "sk-spans" });
    const flowData = flow([
      ["loader_0", "plainText", "Document Loaders", { text: TOWN_TEXT, textSplitter: ref("splitter_0") }],
      ["splitter_0", "recursiveCharacterTextSplitter", "Text Splitters", { chunkSize: 1000 }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_0", "faiss", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0"), topK: 1 }, { output: "retriever" }],
      ["tool_0", "retrieverTool", "Tools", { name: "town_guide", description: "Facts about the town", retriever: ref("vs_0") }],
      standinModel("model_0", openai),
      ["agent_0", "toolAgent", "Agents", { model: ref("model_0"), tools: [ref("tool_0")] }],
    ] as never);
    const { id } = await json("POST", "/chatflows", {
      body: { name: "agent retriever spans", flowData, analytic: await phoenixAnalytic() },
    });
    expect((await call("POST", `/vector/upsert/${id}`, { body: {} })).status).toBe(200);
    const m = marker();
    const query = "Sunrise Bakery opening time in the morning";
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("town_guide", { input: query })} ${m}` } });
    expect(answer.text).toBe(`tools said: ${BAKERY}`);

    const spans = await spansOf(m);
    const root = expectOneTree(spans);
    const [agentSpan] = ofKind(spans, "AGENT");
    expect(agentSpan.parentSpanId).toBe(root.spanId);
    const [tool, ...moreTools] = ofKind(spans, "TOOL");
    expect(moreTools).toEqual([]);
    expect(tool.a).toMatchObject({ "tool.name": "town_guide", "output.value": BAKERY });
    expect(tool.parentSpanId).toBe(agentSpan.spanId);
    const [retriever] = ofKind(spans, "RETRIEVER");
    expect(retriever.parentSpanId).toBe(tool.spanId);
    expect(retriever.a).toMatchObject({ "input.value": query, "retrieval.documents.0.document.content": BAKERY });
    expect(retriever.a["retrieval.documents.1.document.content"]).toBeUndefined();
    for (const s of ofKind(spans, "LLM")) expect(s.parentSpanId).toBe(agentSpan.spanId);
  });
});
