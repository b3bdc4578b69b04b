// An MCP tools/call round trip (POST /mcp/{chatflowId}, the flow's MCP token, the JSON-RPC a
// connected client sends) against POST /prediction/{id} on the same chatflow, interleaved one at a
// time: what serving a flow over MCP adds to a run (API.md, "Flows as MCP servers").
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, httpFetch, stats } from "../load.mjs";
import { streamingSetup } from "./streaming.mjs";

async function timed(url, init) {
  const t0 = performance.now();
  const res = await httpFetch(url, { ...init, dispatcher, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

export const mcpScenarios = [
  {
    name: "MCP tools/call round trip vs POST /prediction/{id} JSON, one at a time (llmChain + chatOpenAI stand-in)",
    async setup(ctx) {
      this.ctx = await streamingSetup.get(ctx);
      const res = await httpFetch(`${ctx.baseUrl}/mcp-server/${this.ctx.flowId}`, {
        method: "POST",
        dispatcher,
        headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
        body: JSON.stringify({ toolName: "bench_flow", description: "The bench chatflow" }),
      });
      const config = await res.json();
      if (res.status !== 201 || !config.token) throw new Error(`POST /mcp-server answered ${res.status}: ${JSON.stringify(config)}`);
      this.token = config.token;
      return `chatflow ${this.ctx.flowId}, MCP tool bench_flow`;
    },
    async measure(ctx) {
      const { flowId } = this.ctx;
      const count = Math.min(ctx.opts.requests, 500);
      const mcp = [];
      const prediction = [];
      const failures = {};
      const mcpHeaders = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        authorization: `Bearer ${this.token}`,
      };
      for (let i = -Math.min(ctx.opts.warmup, 30); i < count; i++) {
        const question = `mcp ${i}`;
        const p = await timed(`${ctx.baseUrl}/prediction/${flowId}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          body: JSON.stringify({ question }),
        });
        const m = await timed(`${ctx.baseUrl}/mcp/${flowId}`, {
          method: "POST",
          headers: mcpHeaders,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: i + 1000,
            method: "tools/call",
            params: { name: "bench_flow", arguments: { question } },
          }),
        });
        if (i < 0) continue;
        const answered = m.status === 200 && JSON.parse(m.text).result?.content?.[0]?.text?.includes(question);
        if (p.status !== 200 || !answered) {
          const key = p.status !== 200 ? `prediction ${p.status}` : `mcp ${m.status}`;
          failures[key] = (failures[key] ?? 0) + 1;
          continue;
        }
        prediction.push(p.ms);
        mcp.push(m.ms);
      }
      const [ms, ps] = [stats(mcp), stats(prediction)];
      const seconds = mcp.reduce((a, b) => a + b, 0) / 1000;
      console.log(
        `bench:   MCP tools/call p50 ${ms.p50.toFixed(2)} ms, POST /prediction p50 ${ps.p50.toFixed(2)} ms → MCP adds ${(ms.p50 - ps.p50).toFixed(2)} ms`,
      );
      return {
        requests: mcp.length,
        seconds,
        rps: mcp.length / seconds,
        ...ms,
        failures,
        json: { prediction: ps, addedP50: ms.p50 - ps.p50 },
      };
    },
  },
];
