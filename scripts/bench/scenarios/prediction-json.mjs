// A JSON prediction (no streaming) through the streaming scenarios' chatflow, against the same
// model request made straight to the stand-in: what edgeflow adds to a whole answer, one request
// at a time, with the /ping floor timed alongside (API.md's "JSON prediction overhead").
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, httpFetch, stats, tripsOf } from "../load.mjs";
import { streamingSetup } from "./streaming.mjs";

async function timed(url, init) {
  const t0 = performance.now();
  const res = await httpFetch(url, { ...init, dispatcher, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text, requestId: res.headers.get("x-request-id") };
}

export const predictionJsonScenarios = [
  {
    name: "POST /prediction/{id} JSON answer, one at a time (llmChain + chatOpenAI stand-in)",
    async setup(ctx) {
      this.ctx = await streamingSetup.get(ctx);
      return `stand-in ${this.ctx.standin.url}, chatflow ${this.ctx.flowId}`;
    },
    async measure(ctx) {
      const { standin, flowId } = this.ctx;
      const count = Math.min(ctx.opts.requests, 500);
      const direct = [];
      const edgeflow = [];
      const ping = [];
      const failures = {};
      let cpu = 0;
      let lastId;
      for (let i = -Math.min(ctx.opts.warmup, 30); i < count; i++) {
        const question = `json ${i}`;
        const d = await timed(`${standin.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "gpt-4o-mini", temperature: 0, messages: [{ role: "user", content: question }] }),
        });
        const cpu0 = ctx.cpuMs();
        const e = await timed(`${ctx.baseUrl}/prediction/${flowId}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          body: JSON.stringify({ question }),
        });
        if (i >= 0) cpu += ctx.cpuMs() - cpu0;
        const p = await timed(`${ctx.baseUrl}/ping`, {});
        if (i < 0) continue;
        if (e.status !== 200 || !JSON.parse(e.text).text?.includes(question)) {
          failures[e.status] = (failures[e.status] ?? 0) + 1;
          continue;
        }
        lastId = e.requestId;
        direct.push(d.ms);
        edgeflow.push(e.ms);
        ping.push(p.ms);
      }
      const [ds, es, ps] = [stats(direct), stats(edgeflow), stats(ping)];
      const seconds = edgeflow.reduce((a, b) => a + b, 0) / 1000;
      console.log(
        `bench:   JSON prediction p50 ${es.p50.toFixed(2)} ms, the model alone ${ds.p50.toFixed(2)} ms, /ping ${ps.p50.toFixed(2)} ms → added above the floor ${(es.p50 - ds.p50 - ps.p50).toFixed(2)} ms`,
      );
      return {
        requests: edgeflow.length,
        seconds,
        rps: edgeflow.length / seconds,
        ...es,
        failures,
        cpuMsPerRequest: cpu / count,
        trips: await tripsOf(ctx, lastId),
        json: { standin: ds, pingFloor: ps, addedAboveFloorP50: es.p50 - ds.p50 - ps.p50 },
      };
    },
  },
];
