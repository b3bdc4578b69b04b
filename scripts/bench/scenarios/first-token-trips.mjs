// The requests issue 32 wants answered after exactly one replica round trip before their first
// token that no other scenario measures: a streamed agentflow in a named session, and the chat
// widget's public flow (GET /public-chatbotConfig/{id}, GET /chatflows-streaming/{id}, then the
// streamed POST /prediction/{id}, all without credentials, as flowise-embed calls them). One at a
// time, each answer checked (every token in order, the stream's `end`); on the simulated planet the
// round trips of the last of each go to the round-trip table. `npm run bench -- --only trips`.
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, expectOk, httpFetch, stats, tripsOf } from "../load.mjs";
import { timedStream } from "./openai.mjs";
import { streamingFlowData, streamingSetup } from "./streaming.mjs";

const TOKENS = 20;
const PHRASE = `[bench:${TOKENS}:2]`; // 20 tokens, 2 ms apart
const EXPECTED = Array.from({ length: TOKENS }, (_, i) => `tok${i + 1} `).join("");
const TURNS_PER_SESSION = 5; // the agentflow's memory grows within a session; a new one every few turns

/** Start → LLM (the stand-in, memory on), as Flowise 3 saves it. */
function agentflowData(basepath, credentialId) {
  const node = (id, label, inputs) => ({
    id,
    type: "agentFlow",
    position: { x: 0, y: 0 },
    data: { id, name: id.replace(/_\d+$/, ""), label, category: "Agent Flows", version: 1, inputs, outputs: {}, outputAnchors: [] },
  });
  const nodes = [
    node("startAgentflow_0", "Start", { startInputType: "chatInput" }),
    node("llmAgentflow_0", "LLM 0", {
      llmModel: "chatOpenAI",
      llmModelConfig: { modelName: "gpt-4o-mini", basepath, streaming: true, FLOWISE_CREDENTIAL_ID: credentialId },
      llmMessages: [],
      llmEnableMemory: true,
    }),
  ];
  const edges = [
    {
      id: "e1",
      source: "startAgentflow_0",
      sourceHandle: "startAgentflow_0-output-startAgentflow",
      target: "llmAgentflow_0",
      targetHandle: "llmAgentflow_0",
      type: "agentFlow",
      data: {},
    },
  ];
  return JSON.stringify({ nodes, edges });
}

async function timedGet(url) {
  const t0 = performance.now();
  const res = await httpFetch(url, { dispatcher, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text, requestId: res.headers.get("x-request-id") };
}

const good = (r) => r.status === 200 && r.ended && r.text === EXPECTED;

/** `count` rounds one at a time (a few unmeasured first); `round(i)` answers {stream, …others}: {name: timed result}. */
async function rounds(ctx, count, round) {
  const times = {};
  const last = {};
  const failures = {};
  for (let i = -Math.min(ctx.opts.warmup, 10); i < count; i++) {
    const answers = await round(i);
    if (i < 0) continue;
    for (const [name, r] of Object.entries(answers)) {
      const ok = "ended" in r ? good(r) : r.status === 200;
      if (!ok) {
        failures[`${name} ${r.status}`] = (failures[`${name} ${r.status}`] ?? 0) + 1;
        continue;
      }
      times[name] ??= { ms: [], ttft: [], total: [] };
      if ("ended" in r) {
        times[name].ttft.push(r.ttft);
        times[name].total.push(r.total);
      } else times[name].ms.push(r.ms);
      last[name] = r.requestId;
    }
  }
  return { times, last, failures };
}

/** The scenario's result: the stream's figures as its own, the other requests as extra round-trip rows. */
async function resultOf(ctx, { times, last, failures }, [streamName, streamLabel], rowNames) {
  const t = times[streamName] ?? { ttft: [], total: [] };
  const ttft = stats(t.ttft);
  const total = stats(t.total);
  const seconds = t.total.reduce((a, b) => a + b, 0) / 1000;
  console.log(`bench:   ${streamLabel}: p50 first token ${ttft.p50.toFixed(2)} ms, whole answer ${total.p50.toFixed(2)} ms`);
  const tripRows = [{ name: streamLabel, trips: await tripsOf(ctx, last[streamName]), p50: [ttft.p50, total.p50] }];
  for (const [name, label] of rowNames)
    tripRows.push({ name: label, trips: await tripsOf(ctx, last[name]), p50: [stats(times[name]?.ms ?? []).p50] });
  return { requests: t.total.length, seconds, rps: t.total.length / seconds, ...total, failures, firstToken: ttft, tripRows };
}

/** A flow whose model is the streaming scenarios' stand-in: `body(flowData)` is its POST /chatflows body. */
async function flowAtStandin(ctx, what, body, flowDataOf) {
  const { standin, credentialId } = await streamingSetup.get(ctx);
  const flow = expectOk(
    await ctx.api("POST", "/chatflows", body(flowDataOf(`${standin.url}/v1`, credentialId))),
    `POST /chatflows (${what})`,
  );
  return flow.id;
}

export const firstTokenTripScenarios = [
  {
    name: "streamed agentflow (Start → LLM at the stand-in, memory on) in a named session, one at a time (round trips)",
    async setup(ctx) {
      this.flowId = await flowAtStandin(
        ctx,
        "agentflow",
        (flowData) => ({ name: "bench agentflow", type: "AGENTFLOW", flowData }),
        agentflowData,
      );
      return `agentflow ${this.flowId}`;
    },
    async measure(ctx) {
      const headers = { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` };
      const url = `${ctx.baseUrl}/prediction/${this.flowId}`;
      const run = await rounds(ctx, Math.min(ctx.opts.requests, 100), async (i) => ({
        stream: await timedStream(url, headers, {
          question: `${PHRASE} af ${i}`,
          chatId: `bench-af-${Math.floor(i / TURNS_PER_SESSION)}`,
          streaming: true,
        }),
      }));
      return resultOf(ctx, run, ["stream", "streamed agentflow (Start → LLM), named session"], []);
    },
  },
  {
    name: "the widget's public flow without credentials: config, streams?, streamed prediction, one at a time (round trips)",
    async setup(ctx) {
      this.flowId = await flowAtStandin(
        ctx,
        "public",
        (flowData) => ({ name: "bench public", isPublic: true, flowData }),
        streamingFlowData,
      );
      return `public chatflow ${this.flowId}`;
    },
    async measure(ctx) {
      const id = this.flowId;
      const chatId = crypto.randomUUID(); // the widget's own, kept for the visitor's conversation
      const run = await rounds(ctx, Math.min(ctx.opts.requests, 100), async (i) => ({
        config: await timedGet(`${ctx.baseUrl}/public-chatbotConfig/${id}`),
        streams: await timedGet(`${ctx.baseUrl}/chatflows-streaming/${id}`),
        stream: await timedStream(
          `${ctx.baseUrl}/prediction/${id}`,
          { "content-type": "application/json" },
          { question: `${PHRASE} widget ${i}`, chatId, streaming: true },
          "prediction",
        ),
      }));
      return resultOf(
        ctx,
        run,
        ["stream", "widget: streamed POST /prediction/{id}, no credentials"],
        [
          ["config", "widget: GET /public-chatbotConfig/{id}"],
          ["streams", "widget: GET /chatflows-streaming/{id}"],
        ],
      );
    },
  },
];
