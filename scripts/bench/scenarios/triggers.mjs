// Webhooks and schedules (API.md "Webhooks", "Schedules"):
// - a webhook's sync round trip (POST /webhook/{id}) against POST /prediction/{id} on the same
//   agentflow (Start → Direct Reply, no model: what the trigger itself costs), interleaved one at a
//   time — the flows differ only in their Start node's input type;
// - a Cron Trigger tick among 10,000 stored schedules: idle (none due: the one indexed query), and
//   with 10 due (the claims in one batch, then 10 detached runs started), fired through the local
//   route `GET /cdn-cgi/handler/scheduled?time=<unix seconds>` that `npm start` answers.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, expectOk, httpFetch, stats } from "../load.mjs";

const SCHEDULES = 10_000;
const DUE = 10;

const agentflow = (startInputs) =>
  JSON.stringify({
    nodes: [
      {
        id: "startAgentflow_0",
        type: "agentFlow",
        position: { x: 0, y: 0 },
        data: { id: "startAgentflow_0", name: "startAgentflow", label: "Start", category: "Agent Flows", inputs: startInputs },
      },
      {
        id: "directReplyAgentflow_0",
        type: "agentFlow",
        position: { x: 300, y: 0 },
        data: {
          id: "directReplyAgentflow_0",
          name: "directReplyAgentflow",
          label: "Reply",
          category: "Agent Flows",
          inputs: { directReplyMessage: "got {{ question }}" },
        },
      },
    ],
    edges: [
      {
        id: "e0",
        source: "startAgentflow_0",
        sourceHandle: "startAgentflow_0-output-startAgentflow",
        target: "directReplyAgentflow_0",
        targetHandle: "directReplyAgentflow_0",
        type: "agentFlow",
      },
    ],
  });

