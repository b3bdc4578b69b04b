// Traces that a lenient stand-in took and the real backends refuse or drop (test/standin/tracing.mjs now
// answers as they do): a trace past a backend's body limit in bytes (non-ASCII text is 3 bytes a character),
// past LangWatch's 200 spans, a question of megabytes, a LangChain ChatMessage's role in LangWatch's schema;
// and a 2xx answer that still dropped events (Langfuse's 207 `errors`, Lunary's failed `results`) is logged
// like any other tracing failure. Traces come from the real recorder (TraceRecorder, LangChain's callbacks)
// or a run, and go through the real sender to the stand-ins.
import { env } from "cloudflare:workers";
import { AIMessage, ChatMessage, HumanMessage } from "@langchain/core/messages";
import type { Serialized } from "@langchain/core/load/serializable";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env";
import { traceTargets } from "../../src/services/tracing/config";
import { sendTrace } from "../../src/services/tracing/send";
import { TraceRecorder } from "../../src/services/tracing/trace";
import type { Trace } from "../../src/services/tracing/trace-types";
import { callOf } from "../engine/agents-flows";
import { db } from "../engine/helpers";
import { json } from "../helpers";
import {
  type Received,
  analyticFor,
  byPath,
  credential,
  expectAccepted,
  langwatchLunaryAnalytic,
  marker,
  receivedWith,
  toolAgentFlow,
  tracingUrl,
  INGESTION,
  RUNS,
  TRACES,
  COLLECTOR,
  INGEST,
  PHOENIX,
} from "./helpers";

afterEach(() => vi.restoreAllMocks());

const MB = 1024 * 1024;
const deps = () => ({ db: db(), env: env as unknown as Env });
const TOOL = { lc: 1, type: "not_implemented", id: ["edgeflow", "lookup"] } as Serialized;
const MODEL = { lc: 1, type: "not_implemented", id: ["edgeflow", "ChatOpenAI"] } as Serialized;

/** Langfuse, LangSmith, OTLP, LangWatch, Lunary and Phoenix on, at the tracing stand-in. */
async function everyBackend(): Promise<string> {
  const phoenix = await credential("phoenixApi", { phoenixApiKey: "phx-limits", phoenixEndpoint: `${tracingUrl()}/phoenix` });
  return JSON.stringify({
    ...JSON.parse(await analyticFor()),
    ...JSON.parse(await langwatchLunaryAnalytic()),
    phoenix: { credentialId: phoenix, status: true, projectName: "limits" },
  });
}

const send = async (analytic: string, trace: Trace) => sendTrace(deps(), traceTargets(analytic) ?? [], trace, new Set());

/** Every request of `path`, each accepted whole by the stand-in. */
function accepted(got: Received[], path: string): Received[] {
  const found = byPath(got, path);
  expect(found.length, `requests to ${path}`).toBeGreaterThan(0);
  for (const r of found) expectAccepted(r);
  return found;
}

const otlpSpans = (requests: Received[]) => requests.flatMap((r) => r.body.resourceSpans[0].scopeSpans[0].spans as any[]);

