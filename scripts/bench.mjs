// `npm run bench [-- --requests N --concurrency C --warmup W --only <name,...>]`
//
// Starts the local server the way `npm run dev` does (scripts/dev.mjs, local D1/R2) on a free
// port, with its state in a fresh temporary directory (`--persist-to`, used for the migrations,
// the seeding and the server alike, so the developer's .wrangler state is never touched), then
// measures each scenario with an in-process HTTP load loop and prints requests/s and p50/p90/p99
// latency as a markdown table; the figures also go to bench-results.json.
//
// The server runs from a snapshot of the working tree taken at start (node_modules linked, not
// copied): `wrangler dev` rebuilds the worker whenever a file under src/ changes and holds
// requests while a build is broken, so editing the project during a run would otherwise skew or
// stall the figures. The snapshot's .dev.vars comes from .dev.vars.example (its ADMIN_API_KEY is
// the one used here to create the benchmark's API key).
//
// A scenario is an object in SCENARIOS below:
//   name                  the row label
//   seedSql?(ctx)         SQL to load straight into local D1 before the server starts (optional)
//   setup?(ctx)           runs against the live server before measuring; a 404 from the API (a
//                         route not built yet) skips the scenario with its message
//   request(ctx, i)       the i-th request: {method, path, body?}; i is unique within a scenario
//                         (warm-up requests included)
//   measure?(ctx)         instead of the request loop: measures the scenario itself and answers
//                         {streaming: {...}, failures: {...}} (the streaming scenarios below)
// Later issues add ingestion / query / streaming scenarios by appending objects to the list.
//
// Streaming scenarios (`--only streaming`): the OpenAI-compatible stand-in of the tests
// (test/standin/server.mjs) is started in this process; its "[bench:N:D]" answer is N numbered
// tokens, each D ms after the previous one. The same stream is timed straight from the stand-in
// and through edgeflow (POST /prediction/{id} with streaming: true, an llmChain whose chatOpenAI
// basepath is the stand-in): the time to the first token and to the whole answer, and the
// difference — what edgeflow adds — at 1 and at 50 streams in flight. Every stream through
// edgeflow is checked token by token (none dropped, none reordered, start … metadata, end). The
// /ping floor is timed alongside, since wrangler dev's own proxy hop is part of every figure.
//
// Options (also BENCH_REQUESTS, BENCH_CONCURRENCY, BENCH_WARMUP, BENCH_ONLY):
//   --requests N      measured requests per scenario (default 2000)
//   --streams N       streams per side (stand-in, edgeflow) in each streaming scenario
//                     (default 200 at 1 stream in flight, 500 at 50)
//   --concurrency C   requests in flight at once (default 8)
//   --warmup W        unmeasured requests first (default 100)
//   --only a,b        run only the scenarios whose name contains one of these strings
//   --server-log-level <lvl>  wrangler dev's --log-level (default "warn": no per-request log line)
//   --keep            keep the temporary state directory (its path is printed)
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const REQUEST_TIMEOUT_MS = 30_000; // no request may stall the run

// ---------------------------------------------------------------------------------------------
// Options

