// Streaming scenarios: the stand-in's own timing versus the same stream through edgeflow.
//
// The OpenAI-compatible stand-in of the tests (test/standin/server.mjs) is started in this
// process; its "[bench:N:D]" answer is N numbered tokens, each D ms after the previous one. The
// same stream is timed straight from the stand-in and through edgeflow (POST /prediction/{id}
// with streaming: true, an llmChain whose chatOpenAI basepath is the stand-in): the time to the
// first token and to the whole answer, and the difference — what edgeflow adds — at 1 and at 50
// streams in flight. Every stream through edgeflow is checked token by token (none dropped, none
// reordered, start … metadata, end). The /ping floor is timed alongside: the server's own
// request path is part of every figure.
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, expectOk, httpFetch, inParallel, stats, tripsOf } from "../load.mjs";

export const STREAM_TOKENS = Number(process.env.BENCH_STREAM_TOKENS ?? 20); // tokens per answer (bench --stream-tokens)
export const STREAM_DELAY_MS = 5; // the stand-in's pause before each token, the first included
const STREAM_CONCURRENCY = 50;
export const BENCH_PHRASE = `[bench:${STREAM_TOKENS}:${STREAM_DELAY_MS}]`;
const EXPECTED_TOKENS = Array.from({ length: STREAM_TOKENS }, (_, i) => `tok${i + 1} `); // as the stand-in sends them

/** One stand-in and one chatflow pointed at it, shared by the streaming scenarios. */
export const streamingSetup = {
  promise: undefined,
  async get(ctx) {
    this.promise ??= (async () => {
      const { startStandin } = await import("../../../test/standin/server.mjs");
      const standin = await startStandin();
      ctx.onCleanup(() => standin.close());
      const cred = expectOk(
        await ctx.api("POST", "/credentials", {
          name: "bench stand-in",
          credentialName: "openAIApi",
          plainDataObj: { openAIApiKey: "sk-bench" },
        }),
        "POST /credentials",
      );
      const flow = expectOk(
        await ctx.api("POST", "/chatflows", { name: "bench streaming", flowData: streamingFlowData(`${standin.url}/v1`, cred.id) }),
        "POST /chatflows",
      );
      if (flow.warning) throw new Error(`the streaming chatflow would not run: ${flow.warning}`);
      const probe = expectOk(await ctx.api("GET", `/chatflows-streaming/${flow.id}`), "GET /chatflows-streaming/{id}");
      if (!probe.isStreaming) throw new Error("the streaming chatflow does not stream");
      return { standin, flowId: flow.id, credentialId: cred.id };
    })();
    return this.promise;
  },
};

/** llmChain ← promptTemplate ("{product}" = the question) + chatOpenAI (basepath = the stand-in). */
export function streamingFlowData(basepath, credentialId) {
  const node = (id, name, category, inputs, extra = {}) => ({
    id,
    type: "customNode",
    position: { x: 0, y: 0 },
    data: { id, label: name, name, category, inputs, outputs: {}, ...extra },
  });
  const nodes = [
    node(
      "chatOpenAI_0",
      "chatOpenAI",
      "Chat Models",
      { modelName: "gpt-4o-mini", temperature: 0, streaming: true, basepath },
      { credential: credentialId },
    ),
    node("promptTemplate_0", "promptTemplate", "Prompts", {
      template: "{product}",
      promptValues: JSON.stringify({ product: "{{question}}" }),
    }),
    node(
      "llmChain_0",
      "llmChain",
      "Chains",
      { model: "{{chatOpenAI_0.data.instance}}", prompt: "{{promptTemplate_0.data.instance}}" },
      { outputs: { output: "llmChain" } },
    ),
  ];
  const edges = [
    {
      id: "e1",
      source: "chatOpenAI_0",
      sourceHandle: "chatOpenAI_0-output",
      target: "llmChain_0",
      targetHandle: "llmChain_0-input-model-BaseLanguageModel",
    },
    {
      id: "e2",
      source: "promptTemplate_0",
      sourceHandle: "promptTemplate_0-output",
      target: "llmChain_0",
      targetHandle: "llmChain_0-input-prompt-BasePromptTemplate",
    },
  ];
  return JSON.stringify({ nodes, edges });
}

let streamDispatcher;
async function streamAgent() {
  if (streamDispatcher !== undefined) return streamDispatcher;
  try {
    const undici = await import("undici");
    streamDispatcher = new undici.Agent({ connections: STREAM_CONCURRENCY + 8, keepAliveTimeout: 30_000, pipelining: 1 });
  } catch {
    streamDispatcher = null;
  }
  return streamDispatcher;
}