describe("a trace past a backend's body limit", () => {
  /** A trace of `count` tool calls, each with 40,000 CJK characters in (the marker first) and out: 192 KB a span once cut. */
  function hugeTools(m: string, count: number): Trace {
    const recorder = new TraceRecorder({ name: "huge tools", sessionId: `chat-${m}`, input: `question ${m}`, metadata: { chatflowId: m } });
    for (let i = 0; i < count; i++) {
      const id = crypto.randomUUID();
      recorder.handleToolStart(TOOL, `${m} ${"字".repeat(40_000)}`, id, undefined, undefined, undefined, "lookup");
      recorder.handleToolEnd("漢".repeat(40_000), id);
    }
    return recorder.finish({ output: "done" });
  }
  // Tens of megabytes to send: the longest time limit (25 s) rather than the default.
  const patient = () => ({ db: db(), env: { ...(env as unknown as Env), TRACE_TIMEOUT_MS: "25000" } as Env });
  // Large bodies: the stand-in forgets what it received so far rather than hold them all suite long.
  const forget = () => fetch(`${tracingUrl()}/requests`, { method: "DELETE" });

  it("60 tool calls of 40,000 CJK characters in and out (11 MB): Langfuse and LangWatch take it all, under their limits", async () => {
    const m = marker();
    const trace = hugeTools(m, 60);
    const analytic = JSON.stringify({ ...JSON.parse(await analyticFor()), ...JSON.parse(await langwatchLunaryAnalytic()) });
    const targets = (traceTargets(analytic) ?? []).filter((t) => t.kind === "langfuse" || t.kind === "langwatch");
    await sendTrace(patient(), targets, trace, new Set());
    const got = await receivedWith(m, 1);

    // Langfuse: 3.5 MB a batch (its reference); every event, none refused.
    const batches = accepted(got, INGESTION);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) expect(b.size).toBeLessThanOrEqual(3.5e6);
    expect(batches.flatMap((b) => b.body.batch).map((e: any) => e.type)).toEqual(["trace-create", ...Array(60).fill("span-create")]);

    // LangWatch: bodies of at most 10 MB, together the root span and the 60 tool spans.
    const collected = accepted(got, COLLECTOR);
    expect(collected.length).toBeGreaterThan(1);
    for (const r of collected) {
      expect(r.size).toBeLessThanOrEqual(10 * MB);
      expect(r.body).toMatchObject({ trace_id: trace.id, metadata: { thread_id: `chat-${m}` } });
    }
    expect(collected.flatMap((r) => r.body.spans).filter((s: any) => s.type === "tool")).toHaveLength(60);
    await forget();
  }, 60_000);

  it("120 tool calls of 40,000 CJK characters in and out (23 MB): LangSmith, OTLP and Phoenix get it all, in 20 MiB requests", async () => {
    const m = marker();
    const trace = hugeTools(m, 120);
    const kinds = new Set(["langsmith", "otlp", "phoenix"]);
    const targets = (traceTargets(await everyBackend()) ?? []).filter((t) => kinds.has(t.kind));
    await sendTrace(patient(), targets, trace, new Set());
    const got = await receivedWith(m, 1);
    // OTLP (JSON) and Phoenix (protobuf): 20 MiB a request at most (the spec's default); each span once.
    for (const path of [TRACES, PHOENIX]) {
      const requests = accepted(got, path);
      expect(requests.length).toBeGreaterThan(1);
      for (const r of requests) expect(r.size).toBeLessThanOrEqual(20 * MB);
      const spans = otlpSpans(requests);
      expect(spans).toHaveLength(121);
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(121);
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([spans[0].traceId]));
    }
    // LangSmith: batches of at most 20 MiB (what its /info advertises), the root run in the first.
    const batches = accepted(got, RUNS);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) expect(b.size).toBeLessThanOrEqual(20 * MB);
    const runs = batches.flatMap((b) => b.body.post);
    expect(runs).toHaveLength(121);
    expect(runs[0]).toMatchObject({ id: trace.id, trace_id: trace.id });
    await forget();
  }, 60_000);

  it("a question of megabytes is cut like any other text field, so Langfuse takes the trace", async () => {
    const m = marker();
    const question = `${m} ${"問".repeat(1_600_000)}`; // 4.8 MB as UTF-8, under MAX_BODY_MB (5 MB)
    const recorder = new TraceRecorder({ name: "long question", sessionId: `chat-${m}`, input: question, metadata: { chatflowId: m } });
    const trace = recorder.finish({ output: `answer ${m}` });
    await send(await everyBackend(), trace);
    const got = await receivedWith(m, 6);

    const [lf] = accepted(got, INGESTION);
    const input: string = lf.body.batch.find((e: any) => e.type === "trace-create").body.input;
    expect(input.startsWith(`${m} 問問`)).toBe(true);
    expect(input.endsWith(`… (${question.length} characters)`)).toBe(true);
    expect(input.length).toBeLessThan(32_100);
    for (const path of [RUNS, TRACES, COLLECTOR, INGEST, PHOENIX]) accepted(got, path);
  });
});

