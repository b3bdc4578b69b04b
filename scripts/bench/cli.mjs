// `npm run bench [-- --requests N --concurrency C --warmup W --only <name,...> --server start|dev]`
//
// Starts the local server (by default `npm start`: the built worker without wrangler's dev proxy;
// `--server dev` measures `npm run dev` instead) on a free port, with its state in a fresh
// temporary directory (`--persist-to`, used for the migrations, the seeding and the server alike,
// so the developer's .wrangler state is never touched), then measures each scenario with an
// in-process HTTP load loop and prints requests/s and p50/p90/p99 latency as markdown tables; the
// figures also go to bench-results.json.
//
// Files: server.mjs (the server under test), load.mjs (HTTP client, request loop, helpers),
// scenarios/ (what is measured: crud, streaming, documents, the round trips before a first token …),
// report.mjs (tables, JSON).
//
// Options (also BENCH_REQUESTS, BENCH_CONCURRENCY, BENCH_WARMUP, BENCH_ONLY, BENCH_SERVER):
//   --requests N      measured requests per scenario (default 2000)
//   --streams N       streams per side (stand-in, edgeflow) in each streaming scenario
//                     (default 200 at 1 stream in flight, 500 at 50)
//   --concurrency C   requests in flight at once (default 8)
//   --warmup W        unmeasured requests first (default 100)
//   --only a,b        run only the scenarios whose name contains one of these strings
//   --server S        start (default) or dev
//   --server-log-level <lvl>  the server's --log-level (default "warn": no per-request log line)
//   --port P          the server's port (default: a free one)
//   --keep            keep the temporary state directory (its path is printed)
//   --no-assets       serve the worker without the static-asset layer in front of /api/* (npm start
//                     --no-assets): the CPU figures then leave out the local asset router, which
//                     deployed runs before the worker and outside its CPU time
//   --stream-tokens N tokens per streamed answer in the streaming scenarios and the stream's floor
//                     (default 20; two runs, e.g. 20 and 60, give the CPU each token costs)
//   --only ingest     large-file ingestion (1, 19 and 100 MB text: chunks/s, peak memory;
//                     scenarios/ingestion.mjs): runs only when asked for by name
//   --d1-rtt MS       the simulated planet (src/db/simulated.ts): MS added to each D1 round trip to
//   --d1-replica-rtt MS  the primary / to a replica (D1_SIMULATED_RTT_MS, D1_SIMULATED_REPLICA_RTT_MS
//                     in the server's .dev.vars); each scenario then also reports its round trips
//                     before the response head, the first token and the end (0 counts them undelayed)
//
// Every scenario reports the server's CPU time per request (cpu.mjs: the workerd processes' on-CPU
// time over the measured requests, local D1 included).
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { root } from "../lib/local.mjs";
import { Skip, clientName, initClient, load, makeApi, probeOneAtATime } from "./load.mjs";
import { printResults, writeResults } from "./report.mjs";
import { ADMIN_API_KEY, BenchServer, freePort, removeDir, snapshot } from "./server.mjs";

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
  only: (option("only", "BENCH_ONLY", "") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
  streams:
    option("streams", "BENCH_STREAMS", undefined) === undefined ? undefined : positiveInt(option("streams", "BENCH_STREAMS"), "streams"),
  server: option("server", "BENCH_SERVER", "start"),
  serverLogLevel: option("server-log-level", "BENCH_SERVER_LOG_LEVEL", "warn"),
  keep: process.argv.includes("--keep"),
  assets: !process.argv.includes("--no-assets"),
  streamTokens: option("stream-tokens", "BENCH_STREAM_TOKENS", undefined),
  port: option("port", "BENCH_PORT", undefined),
  d1Rtt: option("d1-rtt", "BENCH_D1_RTT", undefined),
  d1ReplicaRtt: option("d1-replica-rtt", "BENCH_D1_REPLICA_RTT", undefined),
};
opts.simulated = opts.d1Rtt !== undefined || opts.d1ReplicaRtt !== undefined;
if (opts.simulated) {
  opts.d1Rtt = positiveInt(opts.d1Rtt ?? "0", "d1-rtt");
  opts.d1ReplicaRtt = positiveInt(opts.d1ReplicaRtt ?? "0", "d1-replica-rtt");
}

// The streaming scenarios read their token count when loaded, so they load after the options.
if (opts.streamTokens !== undefined) {
  if (positiveInt(opts.streamTokens, "stream-tokens") < 1) throw new Error("bench: --stream-tokens must be at least 1");
  process.env.BENCH_STREAM_TOKENS = opts.streamTokens;
}
const { SCENARIOS } = await import("./scenarios/index.mjs");

const state = { dir: undefined, server: undefined };
const cleanups = []; // in-process helpers a scenario started (the model stand-in), stopped at the end

function cleanupSync() {
  state.server?.killNow();
  if (state.dir && !opts.keep) {
    removeDir(state.dir);
    state.dir = undefined;
  }
}