function option(name, envName, fallback) {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === `--${name}`) return argv[i + 1];
    if (argv[i].startsWith(`--${name}=`)) return argv[i].slice(name.length + 3);
  }
  return process.env[envName] ?? fallback;
}
const positiveInt = (v, name) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`bench: --${name} must be a whole number, got ${v}`);
  return n;
};
const opts = {
  requests: positiveInt(option("requests", "BENCH_REQUESTS", "2000"), "requests"),
  concurrency: Math.max(1, positiveInt(option("concurrency", "BENCH_CONCURRENCY", "8"), "concurrency")),
  warmup: positiveInt(option("warmup", "BENCH_WARMUP", "100"), "warmup"),
  only: (option("only", "BENCH_ONLY", "") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  streams: option("streams", "BENCH_STREAMS", undefined) === undefined ? undefined : positiveInt(option("streams", "BENCH_STREAMS"), "streams"),
  serverLogLevel: option("server-log-level", "BENCH_SERVER_LOG_LEVEL", "warn"),
  keep: process.argv.includes("--keep"),
};

const ADMIN_API_KEY = (() => {
  const line = readFileSync(join(root, ".dev.vars.example"), "utf8").split("\n").find((l) => l.startsWith("ADMIN_API_KEY="));
  return line ? line.slice("ADMIN_API_KEY=".length).trim() : "edgeflow-dev-admin-key";
})();

// ---------------------------------------------------------------------------------------------
// Fixtures

/** A realistic small Flowise graph (chat model + memory + conversation chain), about 2 KB. */
function flowData(n) {
  const node = (id, label, name, type, category, baseClasses, x, y, inputs) => ({
    id, position: { x, y }, type: "customNode", width: 300, height: 480,
    data: {
      id, label, version: 2, name, type, baseClasses, category,
      inputs,
      outputAnchors: [{ id: `${id}-output-${name}-${baseClasses.join("|")}`, name, label, type: baseClasses.join(" | ") }],
      outputs: {},
    },
    selected: false,
  });
  const nodes = [
    node("chatOpenAI_0", "ChatOpenAI", "chatOpenAI", "ChatOpenAI", "Chat Models", ["ChatOpenAI", "BaseChatModel"], 400, 100,
      { modelName: "gpt-4o-mini", temperature: 0.7, maxTokens: "", streaming: true, basepath: "" }),
    node("bufferMemory_0", "Buffer Memory", "bufferMemory", "BufferMemory", "Memory", ["BufferMemory", "BaseMemory"], 400, 600,
      { sessionId: "", memoryKey: "chat_history" }),
    node("conversationChain_0", "Conversation Chain", "conversationChain", "ConversationChain", "Chains", ["ConversationChain", "LLMChain", "BaseChain"], 900, 300,
      { model: "{{chatOpenAI_0.data.instance}}", memory: "{{bufferMemory_0.data.instance}}",
        systemMessagePrompt: `You are a helpful assistant for benchmark flow number ${n}. Answer briefly and politely.` }),
  ];
  const edge = (source, target, handle) => ({
    source, sourceHandle: `${source}-output`, target, targetHandle: `${target}-input-${handle}`, type: "buttonedge", id: `${source}-${target}-${handle}`,
  });
  const edges = [edge("chatOpenAI_0", "conversationChain_0", "model"), edge("bufferMemory_0", "conversationChain_0", "memory")];
  return JSON.stringify({ nodes, edges, viewport: { x: 0, y: 0, zoom: 0.8 } });
}

const sqlString = (s) => (s === null || s === undefined ? "NULL" : `'${String(s).replaceAll("'", "''")}'`);

class Skip extends Error {}

/** Throws Skip on 404 (a route or record that is not there yet), Error on any other failure. */
function expectOk(res, what) {
  if (res.status >= 200 && res.status < 300) return res.json;
  const message = res.json?.message ?? res.text.slice(0, 200);
  if (res.status === 404) throw new Skip(`${what} answered 404 (${message})`);
  throw new Error(`${what} answered ${res.status}: ${message}`);
}

/** Runs fn over items with at most `limit` calls in flight. */
async function inParallel(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---------------------------------------------------------------------------------------------
// Scenarios

const MESSAGES = 5000;
const CHAT_IDS = 100;
const MESSAGE_DAY0 = Date.parse("2026-11-01T00:00:00.000Z");
const MESSAGE_STEP_MS = 5 * 60 * 1000; // 5,000 messages five minutes apart: about 17 days
const RANGE = { startDate: "2026-11-04T00:00:00.000Z", endDate: "2026-11-14T00:00:00.000Z" };

// ---------------------------------------------------------------------------------------------
// Streaming: the stand-in's own timing versus the same stream through edgeflow

const STREAM_TOKENS = 20; // tokens per answer
const STREAM_DELAY_MS = 5; // the stand-in's pause before each token, the first included
const STREAM_CONCURRENCY = 50;
const BENCH_PHRASE = `[bench:${STREAM_TOKENS}:${STREAM_DELAY_MS}]`;
const EXPECTED_TOKENS = Array.from({ length: STREAM_TOKENS }, (_, i) => `tok${i + 1} `); // as the stand-in sends them

/** One stand-in and one chatflow pointed at it, shared by the streaming scenarios. */
const streamingSetup = {
  promise: undefined,
  async get(ctx) {
    this.promise ??= (async () => {
      const { startStandin } = await import("../test/standin/server.mjs");
      const standin = await startStandin();
      ctx.onCleanup(() => standin.close());
      const cred = expectOk(
        await ctx.api("POST", "/credentials", { name: "bench stand-in", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-bench" } }),
        "POST /credentials",
      );
      const flow = expectOk(
        await ctx.api("POST", "/chatflows", { name: "bench streaming", flowData: streamingFlowData(`${standin.url}/v1`, cred.id) }),
        "POST /chatflows",
      );
      if (flow.warning) throw new Error(`the streaming chatflow would not run: ${flow.warning}`);
      const probe = expectOk(await ctx.api("GET", `/chatflows-streaming/${flow.id}`), "GET /chatflows-streaming/{id}");
      if (!probe.isStreaming) throw new Error("the streaming chatflow does not stream");
      return { standin, flowId: flow.id };
    })();
    return this.promise;
  },
};

/** llmChain ← promptTemplate ("{product}" = the question) + chatOpenAI (basepath = the stand-in). */
function streamingFlowData(basepath, credentialId) {
  const node = (id, name, category, inputs, extra = {}) => ({
    id, type: "customNode", position: { x: 0, y: 0 },
    data: { id, label: name, name, category, inputs, outputs: {}, ...extra },
  });
  const nodes = [
    node("chatOpenAI_0", "chatOpenAI", "Chat Models", { modelName: "gpt-4o-mini", temperature: 0, streaming: true, basepath }, { credential: credentialId }),
    node("promptTemplate_0", "promptTemplate", "Prompts", { template: "{product}", promptValues: JSON.stringify({ product: "{{question}}" }) }),
    node("llmChain_0", "llmChain", "Chains", { model: "{{chatOpenAI_0.data.instance}}", prompt: "{{promptTemplate_0.data.instance}}" }, { outputs: { output: "llmChain" } }),
  ];
  const edges = [
    { id: "e1", source: "chatOpenAI_0", sourceHandle: "chatOpenAI_0-output", target: "llmChain_0", targetHandle: "llmChain_0-input-model-BaseLanguageModel" },
    { id: "e2", source: "promptTemplate_0", sourceHandle: "promptTemplate_0-output", target: "llmChain_0", targetHandle: "llmChain_0-input-prompt-BasePromptTemplate" },
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
  const [url, headers, body] = kind === "direct"
    ? [`${setup.standin.url}/v1/chat/completions`, { "content-type": "application/json" },
      { model: "gpt-4o-mini", stream: true, temperature: 0, messages: [{ role: "user", content: question }] }]
    : [`${ctx.baseUrl}/prediction/${setup.flowId}`, { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
      { question, streaming: true }];
  const out = { ttft: NaN, total: NaN, modelAt: NaN, tokens: [], events: [], status: 0, error: undefined };
  const t0 = performance.now();
  try {
    const res = await httpFetch(url, {
      method: "POST", headers, body: JSON.stringify(body), dispatcher: await streamAgent() ?? undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    out.status = res.status;
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

const stats = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
};

function streamingScenario(concurrency, defaultStreams) {
  return {
    name: `POST /prediction/{id} streaming, ${concurrency} stream${concurrency > 1 ? "s" : ""} in flight (${STREAM_TOKENS} tokens, ${STREAM_DELAY_MS} ms apart)`,
    async setup(ctx) {
      this.ctx = await streamingSetup.get(ctx);
      return `stand-in ${this.ctx.standin.url}, chatflow ${this.ctx.flowId}`;
    },
    async measure(ctx) {
      const setup = this.ctx;
      const streams = opts.streams ?? defaultStreams;
      const warm = Math.min(opts.warmup, 2 * concurrency + 10);
      let next = 0;
      // Alternate batches of each side, so both see the same machine; 2 × concurrency per batch.
      const run = async (kind, count) => {
        const results = [];
        await inParallel(Array.from({ length: count }, () => next++), concurrency, async (i) => {
          results.push(await streamOnce(kind, ctx, setup, i));
        });
        return results;
      };
      const floor = async (count) => {
        const times = [];
        await inParallel(Array.from({ length: count }), concurrency, async () => {
          const t0 = performance.now();
          const res = await httpFetch(`${ctx.baseUrl}/ping`, { dispatcher: await streamAgent() ?? undefined, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
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
      for (let done = 0; done < streams; done += batch) {
        const n = Math.min(batch, streams - done);
        direct.push(...(await run("direct", n)));
        edgeflow.push(...(await run("edgeflow", n)));
        ping.push(...(await floor(Math.min(n, 2 * concurrency))));
      }

      const failures = {};
      const count = (key) => { failures[key] = (failures[key] ?? 0) + 1; };
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
      return { requests: 2 * streams, failures, streaming };
    },
  };
}

// Document store scenarios: sizes and runs.
const DOC_BENCH = { ingestMb: 5, ingestRuns: 3, queryChunks: 10_000, queryRequests: 300, timeoutMs: 600_000 };

/** Deterministic prose-like text of about `bytes` characters: pseudo-words, sentences, paragraphs. */
function benchText(bytes, seed) {
  let x = seed >>> 0 || 1;
  const rand = () => {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
  const syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "qui", "an", "po", "ser", "lin", "ga", "mo", "tra", "el", "bri", "nu", "zo"];
  const vocabulary = Array.from({ length: 4000 }, (_, i) => {
    let w = "";
    for (let k = 0, n = 2 + (i % 3); k < n; k++) w += syllables[Math.floor(((i + 1) * (k + 7) * 2654435761) % 4294967296 / 4294967296 * syllables.length)];
    return w + (i % 10);
  });
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const sentences = [];
    for (let s = 0, n = 3 + Math.floor(rand() * 4); s < n; s++) {
      const words = [];
      for (let w = 0, m = 6 + Math.floor(rand() * 10); w < m; w++) words.push(vocabulary[Math.floor(Math.pow(rand(), 2) * vocabulary.length)]);
      sentences.push(words.join(" ") + ".");
    }
    const paragraph = sentences.join(" ");
    parts.push(paragraph);
    size += paragraph.length + 2;
  }
  return parts.join("\n\n").slice(0, bytes);
}

const SCENARIOS = [
  {
    // The floor: wrangler dev's own request path (its proxy into workerd) with no D1 and no auth.
    // What an endpoint costs edgeflow is its figure minus this one.
    name: "GET /ping (floor: no auth, no D1)",
    request: () => ({ method: "GET", path: "/ping" }),
  },
  {
    name: "GET /chatflows (200 stored)",
    async setup(ctx) {
      const probe = await ctx.api("GET", "/chatflows");
      expectOk(probe, "GET /chatflows");
      const existing = Array.isArray(probe.json) ? probe.json.length : 0;
      await inParallel(Array.from({ length: Math.max(0, 200 - existing) }, (_, i) => i), 8, async (i) => {
        expectOk(await ctx.api("POST", "/chatflows", { name: `bench flow ${i}`, flowData: flowData(i) }), "POST /chatflows");
      });
      const list = expectOk(await ctx.api("GET", "/chatflows"), "GET /chatflows");
      return `${Array.isArray(list) ? list.length : "?"} chatflows, flowData ${flowData(0).length} B each`;
    },
    request: () => ({ method: "GET", path: "/chatflows" }),
  },
  {
    name: "POST /variables",
    async setup(ctx) {
      this.run = randomUUID().slice(0, 8);
      expectOk(await ctx.api("POST", "/variables", { name: `bench_${this.run}_setup`, value: "x", type: "static" }), "POST /variables");
    },
    request(ctx, i) {
      return { method: "POST", path: "/variables", body: { name: `bench_${this.run}_${i}`, value: `value ${i}`, type: "static" } };
    },
  },
  {
    name: `GET /chatmessage/{id} (${MESSAGES} stored, chatId + DESC + date range)`,
    chatflowId: randomUUID(),
    chatIds: Array.from({ length: CHAT_IDS }, () => randomUUID()),
    seedSql() {
      // Messages alternate user / API within each chat; the chats interleave over ~17 days.
      const rows = [];
      for (let m = 0; m < MESSAGES; m++) {
        const chatId = this.chatIds[Math.floor(m / 2) % CHAT_IDS];
        const user = m % 2 === 0;
        const created = new Date(MESSAGE_DAY0 + m * MESSAGE_STEP_MS).toISOString();
        const content = user
          ? `Question ${m}: how do I configure the retriever for document store ${m % 17}?`
          : `Answer ${m}: open the document store, choose a loader and a splitter, then upsert. The retriever uses the top 4 chunks by similarity.`;
        rows.push(`(${[randomUUID(), user ? "userMessage" : "apiMessage", this.chatflowId, content, "EXTERNAL", chatId, chatId, null, created].map(sqlString).join(", ")})`);
      }
      const statements = [];
      for (let i = 0; i < rows.length; i += 100) {
        statements.push(
          "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, memoryType, createdDate) VALUES\n" +
            rows.slice(i, i + 100).join(",\n") + ";",
        );
      }
      return statements.join("\n");
    },
    async setup(ctx) {
      // The messages were loaded before the server started, under an id chosen here; the
      // chatflow is created through the API with that id (a create may carry its own id).
      const created = expectOk(
        await ctx.api("POST", "/chatflows", { id: this.chatflowId, name: "bench chat history", flowData: flowData(9999) }),
        "POST /chatflows",
      );
      if (created?.id !== this.chatflowId) {
        // The server chose its own id: move the seeded messages over (D1 is written while the
        // server is stopped, as for the seeding itself).
        ctx.log(`  chatflow id ${this.chatflowId} was not kept (got ${created?.id}); moving the seeded messages`);
        await ctx.withServerStopped(() =>
          ctx.d1Execute(`UPDATE chat_message SET chatflowid = ${sqlString(created.id)} WHERE chatflowid = ${sqlString(this.chatflowId)};`),
        );
        this.chatflowId = created.id;
      }
      const sample = expectOk(await ctx.api("GET", this.path(0)), "GET /chatmessage/{id}");
      const count = Array.isArray(sample) ? sample.length : Array.isArray(sample?.data) ? sample.data.length : "?";
      return `${count} messages per answer (one chat of ${MESSAGES / CHAT_IDS}, inside the date range)`;
    },
    path(i) {
      const q = new URLSearchParams({ chatId: this.chatIds[i % CHAT_IDS], order: "DESC", ...RANGE });
      return `/chatmessage/${this.chatflowId}?${q}`;
    },
    request(ctx, i) {
      return { method: "GET", path: this.path(i) };
    },
  },
  {
    name: "GET /tools/{id} (baseline)",
    async setup(ctx) {
      const tool = expectOk(
        await ctx.api("POST", "/tools", {
          name: "bench_weather",
          description: "Returns the weather for a city",
          color: "linear-gradient(rgb(117,118,129), rgb(230,10,250))",
          schema: JSON.stringify([{ id: 0, property: "city", description: "City name", type: "string", required: true }]),
          func: "const res = await fetch(`https://example.com/weather?city=${$city}`);\nreturn await res.text();",
        }),
        "POST /tools",
      );
      this.toolId = tool.id;
    },
    request() {
      return { method: "GET", path: `/tools/${this.toolId}` };
    },
  },
  streamingScenario(1, 200),
  streamingScenario(STREAM_CONCURRENCY, 10 * STREAM_CONCURRENCY),
  {
    // A 5 MB text file through the whole local pipeline: multipart upload → R2, split (Flowise's
    // default recursive splitter, 1000/200), local hash embeddings, local D1 vector store. Each
    // run ingests into a fresh store, one at a time; chunks/s is chunks over wall time.
    name: `POST /document-store/upsert (${DOC_BENCH.ingestMb} MB text file: split + local embed + local vector store)`,
    async setup(ctx) {
      this.text = benchText(DOC_BENCH.ingestMb * 1024 * 1024, 7);
      const probe = await ctx.api("GET", "/document-store/store");
      expectOk(probe, "GET /document-store/store");
      return `${(this.text.length / 1024 / 1024).toFixed(2)} MB, ${DOC_BENCH.ingestRuns} runs`;
    },
    async measure(ctx) {
      const times = [];
      const failures = {};
      let chunks = 0;
      for (let run = 0; run < DOC_BENCH.ingestRuns; run++) {
        const store = expectOk(await ctx.api("POST", "/document-store/store", { name: `bench ingest ${run}` }), "POST /document-store/store");
        // multipart/form-data written out by hand (undici's fetch and Node's FormData may differ).
        const boundary = `----edgeflow-bench-${randomUUID()}`;
        const part = (headers, body) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
        const body = part('Content-Disposition: form-data; name="files"; filename="bench.txt"\r\nContent-Type: text/plain', this.text) +
          part('Content-Disposition: form-data; name="embedding"', JSON.stringify({ name: "localHashEmbeddings" })) +
          part('Content-Disposition: form-data; name="vectorStore"', JSON.stringify({ name: "localVectorStore" })) +
          `--${boundary}--\r\n`;
        const t0 = performance.now();
        const res = await httpFetch(`${ctx.baseUrl}/document-store/upsert/${store.id}`, {
          method: "POST",
          headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": `multipart/form-data; boundary=${boundary}` },
          body,
          dispatcher,
          signal: AbortSignal.timeout(DOC_BENCH.timeoutMs),
        });
        const answer = await res.json().catch(() => ({}));
        const ms = performance.now() - t0;
        if (res.status !== 200) {
          failures[res.status] = (failures[res.status] ?? 0) + 1;
          console.log(`bench:   ingestion answered ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
          continue;
        }
        chunks = answer.numAdded;
        times.push(ms);
        console.log(`bench:   run ${run + 1}: ${chunks} chunks in ${(ms / 1000).toFixed(2)} s → ${Math.round(chunks / (ms / 1000))} chunks/s`);
      }
      const seconds = times.reduce((a, b) => a + b, 0) / 1000;
      const chunksPerSecond = seconds > 0 ? (chunks * times.length) / seconds : NaN;
      console.log(`bench:   ingestion: ${chunks} chunks per ${DOC_BENCH.ingestMb} MB file, ${Math.round(chunksPerSecond)} chunks/s (mean of ${times.length} runs)`);
      return { requests: times.length, seconds, rps: times.length / seconds, ...stats(times), failures, chunksPerUpsert: chunks, chunksPerSecond };
    },
  },
  {
    // Query latency over a store of 10,000 chunks (local embedder, local D1 vector store): the
    // query embeds, reads only this store's compact vectors, scores them in one pass, then reads
    // the top hits' text and chunk numbers. Sequential queries: the p50 of one query at a time.
    name: `POST /document-store/vectorstore/query (${DOC_BENCH.queryChunks.toLocaleString("en")} chunks stored, local, one at a time)`,
    async setup(ctx) {
      const store = expectOk(await ctx.api("POST", "/document-store/store", { name: "bench query" }), "POST /document-store/store");
      this.storeId = store.id;
      // One paragraph per chunk: 10,000 paragraphs of ~400 characters, split on blank lines.
      const paragraphs = Array.from({ length: DOC_BENCH.queryChunks }, (_, i) => benchText(400, 1000 + i).replace(/\n+/g, " "));
      this.queries = Array.from({ length: 64 }, (_, i) => paragraphs[(i * 157) % paragraphs.length].split(" ").slice(5, 12).join(" "));
      const t0 = performance.now();
      const res = await httpFetch(`${ctx.baseUrl}/document-store/upsert/${store.id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({
          loader: { name: "plainText", config: { text: paragraphs.join("\n\n") } },
          splitter: { name: "characterTextSplitter", config: { chunkSize: 600, chunkOverlap: 0, separator: "\n\n" } },
          embedding: { name: "localHashEmbeddings" },
          vectorStore: { name: "localVectorStore" },
        }),
        dispatcher,
        signal: AbortSignal.timeout(DOC_BENCH.timeoutMs),
      });
      const body = await res.json().catch(() => ({}));
      if (res.status !== 200) throw new Error(`upsert of the query corpus answered ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
      if (body.numAdded !== DOC_BENCH.queryChunks) throw new Error(`expected ${DOC_BENCH.queryChunks} chunks, got ${body.numAdded}`);
      return `${body.numAdded} chunks upserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`;
    },
    async measure(ctx) {
      const count = Math.min(opts.requests, DOC_BENCH.queryRequests);
      const times = [];
      const failures = {};
      let ranked = 0;
      for (let i = -Math.min(opts.warmup, 20); i < count; i++) {
        const q = this.queries[(i + 64) % this.queries.length];
        const t0 = performance.now();
        const res = await httpFetch(`${ctx.baseUrl}/document-store/vectorstore/query`, {
          method: "POST",
          headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ storeId: this.storeId, query: q, inputs: { topK: 4 } }),
          dispatcher,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = await res.json().catch(() => ({}));
        const ms = performance.now() - t0;
        if (i < 0) continue;
        if (res.status !== 200) {
          failures[res.status] = (failures[res.status] ?? 0) + 1;
          continue;
        }
        times.push(ms);
        // The paragraph the query words came from should rank first.
        if (body.docs?.[0]?.pageContent?.includes(q)) ranked++;
      }
      const seconds = times.reduce((a, b) => a + b, 0) / 1000;
      console.log(`bench:   the source paragraph ranked first for ${ranked} of ${times.length} queries`);
      return { requests: times.length, seconds, rps: times.length / seconds, ...stats(times), failures, sourceRankedFirst: ranked };
    },
  },
];


// ---------------------------------------------------------------------------------------------
// HTTP client: keep-alive connections, one per request in flight.

let httpFetch = globalThis.fetch;
let dispatcher;
let clientName = "global fetch";
try {
  const undici = await import("undici");
  dispatcher = new undici.Agent({ connections: opts.concurrency + 2, keepAliveTimeout: 30_000, pipelining: 1 });
  httpFetch = undici.fetch;
  clientName = "undici Agent (keep-alive)";
} catch {
  // Node's own fetch keeps connections alive too; only the pool size is not ours to choose.
}

function makeApi(baseUrl, token) {
  return async (method, path, body, { auth = token } = {}) => {
    const headers = {};
    if (auth) headers.authorization = `Bearer ${auth}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await httpFetch(baseUrl + path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, text, json };
  };
}

// ---------------------------------------------------------------------------------------------
// Server (scripts/dev.mjs, in its own process group so workerd goes down with it)

const wranglerEnv = {
  ...process.env,
  PATH: [join(root, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter),
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
// For the one-shot d1 commands: wrangler answers its confirmation prompts by itself under CI.
const wranglerCliEnv = { ...wranglerEnv, CI: "true" };
const wrangler = join(root, "node_modules", ".bin", "wrangler");

const state = { dir: undefined, app: undefined, server: undefined, logFile: undefined };
const cleanups = []; // in-process helpers a scenario started (the model stand-in), stopped at the end

/** Copies the working tree (sources, config, migrations, scripts) to dir, linking node_modules. */
function snapshot(dir) {
  const skip = new Set(["node_modules", ".git", ".wrangler", ".dev.vars", "test", "dist", "bench-results.json", ".test-results.json"]);
  cpSync(root, dir, {
    recursive: true,
    filter: (src) => {
      const rel = src.slice(root.length + 1);
      return rel === "" || !skip.has(rel.split(/[\\/]/)[0]);
    },
  });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
}

function runWrangler(args, what) {
  const r = spawnSync(wrangler, args, { cwd: state.app, env: wranglerCliEnv, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    throw new Error(`${what} failed (exit ${r.status ?? r.signal}):\n${(r.stdout + r.stderr).split("\n").slice(-25).join("\n")}`);
  }
  return r.stdout;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

async function startServer(port) {
  const log = createWriteStream(state.logFile, { flags: "a" });
  await new Promise((r) => log.on("open", r));
  const args = [join(state.app, "scripts", "dev.mjs"), "--port", String(port), "--persist-to", join(state.dir, "state"),
    "--log-level", opts.serverLogLevel];
  const child = spawn(process.execPath, args, { cwd: state.app, env: wranglerEnv, stdio: ["ignore", log, log], detached: true });
  state.server = child;
  let exited = false;
  child.on("exit", () => { exited = true; });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited) break;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/ping`);
      if (res.ok && (await res.text()).trim() === "pong") return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const tail = readFileSync(state.logFile, "utf8").split("\n").slice(-30).join("\n");
  throw new Error(`the server did not answer /api/v1/ping (${exited ? "it exited" : "timed out"}). Log:\n${tail}`);
}

async function stopServer() {
  const child = state.server;
  if (!child) return;
  state.server = undefined;
  if (child.exitCode !== null || child.signalCode !== null) {
    // dev.mjs is gone; make sure nothing of its group stayed behind.
    try { process.kill(-child.pid, "SIGKILL"); } catch {}
    return;
  }
  const gone = new Promise((r) => child.once("exit", r));
  try { process.kill(-child.pid, "SIGTERM"); } catch {}
  const timer = setTimeout(() => { try { process.kill(-child.pid, "SIGKILL"); } catch {} }, 5000);
  await gone;
  clearTimeout(timer);
  // wrangler has stopped workerd by now; a straggler of the group gets no second chance.
  try { process.kill(-child.pid, "SIGKILL"); } catch {}
}

function cleanupSync() {
  if (state.server) {
    try { process.kill(-state.server.pid, "SIGKILL"); } catch {}
    state.server = undefined;
  }
  if (state.dir && !opts.keep) {
    rmSync(state.dir, { recursive: true, force: true });
    state.dir = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

async function load(ctx, scenario, count, firstIndex) {
  const latencies = [];
  const failures = new Map();
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = firstIndex + next++;
      const req = scenario.request(ctx, i);
      const t0 = performance.now();
      let status;
      try {
        const res = await httpFetch(ctx.baseUrl + req.path, {
          method: req.method,
          headers: { authorization: `Bearer ${ctx.apiKey}`, ...(req.body !== undefined ? { "content-type": "application/json" } : {}) },
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
          dispatcher,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch (err) {
        status = err.name === "TimeoutError" ? "timeout" : `error: ${err.cause?.code ?? err.message}`;
      }
      latencies.push(performance.now() - t0);
      if (!(typeof status === "number" && status >= 200 && status < 300)) failures.set(status, (failures.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, count) }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    seconds,
    rps: count / seconds,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    failures: Object.fromEntries(failures),
  };
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const scenarios = SCENARIOS.filter((s) => opts.only.length === 0 || opts.only.some((o) => s.name.toLowerCase().includes(o.toLowerCase())));
  if (scenarios.length === 0) throw new Error(`bench: no scenario matches --only ${opts.only.join(",")}`);

  state.dir = mkdtempSync(join(tmpdir(), "edgeflow-bench-"));
  state.logFile = join(state.dir, "server.log");
  state.app = join(state.dir, "app");
  snapshot(state.app);
  const persist = ["--local", "--env", "local", "--persist-to", join(state.dir, "state")];
  console.log(`bench: state in ${state.dir} (temporary), client: ${clientName}, concurrency ${opts.concurrency}, ` +
    `${opts.warmup} warm-up + ${opts.requests} requests per scenario`);

  // Migrations first (dev.mjs would apply them too, but the seed needs the tables now).
  runWrangler(["d1", "migrations", "apply", "DB", ...persist], "wrangler d1 migrations apply");

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const ctx = {
    baseUrl,
    port,
    onCleanup: (fn) => cleanups.push(fn),
    apiKey: undefined,
    api: undefined,
    log: (...a) => console.log(...a),
    d1Execute(sql) {
      const file = join(state.dir, `seed-${randomUUID()}.sql`);
      writeFileSync(file, sql);
      runWrangler(["d1", "execute", "DB", ...persist, "--yes", "--file", file], "wrangler d1 execute");
      rmSync(file, { force: true });
    },
    async withServerStopped(fn) {
      await stopServer();
      await fn();
      await startServer(port);
    },
  };

  // Straight-to-D1 seeding, before the server holds the database.
  for (const s of scenarios) {
    const sql = s.seedSql?.(ctx);
    if (sql) {
      const t0 = performance.now();
      ctx.d1Execute(sql);
      console.log(`bench: seeded D1 for "${s.name}" in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }

  const t0 = performance.now();
  await startServer(port);
  console.log(`bench: server up on ${baseUrl} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const admin = makeApi(baseUrl, ADMIN_API_KEY);
  const key = await admin("POST", "/apikey", { keyName: `bench-${Date.now()}` });
  if (key.status !== 200 || typeof key.json?.apiKey !== "string") {
    throw new Error(`POST /apikey answered ${key.status}: ${key.text.slice(0, 200)}`);
  }
  ctx.apiKey = key.json.apiKey;
  ctx.api = makeApi(baseUrl, ctx.apiKey);

  const results = [];
  for (const s of scenarios) {
    let note;
    try {
      note = await s.setup?.(ctx);
    } catch (err) {
      if (!(err instanceof Skip)) throw err;
      console.log(`bench: SKIP "${s.name}": ${err.message}`);
      results.push({ name: s.name, skipped: err.message });
      continue;
    }
    console.log(`bench: "${s.name}"${note ? ` — ${note}` : ""}`);
    if (s.measure) {
      const r = await s.measure(ctx);
      const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
      if (failed > 0) console.log(`bench:   problems: ${JSON.stringify(r.failures)}`);
      results.push({ name: s.name, ...r, note });
      continue;
    }
    if (opts.warmup > 0) await load(ctx, s, opts.warmup, 0);
    const r = await load(ctx, s, opts.requests, opts.warmup);
    const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
    if (failed > 0) console.log(`bench:   ${failed} of ${r.requests} requests failed: ${JSON.stringify(r.failures)}`);
    results.push({ name: s.name, ...r, note });
  }

  await stopServer();
  for (const fn of cleanups.splice(0)) await fn();

  const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "–");
  const lines = [
    "| scenario | req/s | p50 ms | p90 ms | p99 ms | failed |",
    "|---|---:|---:|---:|---:|---:|",
    ...results.filter((r) => !r.streaming).map((r) =>
      r.skipped
        ? `| ${r.name} | skipped | | | | |`
        : `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p90)} | ${fmt(r.p99)} | ${Object.values(r.failures).reduce((a, b) => a + b, 0)} |`,
    ),
  ];
  if (lines.length > 2) console.log(`\n${lines.join("\n")}\n`);
  const streamed = results.filter((r) => r.streaming);
  if (streamed.length) {
    const trio = (x) => `${fmt(x.p50)} / ${fmt(x.p90)} / ${fmt(x.p99)}`;
    const table = [
      "| streams in flight | streams | first token: stand-in | via edgeflow | added | whole answer: stand-in | via edgeflow | added | /ping floor | added p50 above the floor: first token, whole answer | streams with dropped / reordered tokens or bad frames |",
      "|---:|---:|---|---|---|---|---|---|---|---|---:|",
      ...streamed.map(({ streaming: x }) =>
        `| ${x.concurrency} | ${x.streams} | ${trio(x.standin.ttft)} | ${trio(x.edgeflow.ttft)} | ${trio(x.added.ttft)} | ` +
        `${trio(x.standin.total)} | ${trio(x.edgeflow.total)} | ${trio(x.added.total)} | ${trio(x.pingFloor)} | ` +
        `${fmt(x.addedAboveFloorP50.ttft)}, ${fmt(x.addedAboveFloorP50.total)} | ${x.streamsWithProblems.edgeflow} of ${x.streams} |`),
    ];
    console.log(`Streaming (ms, p50 / p90 / p99; ${STREAM_TOKENS} tokens ${STREAM_DELAY_MS} ms apart; "added" = via edgeflow − stand-in):\n`);
    console.log(`${table.join("\n")}\n`);
    const parts = [
      "| streams in flight | request → model call: stand-in direct | via edgeflow | added | model call → first token: direct | via edgeflow | added |",
      "|---:|---|---|---|---|---|---|",
      ...streamed.map(({ streaming: x }) =>
        `| ${x.concurrency} | ${trio(x.standin.toModel)} | ${trio(x.edgeflow.toModel)} | ${trio(x.added.toModel)} | ` +
        `${trio(x.standin.modelToFirstToken)} | ${trio(x.edgeflow.modelToFirstToken)} | ${trio(x.added.modelToFirstToken)} |`),
    ];
    console.log(`Where the first-token time goes (ms, p50 / p90 / p99):\n\n${parts.join("\n")}\n`);
  }
  const skipped = results.filter((r) => r.skipped);
  for (const r of skipped) console.log(`skipped: ${r.name}: ${r.skipped}`);

  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout?.trim() || null;
  const out = join(root, "bench-results.json");
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    commit,
    node: process.version,
    client: clientName,
    concurrency: opts.concurrency,
    warmup: opts.warmup,
    requestsPerScenario: opts.requests,
    results,
  }, null, 2) + "\n");
  console.log(`bench: figures written to ${out}`);
  return results.some((r) => !r.skipped && Object.keys(r.failures).length > 0) ? 1 : 0;
}

process.on("exit", cleanupSync);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    console.error(`bench: ${signal}, stopping the server`);
    cleanupSync();
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[signal]);
  });
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(err instanceof Error ? `bench: ${err.message}` : err);
  code = 1;
} finally {
  await stopServer().catch(() => {});
  if (opts.keep && state.dir) console.log(`bench: kept ${state.dir}`);
  cleanupSync();
}
process.exit(code);