describe("a run of more than 200 spans", () => {
  it("an agent calling a tool 205 times in one turn: LangWatch gets the first 200 spans (all it keeps), the others all", async () => {
    const analytic = JSON.stringify({ ...JSON.parse(await analyticFor()), ...JSON.parse(await langwatchLunaryAnalytic()) });
    const id = await toolAgentFlow({ analytic });
    const m = marker();
    const calls = Array.from({ length: 205 }, (_, i) => callOf("calculator", { input: `${i}+1` })).join(" ");
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${m} [parallel] ${calls}` } });
    expect(answer.text).toMatch(/^tools said: 1 \| 2 \| 3 \|/);
    const got = await receivedWith(m, 5);

    const events = accepted(got, INGESTION).flatMap((b) => b.body.batch);
    const spanCount = events.length - 1; // all but the trace-create
    expect(events.filter((e: any) => e.body.name === "calculator")).toHaveLength(205);

    const [lw] = accepted(got, COLLECTOR);
    const spans = lw.body.spans as any[];
    expect(spans).toHaveLength(200);
    expect(spans[0].span_id).toBe(`span_${lw.body.trace_id}`);
    const ids = new Set(spans.map((s) => s.span_id));
    for (const s of spans.slice(1)) expect(ids.has(s.parent_id), `${s.name}'s parent was sent`).toBe(true);
    expect(lw.body.metadata.droppedSpans).toBe(String(spanCount - 199));

    expect(accepted(got, RUNS)[0].body.post).toHaveLength(spanCount + 1);
    expect(otlpSpans(accepted(got, TRACES))).toHaveLength(spanCount + 1);
    accepted(got, INGEST);
  });
});

describe("LangWatch's chat message roles", () => {
  it("a LangChain ChatMessage (type generic, a role of its own) goes as role unknown, not a role LangWatch refuses", async () => {
    const m = marker();
    const recorder = new TraceRecorder({ name: "roles", sessionId: `chat-${m}`, input: `hi ${m}`, metadata: { chatflowId: m } });
    const runId = crypto.randomUUID();
    const messages = [new ChatMessage("Answer like a critic.", "critic"), new HumanMessage(`hi ${m}`)];
    recorder.handleChatModelStart(MODEL, [messages], runId, undefined, { invocation_params: { model: "gpt-standin" } });
    recorder.handleLLMEnd({ generations: [[{ text: "fine", message: new AIMessage("fine") }]] } as never, runId);
    await send(await langwatchLunaryAnalytic(), recorder.finish({ output: "fine" }));
    const got = await receivedWith(m, 2);

    const [lw] = accepted(got, COLLECTOR);
    const llm = lw.body.spans.find((s: any) => s.type === "llm");
    expect(llm.input.value.map((x: any) => [x.role, x.content])).toEqual([
      ["unknown", "Answer like a critic."],
      ["user", `hi ${m}`],
    ]);
    accepted(got, INGEST);
  });
});

describe("a 2xx answer that dropped events", () => {
  it("Langfuse's 207 errors and Lunary's failed results are logged as the trace's failure; sending never throws", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const m = marker();
    const now = Date.now();
    // A provider's fractional token count: Langfuse's usageDetails takes integers only.
    const trace: Trace = {
      id: crypto.randomUUID(),
      name: "dropped",
      sessionId: `chat-${m}`,
      input: `hi ${m}`,
      output: "fine",
      start: now,
      end: now + 5,
      metadata: { chatflowId: m },
      spans: [
        {
          id: crypto.randomUUID(),
          kind: "generation",
          name: "ChatOpenAI",
          start: now + 1,
          end: now + 4,
          input: [{ role: "user", content: `hi ${m}` }],
          output: [{ role: "assistant", content: "fine" }],
          model: "gpt-standin",
          usage: { input: 1.5, output: 2, total: 3.5 },
        },
      ],
    };
    const analytic = JSON.stringify({ ...JSON.parse(await analyticFor()), ...JSON.parse(await langwatchLunaryAnalytic()) });
    await send(analytic, trace);
    // Lunary refuses a run started twice: the same trace again.
    await send(analytic, trace);

    const lines = logged.mock.calls.map(([l]) => String(l));
    const langfuse = lines.filter((l) => l.startsWith(`[tracing] langfuse trace ${trace.id}: `));
    expect(langfuse.length).toBeGreaterThan(0);
    expect(langfuse[0]).toMatch(/answered 207 but refused 1: event \S+: 400 Invalid request data body\.usageDetails/);
    const lunary = lines.filter((l) => l.startsWith(`[tracing] lunary trace ${trace.id}: `));
    expect(lunary).toHaveLength(1); // the second sending only
    expect(lunary[0]).toContain("answered 200 but refused 2: "); // the chain run and the model call
    expect(lunary[0]).toContain("Run with this ID already exists in the database.");
    // What the stand-ins answered, as the log says.
    const got = await receivedWith(m, 4);
    expect(byPath(got, INGESTION).map((r) => r.answer?.body.errors.length)).toEqual([1, 1]);
    expect(byPath(got, INGEST)[1].answer?.body.results.filter((r: any) => !r.success)).toHaveLength(2);
  });
});