async function timed(url, init = {}) {
  const t0 = performance.now();
  const res = await httpFetch(url, { ...init, dispatcher, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

const tickUrl = (ctx, ms) => `http://127.0.0.1:${ctx.port}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time=${Math.floor(ms / 1000)}`;

/** `count` ticks one after another at the times `timeOf(i)` gives; {stats, reports, failures}. */
async function ticks(ctx, count, timeOf) {
  const times = [];
  const reports = [];
  const failures = {};
  for (let i = -Math.min(ctx.opts.warmup, 5); i < count; i++) {
    const r = await timed(tickUrl(ctx, timeOf(i)));
    if (r.status !== 200) {
      failures[`tick ${r.status}`] = (failures[`tick ${r.status}`] ?? 0) + 1;
      continue;
    }
    if (i < 0) continue;
    times.push(r.ms);
    reports.push(JSON.parse(r.text));
  }
  return { times, reports, failures };
}

export const triggerScenarios = [
  {
    name: "webhook sync round trip vs POST /prediction/{id} JSON, one at a time (agentflow Start → Direct Reply)",
    async setup(ctx) {
      this.prediction = expectOk(
        await ctx.api("POST", "/chatflows", {
          name: "bench chat start",
          type: "AGENTFLOW",
          flowData: agentflow({ startInputType: "chatInput" }),
        }),
        "POST /chatflows",
      ).id;
      this.webhook = expectOk(
        await ctx.api("POST", "/chatflows", {
          name: "bench webhook start",
          type: "AGENTFLOW",
          flowData: agentflow({
            startInputType: "webhookTrigger",
            webhookMethod: "POST",
            webhookDefaultInput: "{{ $webhook.body.question }}",
          }),
        }),
        "POST /chatflows",
      ).id;
      return `agentflows ${this.prediction} (chat input) and ${this.webhook} (webhook, no signature)`;
    },
    async measure(ctx) {
      const count = Math.min(ctx.opts.requests, 500);
      const hook = [];
      const prediction = [];
      const failures = {};
      for (let i = -Math.min(ctx.opts.warmup, 30); i < count; i++) {
        const body = JSON.stringify({ question: `bench ${i}` });
        const p = await timed(`${ctx.baseUrl}/prediction/${this.prediction}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          body,
        });
        const w = await timed(`${ctx.baseUrl}/webhook/${this.webhook}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        if (i < 0) continue;
        if (p.status !== 200 || w.status !== 200 || !JSON.parse(w.text).text?.includes(`bench ${i}`)) {
          const key = p.status !== 200 ? `prediction ${p.status}` : `webhook ${w.status}`;
          failures[key] = (failures[key] ?? 0) + 1;
          continue;
        }
        prediction.push(p.ms);
        hook.push(w.ms);
      }
      const [ws, ps] = [stats(hook), stats(prediction)];
      const seconds = hook.reduce((a, b) => a + b, 0) / 1000;
      console.log(
        `bench:   webhook p50 ${ws.p50.toFixed(2)} ms, POST /prediction p50 ${ps.p50.toFixed(2)} ms → the webhook adds ${(ws.p50 - ps.p50).toFixed(2)} ms`,
      );
      return {
        requests: hook.length,
        seconds,
        rps: hook.length / seconds,
        ...ws,
        failures,
        json: { prediction: ps, addedP50: ws.p50 - ps.p50 },
      };
    },
  },
  {
    name: `cron tick, idle: ${SCHEDULES.toLocaleString("en")} schedules, none due (one indexed query)`,
    seedSql() {
      // Far-future slots: stored, enabled, never due during the bench.
      const rows = Array.from(
        { length: SCHEDULES },
        (_, i) =>
          `('${randomUUID()}', 'AGENTFLOW', '${randomUUID()}', 'startAgentflow_0', '0 9 * * *', 'UTC', 1, 'text', 'bench', '2099-01-01T${String(i % 24).padStart(2, "0")}:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`,
      );
      const chunks = [];
      for (let i = 0; i < rows.length; i += 200) {
        chunks.push(
          `INSERT INTO schedule_record (id, triggerType, targetId, nodeId, cronExpression, timezone, enabled, scheduleInputMode, defaultInput, nextRunAt, createdDate, updatedDate) VALUES\n${rows.slice(i, i + 200).join(",\n")};`,
        );
      }
      return chunks.join("\n");
    },
    async measure(ctx) {
      const now = Date.now();
      const { times, reports, failures } = await ticks(ctx, Math.min(ctx.opts.requests, 500), () => now);
      const busy = reports.filter((r) => r.due !== 0).length;
      if (busy) failures["ticks that found a due schedule"] = busy;
      const s = stats(times);
      const seconds = times.reduce((a, b) => a + b, 0) / 1000;
      return { requests: times.length, seconds, rps: times.length / seconds, ...s, failures };
    },
  },
  {
    name: `cron tick, ${DUE} of ${SCHEDULES.toLocaleString("en")} schedules due (claimed in one batch, ${DUE} detached runs started)`,
    async setup(ctx) {
      this.flows = [];
      for (let i = 0; i < DUE; i++) {
        const flowData = agentflow({
          startInputType: "scheduleInput",
          scheduleType: "cronExpression",
          scheduleCronExpression: "* * * * *",
          scheduleInputMode: "text",
          scheduleDefaultInput: `bench ${i}`,
        });
        this.flows.push(
          expectOk(await ctx.api("POST", "/chatflows", { name: `bench schedule ${i}`, type: "AGENTFLOW", flowData }), "POST /chatflows").id,
        );
      }
      const next = await Promise.all(
        this.flows.map(async (id) =>
          Date.parse(expectOk(await ctx.api("GET", `/chatflows/${id}/schedule/status`), "status").record.nextRunAt),
        ),
      );
      this.t0 = Math.max(...next);
      return `${DUE} scheduled agentflows (* * * * *), each tick one minute after the last`;
    },
    async measure(ctx) {
      // Every tick is a minute after the one before: the 10 schedules are due at each.
      const { times, reports, failures } = await ticks(ctx, Math.min(ctx.opts.requests, 50), (i) => this.t0 + (i + 5) * 60_000);
      const short = reports.filter((r) => r.started !== DUE).length;
      if (short) failures[`ticks that did not start ${DUE} runs`] = short;
      const s = stats(times);
      const seconds = times.reduce((a, b) => a + b, 0) / 1000;
      return { requests: times.length, seconds, rps: times.length / seconds, ...s, failures };
    },
  },
];