/**
 * One streamed answer: when the first token and the end arrived (ms from the request), and the
 * tokens in order. `kind` "direct" reads OpenAI chunks from the stand-in, "edgeflow" Flowise frames.
 */
async function streamOnce(kind, ctx, setup, i) {
  const question = `${BENCH_PHRASE} stream ${i}`;
  const [url, headers, body] =
    kind === "direct"
      ? [
          `${setup.standin.url}/v1/chat/completions`,
          { "content-type": "application/json" },
          { model: "gpt-4o-mini", stream: true, temperature: 0, messages: [{ role: "user", content: question }] },
        ]
      : [
          `${ctx.baseUrl}/prediction/${setup.flowId}`,
          { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          { question, streaming: true },
        ];
  const out = { ttft: NaN, total: NaN, modelAt: NaN, tokens: [], events: [], status: 0, error: undefined };
  const t0 = performance.now();
  try {
    const res = await httpFetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      dispatcher: (await streamAgent()) ?? undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    out.status = res.status;
    out.requestId = res.headers.get("x-request-id");
    if (res.status !== 200) {
      out.error = `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`;
      return out;
    }
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of res.body) {
      buffered += decoder.decode(chunk, { stream: true });
      let cut;
      while ((cut = buffered.indexOf("\n\n")) >= 0) {
        const block = buffered.slice(0, cut);
        buffered = buffered.slice(cut + 2);
        const line = block.split("\n").find((l) => l.startsWith("data:"));
        if (!line) continue; // `:heartbeat`
        const payload = line.slice(5).trim();
        let token;
        if (kind === "direct") {
          if (payload === "[DONE]") continue;
          token = JSON.parse(payload).choices?.[0]?.delta?.content || undefined;
        } else {
          const frame = JSON.parse(payload);
          out.events.push(frame.event);
          if (frame.event === "token") token = frame.data;
          if (frame.event === "error") out.error = `error frame: ${frame.data}`;
        }
        if (token !== undefined) {
          if (!out.tokens.length) out.ttft = performance.now() - t0;
          out.tokens.push(token);
        }
      }
    }
    out.total = performance.now() - t0;
  } catch (err) {
    out.error = err.name === "TimeoutError" ? "timeout" : `error: ${err.cause?.code ?? err.message}`;
  }
  // When the model call reached the stand-in (same process, same clock).
  out.modelAt = (standinRecord(setup.standin, question)?.receivedAt ?? NaN) - t0;
  return out;
}

/** The stand-in's record of the request whose last message is `question` (indexed as they come). */
const standinIndex = { seen: 0, byQuestion: new Map() };
function standinRecord(standin, question) {
  for (; standinIndex.seen < standin.requests.length; standinIndex.seen++) {
    const r = standin.requests[standinIndex.seen];
    const last = r.body?.messages?.at?.(-1)?.content;
    if (typeof last === "string") standinIndex.byQuestion.set(last, r);
  }
  return standinIndex.byQuestion.get(question);
}

/** What is wrong with one stream's tokens and frames (empty when nothing). */
function streamProblems(kind, r) {
  const problems = [];
  if (r.error) problems.push(r.error);
  const missing = EXPECTED_TOKENS.filter((t) => !r.tokens.includes(t)).length;
  if (missing) problems.push("dropped");
  const extra = r.tokens.length - (EXPECTED_TOKENS.length - missing);
  if (extra > 0) problems.push("extra");
  const inOrder = r.tokens.filter((t) => EXPECTED_TOKENS.includes(t));
  if (inOrder.some((t, k) => k > 0 && EXPECTED_TOKENS.indexOf(t) < EXPECTED_TOKENS.indexOf(inOrder[k - 1]))) problems.push("reordered");
  if (kind === "edgeflow" && !r.error) {
    const e = r.events;
    const shape = e[0] === "start" && e.at(-1) === "end" && e.at(-2) === "metadata" && e.slice(1, -2).every((x) => x === "token");
    if (!shape) problems.push("frames");
  }
  return problems;
}

