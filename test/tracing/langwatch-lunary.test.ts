// A chatflow's `analytic` entries langWatch and lunary (Flowise's Analyse Chatflow dialog) send each
// run's trace to LangWatch's collector and Lunary's ingestion API (loopback stand-ins recording what
// they received): what a user looks for in those UIs — the question and answer, each model call with
// its messages, model and usage, the tool call, retriever hits, the chatId as the thread.
import { afterEach, describe, expect, it, vi } from "vitest";
import { callOf } from "../engine/agents-flows";
import { BAKERY, TOWN_TEXT, retrievalFixtureFlow } from "../engine/retrieval-flows";
import { call, json } from "../helpers";
import {
  LANGWATCH_KEY,
  LUNARY_APP_ID,
  credential,
  langwatchLunaryAnalytic,
  one,
  marker,
  receivedWith,
  toolAgentFlow,
  COLLECTOR,
  INGEST,
} from "./helpers";

afterEach(() => vi.restoreAllMocks());

describe("a chatflow's trace reaches LangWatch and Lunary", () => {
  it("question, answer, model calls (messages, model, usage), the tool call, thread = chatId", async () => {
    const id = await toolAgentFlow({ analytic: await langwatchLunaryAnalytic() });
    const m = marker();
    const question = `What is 2+2? ${m} ${callOf("calculator", { input: "2+2" })}`;
    const answer = await json("POST", `/prediction/${id}`, { body: { question } });
    expect(answer.text).toBe("tools said: 4");
    const got = await receivedWith(m, 2);

    // LangWatch: X-Auth-Token; the trace's thread is the chatId; a chain span for the flow, llm and tool spans under it.
    const lw = one(got, COLLECTOR);
    expect(lw.headers["x-auth-token"]).toBe(LANGWATCH_KEY);
    expect(lw.body.metadata).toMatchObject({ thread_id: answer.chatId, labels: ["edgeflow"], chatflowId: id, chatId: answer.chatId });
    const spans = lw.body.spans as any[];
    const root = spans[0];
    expect(root).toMatchObject({
      trace_id: lw.body.trace_id,
      type: "chain",
      input: { type: "text", value: question },
      output: { type: "text", value: "tools said: 4" },
    });
    expect(root.parent_id).toBeUndefined();
    const llms = spans.filter((s) => s.type === "llm");
    expect(llms).toHaveLength(2);
    for (const s of llms) {
      expect(s).toMatchObject({ trace_id: lw.body.trace_id, model: `${s.vendor}/gpt-standin` });
      expect(s.vendor).toBeTruthy(); // LangChain's ls_provider, as the SDK reads it
      expect(s.input.type).toBe("chat_messages");
      expect(s.input.value.some((msg: any) => msg.role === "user" && msg.content.includes(m))).toBe(true);
      expect(s.timestamps.finished_at).toBeGreaterThanOrEqual(s.timestamps.started_at);
    }
    expect(llms[0].output.value[0].tool_calls[0]).toMatchObject({
      type: "function",
      function: { name: "calculator", arguments: JSON.stringify({ input: "2+2" }) },
    });
    expect(llms[1].output).toEqual({
      type: "chat_messages",
      value: [expect.objectContaining({ role: "assistant", content: "tools said: 4" })],
    });
    expect(llms[1].metrics).toEqual({ prompt_tokens: 1, completion_tokens: 1 });
    const tool = spans.find((s) => s.type === "tool");
    expect(tool).toMatchObject({
      name: "calculator",
      input: { type: "json", value: { input: "2+2" } },
      output: { type: "text", value: "4" },
    });
    const ids = new Set(spans.map((s) => s.span_id));
    for (const s of spans.slice(1)) expect(ids.has(s.parent_id)).toBe(true);

    // Lunary: Bearer <project id>; the user's message in the chat's thread, the flow's chain under it, llm/tool runs, the answer.
    const lu = one(got, INGEST);
    expect(lu.headers.authorization).toBe(`Bearer ${LUNARY_APP_ID}`);
    const events = lu.body.events as any[];
    const [asked, told] = events.filter((e) => e.type === "thread");
    expect(asked).toMatchObject({ event: "chat", parentRunId: answer.chatId, message: { role: "user", content: question } });
    expect(told).toMatchObject({
      event: "chat",
      parentRunId: answer.chatId,
      runId: answer.chatMessageId,
      message: { role: "assistant", content: "tools said: 4" },
    });
    const flow = events.find((e) => e.type === "chain" && e.event === "start" && e.parentRunId === asked.runId);
    expect(flow).toMatchObject({ input: question, metadata: { chatflowId: id, chatId: answer.chatId }, tags: ["edgeflow"] });
    expect(events.find((e) => e.runId === flow.runId && e.event === "end").output).toBe("tools said: 4");
    const llmStarts = events.filter((e) => e.type === "llm" && e.event === "start");
    expect(llmStarts).toHaveLength(2);
    for (const e of llmStarts) expect(JSON.stringify(e.input)).toContain(m);
    expect(llmStarts[0].name).toBe("gpt-standin");
    const llmEnds = events.filter((e) => e.type === "llm" && e.event === "end");
    expect(llmEnds[0].output.tool_calls[0].function.name).toBe("calculator");
    expect(llmEnds[1]).toMatchObject({
      output: { role: "assistant", content: "tools said: 4" },
      tokensUsage: { prompt: 1, completion: 1 },
    });
    const toolStart = events.find((e) => e.type === "tool" && e.event === "start");
    expect(toolStart).toMatchObject({ name: "calculator", input: { input: "2+2" } });
    expect(events.find((e) => e.type === "tool" && e.event === "end" && e.runId === toolStart.runId).output).toBe("4");
    // Every run starts before it ends, under a parent that started before it; timestamps strictly increase.
    const at = (runId: string, event: string) => events.findIndex((e) => e.runId === runId && e.event === event);
    for (const e of events.filter((x) => x.event === "start")) {
      expect(at(e.runId, "end")).toBeGreaterThan(at(e.runId, "start"));
      if (e !== flow) expect(at(e.parentRunId, "start")).toBeLessThan(at(e.runId, "start"));
    }
    for (let i = 1; i < events.length; i++) expect(events[i].timestamp).toBeGreaterThan(events[i - 1].timestamp);
  });

  it("retriever hits: LangWatch's contexts and Lunary's retriever run", async () => {
    const flowData = retrievalFixtureFlow(
      await credential("mistralAIApi", { mistralAIAPIKey: "k" }),
      await credential("openAIApi", { openAIApiKey: "k" }),
    );
    const analytic = await langwatchLunaryAnalytic();
    const { id } = await json("POST", "/chatflows", { body: { name: "retrieval traced", flowData, analytic } });
    const form = new FormData();
    form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
    expect((await call("POST", `/vector/upsert/${id}`, { raw: form })).status).toBe(200);
    const m = marker();
    const question = `When does the bakery open in the morning? ${m}`;
    expect((await json("POST", `/prediction/${id}`, { body: { question } })).text).toBe(`echo: ${question}`);
    const got = await receivedWith(m, 2);
    const rag = (one(got, COLLECTOR).body.spans as any[]).find((s) => s.type === "rag");
    expect(rag.input.value).toContain("bakery");
    expect(rag.contexts[0]).toEqual({ document_id: "town.txt", content: BAKERY });
    const events = one(got, INGEST).body.events as any[];
    expect(events.find((e) => e.type === "retriever" && e.event === "start").input).toContain("bakery");
    expect(events.find((e) => e.type === "retriever" && e.event === "end").output[0]).toMatchObject({
      summary: `${BAKERY.slice(0, 400)}...`, // the SDK's cut
      source: "town.txt",
    });
  });

  it("a chatId that is not a UUID gets the same Lunary thread id on every run", async () => {
    const id = await toolAgentFlow({ analytic: await langwatchLunaryAnalytic() });
    const chatId = `my-chat-${marker()}`;
    const threads: string[] = [];
    for (const turn of ["one", "two"]) {
      const m = marker();
      await json("POST", `/prediction/${id}`, { body: { question: `${turn} ${m}`, chatId } });
      const got = await receivedWith(m, 2);
      expect(one(got, COLLECTOR).body.metadata.thread_id).toBe(chatId);
      threads.push((one(got, INGEST).body.events as any[])[0].parentRunId);
    }
    expect(threads[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(threads[1]).toBe(threads[0]);
  });

  it("a failed run: LangWatch's error capture and Lunary's error event, without the provider's key", async () => {
    const id = await toolAgentFlow({ analytic: await langwatchLunaryAnalytic() });
    const m = marker();
    expect((await call("POST", `/prediction/${id}`, { body: { question: `[echo-auth] ${m}` } })).status).toBeGreaterThanOrEqual(500);
    const got = await receivedWith(m, 2);
    expect((one(got, COLLECTOR).body.spans as any[])[0].error).toMatchObject({ has_error: true, message: expect.any(String) });
    const events = one(got, INGEST).body.events as any[];
    expect(events.find((e) => e.type === "chain" && e.event === "error").error.message).toBeTruthy();
    expect(events.filter((e) => e.type === "thread")).toHaveLength(1); // the question; no answer
    for (const r of got) expect(JSON.stringify(r.body)).not.toContain("sk-standin-openai-key");
  });

  it("entries with status false send nothing", async () => {
    const id = await toolAgentFlow({ analytic: await langwatchLunaryAnalytic({ status: false }) });
    const m = marker();
    expect((await json("POST", `/prediction/${id}`, { body: { question: `plain ${m}` } })).text).toBe(`echo: plain ${m}`);
    expect(await receivedWith(m, 1, 400)).toEqual([]);
  });

  it("a private endpoint is refused by the outbound policy, logged without the key; the run is untouched", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const analytic = await langwatchLunaryAnalytic({ langwatch: "http://169.254.169.254/latest", lunary: "http://10.1.2.3:8080" });
    const id = await toolAgentFlow({ analytic });
    const m = marker();
    expect((await json("POST", `/prediction/${id}`, { body: { question: `policy ${m}` } })).text).toBe(`echo: policy ${m}`);
    await vi.waitFor(
      () => {
        for (const kind of ["langwatch", "lunary"])
          expect(
            logged.mock.calls.some(
              ([l]) => String(l).startsWith(`[tracing] ${kind}`) && String(l).includes("refused by the outbound policy"),
            ),
          ).toBe(true);
      },
      { timeout: 5000 },
    );
    expect(await receivedWith(m, 1, 300)).toEqual([]);
    for (const [line] of logged.mock.calls) {
      expect(String(line)).not.toContain(LANGWATCH_KEY);
      expect(String(line)).not.toContain(LUNARY_APP_ID);
    }
  });
});

describe("the studio's Analyse Chatflow dialog", () => {
  it("can make Flowise's langwatchApi and lunaryApi credentials, with their fields", async () => {
    const fields = async (name: string) =>
      (await json<{ inputs: Array<{ name: string; default?: string }> }>("GET", `/components-credentials/${name}`)).inputs;
    expect((await fields("langwatchApi")).map((i) => [i.name, i.default])).toEqual([
      ["langWatchApiKey", undefined],
      ["langWatchEndpoint", "https://app.langwatch.ai"],
    ]);
    expect((await fields("lunaryApi")).map((i) => [i.name, i.default])).toEqual([
      ["lunaryAppId", undefined],
      ["lunaryEndpoint", "https://api.lunary.ai"],
    ]);
  });
});
