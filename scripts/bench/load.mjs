// The HTTP client of the benchmark (keep-alive connections, one per request in flight), the
// request loop that measures a scenario, and the small helpers scenarios share.
import { performance } from "node:perf_hooks";

export const REQUEST_TIMEOUT_MS = 30_000; // no request may stall the run

/** A scenario that cannot run yet (its route answered 404): reported as skipped, not failed. */
export class Skip extends Error {}

/** Throws Skip on 404 (a route or record that is not there yet), Error on any other failure. */
export function expectOk(res, what) {
  if (res.status >= 200 && res.status < 300) return res.json;
  const message = res.json?.message ?? res.text.slice(0, 200);
  if (res.status === 404) throw new Skip(`${what} answered 404 (${message})`);
  throw new Error(`${what} answered ${res.status}: ${message}`);
}

/** Runs fn over items with at most `limit` calls in flight. */
export async function inParallel(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export const stats = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99) };
};

// Live bindings: set once by initClient(), read by every scenario.
export let httpFetch = globalThis.fetch;
export let dispatcher;
export let clientName = "global fetch";

/** undici's Agent when it can be loaded (a pool sized to the concurrency), else Node's fetch. */
export async function initClient(concurrency) {
  try {
    const undici = await import("undici");
    dispatcher = new undici.Agent({ connections: concurrency + 2, keepAliveTimeout: 30_000, pipelining: 1 });
    httpFetch = undici.fetch;
    clientName = "undici Agent (keep-alive)";
  } catch {
    // Node's own fetch keeps connections alive too; only the pool size is not ours to choose.
  }
}

/** `api(method, path, body?)` → {status, text, json} with a bearer token. */
export function makeApi(baseUrl, token) {
  return async (method, path, body, { auth = token } = {}) => {
    const headers = {};
    if (auth) headers.authorization = `Bearer ${auth}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await httpFetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  };
}

/** `count` requests of the scenario, `concurrency` in flight: req/s, latency percentiles, failures. */
export async function load(ctx, scenario, count, firstIndex, concurrency) {
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
        const res = await httpFetch(req.url ?? ctx.baseUrl + req.path, {
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
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
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

/**
 * The D1 round trips of one request (simulated planet only): {done, head, firstToken?, end}, each
 * {primary, replica}, as the worker counted them (GET /api/v1/__d1-trace/{x-request-id}).
 */
export async function tripsOf(ctx, requestId) {
  if (!ctx.simulated || !requestId) return undefined;
  const res = await httpFetch(`${ctx.baseUrl}/__d1-trace/${encodeURIComponent(requestId)}`, {
    dispatcher,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return res.status === 200 ? await res.json() : undefined;
}

/**
 * More requests of a request-loop scenario, one at a time: their p50 (the latency without the
 * queueing of the loop's concurrency) and, on the simulated planet, the round trips of the last.
 */
export async function probeOneAtATime(ctx, scenario, firstIndex, count = 30) {
  let trips;
  const times = [];
  for (let k = 0; k < count; k++) {
    const req = scenario.request(ctx, firstIndex + k);
    const t0 = performance.now();
    const res = await httpFetch(req.url ?? ctx.baseUrl + req.path, {
      method: req.method,
      headers: { authorization: `Bearer ${ctx.apiKey}`, ...(req.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      dispatcher,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (!req.url && k === count - 1) trips = await tripsOf(ctx, res.headers.get("x-request-id"));
  }
  return { trips, p50OneAtATime: stats(times).p50 };
}