function streamingScenario(concurrency, defaultStreams) {
  return {
    name: `POST /prediction/{id} streaming, ${concurrency} stream${concurrency > 1 ? "s" : ""} in flight (${STREAM_TOKENS} tokens, ${STREAM_DELAY_MS} ms apart)`,
    async setup(ctx) {
      this.ctx = await streamingSetup.get(ctx);
      return `stand-in ${this.ctx.standin.url}, chatflow ${this.ctx.flowId}`;
    },
    async measure(ctx) {
      const setup = this.ctx;
      const streams = ctx.opts.streams ?? defaultStreams;
      const warm = Math.min(ctx.opts.warmup, 2 * concurrency + 10);
      let next = 0;
      // Alternate batches of each side, so both see the same machine; 2 × concurrency per batch.
      const run = async (kind, count) => {
        const results = [];
        await inParallel(
          Array.from({ length: count }, () => next++),
          concurrency,
          async (i) => {
            results.push(await streamOnce(kind, ctx, setup, i));
          },
        );
        return results;
      };
      const floor = async (count) => {
        const times = [];
        await inParallel(Array.from({ length: count }), concurrency, async () => {
          const t0 = performance.now();
          const res = await httpFetch(`${ctx.baseUrl}/ping`, {
            dispatcher: (await streamAgent()) ?? undefined,
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          await res.arrayBuffer();
          times.push(performance.now() - t0);
        });
        return times;
      };
      await run("direct", warm);
      await run("edgeflow", warm);
      await floor(warm);

      const direct = [];
      const edgeflow = [];
      const ping = [];
      const batch = Math.max(2 * concurrency, 20);
      let cpu = 0; // the server's CPU over the edgeflow batches only (the stand-in runs in this process)
      for (let done = 0; done < streams; done += batch) {
        const n = Math.min(batch, streams - done);
        direct.push(...(await run("direct", n)));
        const cpu0 = ctx.cpuMs();
        edgeflow.push(...(await run("edgeflow", n)));
        cpu += ctx.cpuMs() - cpu0;
        ping.push(...(await floor(Math.min(n, 2 * concurrency))));
      }

      const failures = {};
      const count = (key) => {
        failures[key] = (failures[key] ?? 0) + 1;
      };
      const problemsOf = (kind, list) => {
        let bad = 0;
        for (const r of list) {
          const p = streamProblems(kind, r);
          if (p.length) bad++;
          for (const x of p) count(`${kind}: ${x.startsWith("HTTP") || x.startsWith("error") || x === "timeout" ? x.slice(0, 60) : x}`);
        }
        return bad;
      };
      const badDirect = problemsOf("direct", direct);
      const badEdgeflow = problemsOf("edgeflow", edgeflow);
      const ok = (list, kind) => list.filter((r) => streamProblems(kind, r).length === 0);
      const timing = (list) => ({
        ttft: stats(list.map((r) => r.ttft)),
        total: stats(list.map((r) => r.total)),
        // request sent → the model call reaches the stand-in; then → the first token reaches the client
        toModel: stats(list.map((r) => r.modelAt)),
        modelToFirstToken: stats(list.map((r) => r.ttft - r.modelAt)),
      });
      const d = timing(ok(direct, "direct"));
      const e = timing(ok(edgeflow, "edgeflow"));
      const minus = (a, b) => ({ p50: a.p50 - b.p50, p90: a.p90 - b.p90, p99: a.p99 - b.p99 });
      const pingStats = stats(ping);
      const streaming = {
        concurrency,
        streams,
        tokensPerStream: STREAM_TOKENS,
        tokenDelayMs: STREAM_DELAY_MS,
        standin: d,
        edgeflow: e,
        added: {
          ttft: minus(e.ttft, d.ttft),
          total: minus(e.total, d.total),
          toModel: minus(e.toModel, d.toModel),
          modelToFirstToken: minus(e.modelToFirstToken, d.modelToFirstToken),
        },
        pingFloor: pingStats,
        // p50 only: a difference of percentiles of three distributions means little further out
        addedAboveFloorP50: { ttft: e.ttft.p50 - d.ttft.p50 - pingStats.p50, total: e.total.p50 - d.total.p50 - pingStats.p50 },
        streamsWithProblems: { standin: badDirect, edgeflow: badEdgeflow },
        tokensChecked: edgeflow.reduce((n, r) => n + r.tokens.length, 0),
      };
      const lastOk = ok(edgeflow, "edgeflow").at(-1);
      return {
        requests: 2 * streams,
        failures,
        streaming,
        cpuMsPerRequest: cpu / edgeflow.length,
        trips: await tripsOf(ctx, lastOk?.requestId),
      };
    },
  };
}

export const streamingScenarios = [streamingScenario(1, 200), streamingScenario(STREAM_CONCURRENCY, 10 * STREAM_CONCURRENCY)];