async function main() {
  const named = (s) => opts.only.some((o) => s.name.toLowerCase().includes(o.toLowerCase()));
  // Opt-in scenarios (minutes long) run only when --only names them.
  const scenarios = SCENARIOS.filter((s) => (opts.only.length === 0 && !s.optIn) || named(s));
  if (scenarios.length === 0) throw new Error(`bench: no scenario matches --only ${opts.only.join(",")}`);
  await initClient(opts.concurrency);

  state.dir = mkdtempSync(join(tmpdir(), "edgeflow-bench-"));
  const app = join(state.dir, "app");
  snapshot(app);
  if (opts.simulated) {
    // The server reads its secrets and extra vars from .dev.vars (scripts/lib/serve.mjs).
    const example = readFileSync(join(root, ".dev.vars.example"), "utf8");
    writeFileSync(
      join(app, ".dev.vars"),
      `${example}\nD1_SIMULATED_RTT_MS=${opts.d1Rtt}\nD1_SIMULATED_REPLICA_RTT_MS=${opts.d1ReplicaRtt}\n`,
    );
  }
  // A scenario that reads the isolate's heap needs the server's V8 inspector.
  const inspectorPort = scenarios.some((s) => s.inspector) ? await freePort() : undefined;
  const server = new BenchServer({
    app,
    stateDir: join(state.dir, "state"),
    logFile: join(state.dir, "server.log"),
    kind: opts.server,
    logLevel: opts.serverLogLevel,
    inspectorPort,
    assets: opts.assets,
  });
  state.server = server;
  const persist = ["--local", "--env", "local", "--persist-to", server.stateDir];
  console.log(
    `bench: server \`npm ${opts.server === "dev" ? "run dev" : "start"}\`, state in ${state.dir} (temporary), client: ${clientName}, ` +
      `concurrency ${opts.concurrency}, ${opts.warmup} warm-up + ${opts.requests} requests per scenario` +
      (opts.simulated ? `, simulated D1 round trips: primary ${opts.d1Rtt} ms, replica ${opts.d1ReplicaRtt} ms` : "") +
      (opts.assets ? "" : ", without the asset layer (--no-assets)"),
  );

  // Migrations first (the server script would apply them too, but the seed needs the tables now).
  server.wrangler(["d1", "migrations", "apply", "DB", ...persist], "wrangler d1 migrations apply");

  const port = opts.port === undefined ? await freePort() : positiveInt(opts.port, "port");
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const ctx = {
    baseUrl,
    port,
    inspectorPort,
    get serverPid() {
      return server.pid;
    },
    opts,
    onCleanup: (fn) => cleanups.push(fn),
    apiKey: undefined,
    api: undefined,
    simulated: opts.simulated,
    /** The server's CPU ms so far (NaN where it cannot be read). */
    cpuMs: () => server.cpu.read(),
    log: (...a) => console.log(...a),
    d1Execute(sql) {
      const file = join(state.dir, `seed-${randomUUID()}.sql`);
      writeFileSync(file, sql);
      server.wrangler(["d1", "execute", "DB", ...persist, "--yes", "--file", file], "wrangler d1 execute");
      rmSync(file, { force: true });
    },
    async withServerStopped(fn) {
      await server.stop();
      await fn();
      await server.start(port);
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
  await server.start(port);
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
    if (opts.warmup > 0) await load(ctx, s, opts.warmup, 0, opts.concurrency);
    const cpu0 = s.request(ctx, 0).url ? NaN : ctx.cpuMs(); // another server's requests are not ours
    const r = await load(ctx, s, opts.requests, opts.warmup, opts.concurrency);
    r.cpuMsPerRequest = (ctx.cpuMs() - cpu0) / r.requests;
    Object.assign(r, await probeOneAtATime(ctx, s, opts.warmup + opts.requests));
    const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
    if (failed > 0) console.log(`bench:   ${failed} of ${r.requests} requests failed: ${JSON.stringify(r.failures)}`);
    results.push({ name: s.name, ...r, note });
  }

  await server.stop();
  for (const fn of cleanups.splice(0)) await fn();

  printResults(results);
  const meta = {
    server: opts.server,
    client: clientName,
    concurrency: opts.concurrency,
    warmup: opts.warmup,
    requestsPerScenario: opts.requests,
    simulatedD1: opts.simulated ? { primaryMs: opts.d1Rtt, replicaMs: opts.d1ReplicaRtt } : null,
  };
  console.log(`bench: figures written to ${writeResults(root, meta, results)}`);
  return results.some((r) => !r.skipped && Object.keys(r.failures).length > 0) ? 1 : 0;
}

process.on("exit", cleanupSync);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    console.error(`bench: ${signal}, stopping the server`);
    cleanupSync();
    process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
  });
}

let code = 1;
try {
  code = await main();
} catch (err) {
  console.error(err instanceof Error ? `bench: ${err.message}` : err);
  code = 1;
} finally {
  await state.server?.stop().catch(() => {});
  if (opts.keep && state.dir) console.log(`bench: kept ${state.dir}`);
  cleanupSync();
}
process.exit(code);
