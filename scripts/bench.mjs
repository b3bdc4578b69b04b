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
// Later issues add ingestion / query / streaming scenarios by appending objects to the list.
//
// Options (also BENCH_REQUESTS, BENCH_CONCURRENCY, BENCH_WARMUP, BENCH_ONLY):
//   --requests N      measured requests per scenario (default 2000)
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
    if (opts.warmup > 0) await load(ctx, s, opts.warmup, 0);
    const r = await load(ctx, s, opts.requests, opts.warmup);
    const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
    if (failed > 0) console.log(`bench:   ${failed} of ${r.requests} requests failed: ${JSON.stringify(r.failures)}`);
    results.push({ name: s.name, ...r, note });
  }

  await stopServer();

  const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "–");
  const lines = [
    "| scenario | req/s | p50 ms | p90 ms | p99 ms | failed |",
    "|---|---:|---:|---:|---:|---:|",
    ...results.map((r) =>
      r.skipped
        ? `| ${r.name} | skipped | | | | |`
        : `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p90)} | ${fmt(r.p99)} | ${Object.values(r.failures).reduce((a, b) => a + b, 0)} |`,
    ),
  ];
  console.log(`\n${lines.join("\n")}\n`);
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
