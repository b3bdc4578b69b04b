// The runtime's own floor on this machine: a hello-world worker served the way `npm start` serves
// edgeflow (Miniflare's API, workerd listening itself), measured with the same client. It tells a
// slow machine from slow code: edgeflow's figures read best as multiples of it (the issue's
// 0.51 ms for plain workerd was taken on another machine). And a stream's floor: a bare worker
// that fetches the streaming scenarios' answer from the stand-in and writes one frame per chunk it
// reads, its workerd's CPU per stream measured as edgeflow's is (cpu.mjs) — what any worker pays
// for those tokens here, before edgeflow's own work.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { childWorkerdMeter } from "../cpu.mjs";
import { REQUEST_TIMEOUT_MS, httpFetch, stats } from "../load.mjs";
import { freePort } from "../server.mjs";
import { BENCH_PHRASE, STREAM_DELAY_MS, STREAM_TOKENS, streamingSetup } from "./streaming.mjs";

/** A bare worker copying an OpenAI-style stream (?to=, ?q=) chunk by chunk into frames of its own. */
const STREAM_COPY_WORKER = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: url.searchParams.get("q") }] });
    const upstream = await fetch(url.searchParams.get("to"), { method: "POST", headers: { "content-type": "application/json" }, body });
    const { readable, writable } = new IdentityTransformStream();
    (async () => {
      const writer = writable.getWriter();
      const reader = upstream.body.getReader();
      const decoder = new TextDecoder();
      const encoder = new TextEncoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        await writer.write(encoder.encode("data: " + JSON.stringify({ event: "token", data: text.length }) + "\\n\\n"));
      }
      await writer.close();
    })();
    return new Response(readable, { headers: { "content-type": "text/event-stream" } });
  },
};
`;

/** A Miniflare-served worker of one module (`source`), the way npm start serves edgeflow. */
async function serveWorker(ctx, name, source) {
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  const dir = mkdtempSync(join(tmpdir(), `edgeflow-bench-${name}-`));
  writeFileSync(join(dir, "index.js"), source);
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: await freePort(),
      cf: false,
      workers: [{ name, modulesRoot: dir, modules: [{ type: "ESModule", path: join(dir, "index.js") }], compatibilityDate: "2025-01-01" }],
    }),
  );
  const url = new URL("/", await mf.ready).href;
  ctx.onCleanup(async () => {
    await mf.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return url;
}

export const runtimeFloorScenarios = [
  {
    name: "GET / on a hello-world worker (workerd's own floor, not edgeflow)",
    async setup(ctx) {
      this.url = await serveWorker(ctx, "hello", 'export default { fetch: () => new Response("pong") };\n');
      return this.url;
    },
    request() {
      return { method: "GET", url: this.url };
    },
  },
  {
    name: `a ${STREAM_TOKENS}-token stream (${STREAM_DELAY_MS} ms apart) copied chunk by chunk by a bare worker, one at a time (workerd's floor for a stream, not edgeflow)`,
    async setup(ctx) {
      const { standin } = await streamingSetup.get(ctx);
      const meter = childWorkerdMeter();
      this.url = await serveWorker(ctx, "stream-copy", STREAM_COPY_WORKER);
      this.cpu = meter.started(); // the workerd this Miniflare started: a child of this process
      this.to = `${standin.url}/v1/chat/completions`;
      return this.url;
    },
    async measure(ctx) {
      const count = Math.min(ctx.opts.requests, 200);
      const once = async (i) => {
        const t0 = performance.now();
        const q = new URLSearchParams({ to: this.to, q: `${BENCH_PHRASE} floor ${i}` });
        const res = await httpFetch(`${this.url}?${q}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        const text = await res.text();
        return { ms: performance.now() - t0, ok: res.status === 200 && text.split("\n\n").length > STREAM_TOKENS };
      };
      for (let i = 0; i < 20; i++) await once(-i - 1);
      const cpu0 = this.cpu.read();
      const times = [];
      const failures = {};
      for (let i = 0; i < count; i++) {
        const r = await once(i);
        if (r.ok) times.push(r.ms);
        else failures.stream = (failures.stream ?? 0) + 1;
      }
      const cpuMsPerRequest = (this.cpu.read() - cpu0) / count;
      const seconds = times.reduce((a, b) => a + b, 0) / 1000;
      return { requests: count, failures, rps: times.length / seconds, ...stats(times), p50OneAtATime: stats(times).p50, cpuMsPerRequest };
    },
  },
];
