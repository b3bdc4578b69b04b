// Issue 25: a chatflow's `analytic` sends each run's trace — question, answer, model calls with prompt,
// output and usage, tool calls, retriever hits, agentflow nodes as spans, the chatId as the session —
// to Langfuse's ingestion API, LangSmith's runs API and an OTLP collector (loopback stand-ins that
// record what they received), after the answer; a backend that is down or slow costs the run nothing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { callOf } from "../engine/agents-flows";
import { closedUrl } from "../engine/helpers";
import { afEdge, llm, openAICredential, saveAgentflowOf, start } from "../agentflow-api/flows";
import { call, json } from "../helpers";
import { BAKERY, TOWN_TEXT, retrievalFixtureFlow } from "../engine/retrieval-flows";
import {
  LANGFUSE_KEYS,
  LANGSMITH_KEY,
  analyticFor,
  attrs,
  credential,
  marker,
  one,
  receivedWith,
  toolAgentFlow,
  tracingUrl,
  INGESTION,
  RUNS,
  TRACES,
} from "./helpers";

afterEach(() => vi.restoreAllMocks());

describe("a chatflow's trace reaches Langfuse, LangSmith and an OTLP collector", () => {
  it("question, answer, the model calls (prompt, output, usage), the tool call, session = chatId", async () => {
    const id = await toolAgentFlow({ analytic: await analyticFor() });
    const m = marker();
    const question = `What is 2+2? ${m} ${callOf("calculator", { input: "2+2" })}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: 4");
    const got = await receivedWith(m, 3);

    // Langfuse: Basic auth with the credential's keys; a trace, generations, the tool's span.
    const lf = one(got, INGESTION);
    expect(lf.headers.authorization).toBe(`Basic ${btoa(`${LANGFUSE_KEYS.langFusePublicKey}:${LANGFUSE_KEYS.langFuseSecretKey}`)}`);
    const events = lf.body.batch as any[];
    const trace = events.find((e) => e.type === "trace-create").body;
    expect(trace).toMatchObject({
      sessionId: answer.chatId,
      input: question,
      output: "tools said: 4",
      release: "v1.2.3",
      metadata: { chatflowId: id, chatId: answer.chatId, chatMessageId: answer.chatMessageId, chatType: "EXTERNAL" },
    });
    const generations = events.filter((e) => e.type === "generation-create").map((e) => e.body);
    expect(generations).toHaveLength(2); // asks for the tool, then answers with its result
    for (const g of generations) {
      expect(g).toMatchObject({ traceId: trace.id, model: "gpt-standin" });
      expect(JSON.stringify(g.input)).toContain(m);
    }
    // The stand-in reports usage with its answers (not with its tool-call turns).
    expect(generations[1].usageDetails).toEqual({ input: 1, output: 1, total: 2 });
    expect(generations[0].output[0].tool_calls[0]).toMatchObject({ name: "calculator", args: { input: "2+2" } });
    expect(generations[1].output).toEqual([expect.objectContaining({ role: "assistant", content: "tools said: 4" })]);
    const tool = events.find((e) => e.type === "span-create" && e.body.name === "calculator").body;
    expect(tool).toMatchObject({ traceId: trace.id, input: { input: "2+2" }, output: "4", metadata: { kind: "tool" } });
    for (const e of events) expect(new Set(["trace-create", "generation-create", "span-create"])).toContain(e.type);

    // LangSmith: x-api-key; one chain run for the flow (session_id = chatId), llm and tool runs under it.
    const ls = one(got, RUNS);
    expect(ls.headers["x-api-key"]).toBe(LANGSMITH_KEY);
    const runs = ls.body.post as any[];
    const root = runs.find((r) => r.parent_run_id === undefined);
    expect(root).toMatchObject({
      run_type: "chain",
      session_name: "moving-in",
      inputs: { question },
      outputs: { text: "tools said: 4" },
      extra: { metadata: { session_id: answer.chatId } },
    });
    const llmRuns = runs.filter((r) => r.run_type === "llm");
    expect(llmRuns).toHaveLength(2);
    for (const r of [...llmRuns, runs.find((x) => x.run_type === "tool")]) {
      expect(r.trace_id).toBe(root.id);
      expect(r.dotted_order.startsWith(`${root.dotted_order}.`)).toBe(true);
    }
    expect(llmRuns[1].outputs.usage_metadata).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 2 });
    expect(runs.find((r) => r.run_type === "tool")).toMatchObject({
      name: "calculator",
      inputs: { input: "2+2" },
      outputs: { output: "4" },
    });

    // OTLP: GenAI semantic conventions on every span; the collector's headers from the credential.
    const otlp = one(got, TRACES);
    expect(otlp.headers["x-team"]).toBe("edge");
    expect(otlp.headers.authorization).toBe("Bearer otlp-standin-token");
    const spans = otlp.body.resourceSpans[0].scopeSpans[0].spans as any[];
    const workflow = spans.find((s) => s.name.startsWith("invoke_workflow "));
    expect(attrs(workflow)).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "gen_ai.conversation.id": answer.chatId });
    const chats = spans.filter((s) => s.name === "chat gpt-standin");
    expect(chats).toHaveLength(2);
    expect(attrs(chats[1])).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-standin",
      "gen_ai.usage.input_tokens": "1",
      "gen_ai.usage.output_tokens": "1",
      "gen_ai.conversation.id": answer.chatId,
    });
    // The agent's loop is an invoke_agent span under the workflow; its model calls hang under it.
    const agent = spans.find((s) => s.name === "invoke_agent Tool Agent");
    expect(agent).toMatchObject({ traceId: workflow.traceId, parentSpanId: workflow.spanId });
    expect(attrs(agent)).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Tool Agent" });
    expect(chats[0]).toMatchObject({ kind: 3, traceId: workflow.traceId, parentSpanId: agent.spanId });
    expect(attrs(chats[0])["gen_ai.input.messages"]).toContain(m);
    const toolSpan = spans.find((s) => s.name === "execute_tool calculator");
    expect(attrs(toolSpan)).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "calculator",
      "gen_ai.tool.call.result": "4",
    });
    expect(BigInt(toolSpan.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(toolSpan.startTimeUnixNano));
  });

  it("an agentflow's nodes are spans, each model call under its node; a streamed run is traced too", async () => {
    const credential = await openAICredential();
    const { id } = await saveAgentflowOf([start(), llm("llmAgentflow_0", credential)], [afEdge("startAgentflow_0", "llmAgentflow_0")], {
      analytic: await analyticFor(),
    });
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `Hello ${m}`, streaming: true } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`echo: Hello ${m}`);
    const got = await receivedWith(m, 3);

    const events = (one(got, INGESTION).body.batch as any[]).map((e) => ({ type: e.type, ...e.body }));
    const trace = events.find((e) => e.type === "trace-create");
    expect(trace.output).toBe(`echo: Hello ${m}`);
    expect(trace.metadata).toMatchObject({ flowType: "AGENTFLOW", executionId: expect.any(String), state: "FINISHED" });
    const nodes = events.filter((e) => e.metadata?.kind === "node");
    expect(nodes.map((n) => [n.name, n.metadata.nodeId, n.parentObservationId])).toEqual([
      ["Start", "startAgentflow_0", null],
      ["LLM 0", "llmAgentflow_0", null],
    ]);
    const generation = events.find((e) => e.type === "generation-create");
    expect(generation.parentObservationId).toBe(nodes[1].id);
    expect(nodes[1].output).toMatchObject({ content: `echo: Hello ${m}` });

    const runs = one(got, RUNS).body.post as any[];
    const llmNode = runs.find((r) => r.name === "LLM 0");
    expect(runs.find((r) => r.run_type === "llm").parent_run_id).toBe(llmNode.id);

    const spans = one(got, TRACES).body.resourceSpans[0].scopeSpans[0].spans as any[];
    const nodeSpan = spans.find((s) => s.name === "LLM 0");
    expect(attrs(nodeSpan)).toMatchObject({ "edgeflow.node.id": "llmAgentflow_0", "edgeflow.node.name": "llmAgentflow" });
    expect(spans.find((s) => s.name.startsWith("chat ")).parentSpanId).toBe(nodeSpan.spanId);
  });

  it("retriever hits: the query and the documents found", async () => {
    const flowData = retrievalFixtureFlow(
      await credential("mistralAIApi", { mistralAIAPIKey: "k" }),
      await credential("openAIApi", { openAIApiKey: "k" }),
    );
    const { id } = await json("POST", "/chatflows", { body: { name: "retrieval traced", flowData, analytic: await analyticFor() } });
    const form = new FormData();
    form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
    expect((await call("POST", `/vector/upsert/${id}`, { raw: form })).status).toBe(200);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    expect((await json("POST", `/prediction/${id}`, { body: { question } })).text).toBe(`echo: ${question}`);
    const got = await receivedWith(m, 3);
    const retriever = (one(got, INGESTION).body.batch as any[]).map((e) => e.body).find((b) => b.metadata?.kind === "retriever");
    expect(retriever.input).toContain("bakery");
    expect(retriever.output[0]).toMatchObject({ pageContent: BAKERY, metadata: expect.objectContaining({ source: "town.txt" }) });
    expect((one(got, RUNS).body.post as any[]).find((r) => r.run_type === "retriever").outputs.documents[0].pageContent).toBe(BAKERY);
    const spans = one(got, TRACES).body.resourceSpans[0].scopeSpans[0].spans as any[];
    expect(attrs(spans.find((s) => s.name.startsWith("retrieval ")))["gen_ai.operation.name"]).toBe("retrieval");
  });

  it("a failed run's trace says why, without the credential the provider echoed", async () => {
    const id = await toolAgentFlow({ analytic: await analyticFor() });
    const m = marker();
    const res = await call("POST", `/prediction/${id}`, { body: { question: `[echo-auth] ${m}` } });
    expect(res.status).toBeGreaterThanOrEqual(500);
    const got = await receivedWith(m, 3);
    const lf = one(got, INGESTION);
    const trace = (lf.body.batch as any[]).find((e) => e.type === "trace-create").body;
    expect(trace.metadata.error).toBeTruthy();
    for (const r of got) expect(JSON.stringify(r.body)).not.toContain("sk-standin-openai-key");
  });

  it("no analytic, or every entry off: nothing is sent", async () => {
    const off = JSON.stringify({ langFuse: { credentialId: "x", status: false }, langSmith: { status: false } });
    for (const analytic of [undefined, off, "{}"]) {
      const id = await toolAgentFlow(analytic ? { analytic } : {});
      const m = marker();
      expect((await json("POST", `/prediction/${id}`, { body: { question: `plain ${m}` } })).text).toBe(`echo: plain ${m}`);
      expect(await receivedWith(m, 1, 400)).toEqual([]);
    }
  });
});

describe("the studio's Analyse Chatflow dialog", () => {
  it("can make the credential each traced backend needs: Flowise's langfuseApi and langsmithApi, with their fields", async () => {
    const fields = async (name: string) =>
      (await json<{ inputs: Array<{ name: string; default?: string }> }>("GET", `/components-credentials/${name}`)).inputs;
    expect((await fields("langsmithApi")).map((i) => [i.name, i.default])).toEqual([
      ["langSmithApiKey", undefined],
      ["langSmithEndpoint", "https://api.smith.langchain.com"],
    ]);
    expect((await fields("langfuseApi")).map((i) => i.name).sort()).toEqual(["langFuseEndpoint", "langFusePublicKey", "langFuseSecretKey"]);
  });
});

describe("a tracing backend that is down or slow", () => {
  it("costs the prediction nothing measurable, and is logged", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const slow = await toolAgentFlow({
      analytic: await analyticFor({ langfuse: `${tracingUrl()}/slow`, langsmith: `${closedUrl()}`, otlp: `${tracingUrl()}/fail` }),
    });
    const plain = await toolAgentFlow();
    const timed = async (id: string) => {
      const started = performance.now();
      const answer = await json("POST", `/prediction/${id}`, { body: { question: `timing ${marker()}` } });
      expect(answer.text).toMatch(/^echo: timing/);
      return performance.now() - started;
    };
    await timed(plain);
    await timed(slow); // warm both
    const traced: number[] = [];
    const untraced: number[] = [];
    for (let i = 0; i < 5; i++) {
      untraced.push(await timed(plain));
      traced.push(await timed(slow));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(
      `prediction median: ${median(untraced).toFixed(1)} ms without tracing, ${median(traced).toFixed(1)} ms with three dead/slow backends`,
    );
    // The slow backend holds each trace for TRACE_TIMEOUT_MS (10 s): none of that reaches the answer.
    expect(median(traced)).toBeLessThan(median(untraced) + 150);
    expect(Math.max(...traced)).toBeLessThan(2000);
    // Each failure is logged (the slow one once its time limit passes).
    await vi.waitFor(
      () => {
        const lines = logged.mock.calls.map((c) => String(c[0]));
        expect(lines.some((l) => l.startsWith("[tracing] otlp") && l.includes("answered 500"))).toBe(true);
        expect(lines.some((l) => l.startsWith("[tracing] langsmith") && l.includes("not sent"))).toBe(true);
      },
      { timeout: 5000 },
    );
    for (const [line] of logged.mock.calls) expect(String(line)).not.toContain(LANGSMITH_KEY);
  });

  it("an endpoint the outbound policy refuses is never called, and the run is untouched", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const id = await toolAgentFlow({ analytic: await analyticFor({ langfuse: "http://169.254.169.254/latest" }) });
    const m = marker();
    expect((await json("POST", `/prediction/${id}`, { body: { question: `policy ${m}` } })).text).toBe(`echo: policy ${m}`);
    await vi.waitFor(
      () => {
        expect(
          logged.mock.calls.some(
            ([l]) => String(l).startsWith("[tracing] langfuse") && String(l).includes("refused by the outbound policy"),
          ),
        ).toBe(true);
      },
      { timeout: 5000 },
    );
    // The other two still got theirs.
    expect((await receivedWith(m, 2)).map((r) => r.path).sort()).toEqual([RUNS, TRACES].sort());
  });
});
