// Large-file ingestion (`npm run bench -- --only ingest`): generated 1 MB, 19 MB and 100 MB text
// files uploaded to POST /document-store/upsert (multipart, local embeddings, local vector store).
// 1 and 19 MB in the request (200 with the counts); 100 MB with `async: true` (202, then the queue
// consumer; the store is polled until UPSERTED, its loader's progress printed as it moves).
// Printed per file: chunks, wall seconds, chunks/s, and peak memory sampled while it runs:
//   - the isolate's live heap: the worker's V8 heap (Runtime.getHeapUsage over the inspector: JS
//     heap plus ArrayBuffer backing stores when V8 reports them) right after a full collection
//     forced over the inspector (HeapProfiler.collectGarbage) every BENCH_LIVE_HEAP_MS (250): what
//     the work holds, the figure Cloudflare's 128 MB limit is about;
//   - the isolate's used heap every 50 ms, garbage included (locally V8 collects when it likes,
//     letting it grow far above what is live);
//   - workerd RSS: the whole local runtime process (every isolate, local D1/R2/queue simulation
//     and their caches), above its level before the upload.
// BENCH_INGEST_MB=1,19 picks other sizes; BENCH_INGEST_FORMAT=jsonl uploads JSON Lines instead; BENCH_LIVE_HEAP_MS=0 forces no collections (chunks/s
// undisturbed, live heap not measured).
import { randomUUID } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { dispatcher, httpFetch } from "../load.mjs";

const SIZES_MB = (process.env.BENCH_INGEST_MB ?? "1,19,100")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
/** `text` (a .txt file, textFile) or `jsonl` (a .jsonl file of {"id", "text"} records, jsonlinesFile on `text`). */
const FORMAT = process.env.BENCH_INGEST_FORMAT === "jsonl" ? "jsonl" : "text";
/** Files above this go through the queue (`async: true`); the others are answered in the request. */
const ASYNC_FROM_MB = 32;
const TIMEOUT_MS = 60 * 60_000;
/** How often the live heap is measured (a forced full garbage collection each time; BENCH_LIVE_HEAP_MS=0: never, for chunks/s undisturbed). */
const LIVE_EVERY_MS = Number(process.env.BENCH_LIVE_HEAP_MS ?? 250);

/** Prose-like text of exactly `bytes` ASCII bytes: pseudo-words, sentences, paragraphs. */
function benchText(bytes, seed) {
  let x = seed >>> 0 || 1;
  const rand = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ren",
    "tu",
    "sa",
    "vel",
    "dor",
    "qui",
    "an",
    "po",
    "ser",
    "lin",
    "ga",
    "mo",
    "tra",
    "el",
    "bri",
    "nu",
    "zo",
  ];
  const vocabulary = Array.from({ length: 4000 }, (_, i) => {
    let w = "";
    for (let k = 0, n = 2 + (i % 3); k < n; k++)
      w += syllables[Math.floor(((((i + 1) * (k + 7) * 2654435761) % 4294967296) / 4294967296) * syllables.length)];
    return w + (i % 10);
  });
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const sentences = [];
    for (let s = 0, n = 3 + Math.floor(rand() * 4); s < n; s++) {
      const words = [];
      for (let w = 0, m = 6 + Math.floor(rand() * 10); w < m; w++) words.push(vocabulary[Math.floor(rand() ** 2 * vocabulary.length)]);
      sentences.push(`${words.join(" ")}.`);
    }
    const paragraph = sentences.join(" ");
    parts.push(paragraph);
    size += paragraph.length + 2;
  }
  return Buffer.from(parts.join("\n\n").slice(0, bytes));
}

/** JSON Lines of exactly `bytes`: one {"id", "text"} record per paragraph of benchText. */
function benchJsonl(bytes, seed) {
  const lines = [];
  let size = 0;
  for (const [i, paragraph] of benchText(bytes, seed).toString().split("\n\n").entries()) {
    const line = JSON.stringify({ id: i + 1, text: paragraph });
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join("\n")}\n`);
}

/** The workerd process serving the bench (a descendant of the server script). */
function workerdPid(rootPid) {
  const parent = new Map();
  const names = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(d), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(d), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const descends = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === rootPid) return true;
    return false;
  };
  return [...names].find(([pid, name]) => name.startsWith("workerd") && descends(pid))?.[0];
}

const rssMb = (pid) => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return NaN;
  }
};

/** The worker's isolate over the inspector: getHeapUsage on demand. */
async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.title?.includes("edgeflow")) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.on("open", resolve).on("error", reject));
  let nextId = 0;
  const pending = new Map();
  ws.on("message", (raw) => {
    const msg = JSON.parse(raw);
    if (msg.id && pending.has(msg.id)) pending.get(msg.id)(msg.result), pending.delete(msg.id);
  });
  // workerd answers some inspector calls only when the isolate next runs: none waits long.
  const send = (method, params = {}, ms = 2000) =>
    new Promise((resolve) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(undefined);
      }, ms);
      pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async heapMb() {
      const r = await send("Runtime.getHeapUsage");
      return r ? ((r.usedSize ?? 0) + (r.backingStorageSize ?? 0)) / 1024 / 1024 : NaN;
    },
    /** What is live: the heap right after a full garbage collection. */
    async liveMb() {
      const collected = await send("HeapProfiler.collectGarbage");
      return collected ? this.heapMb() : NaN;
    },
    close: () => ws.close(),
  };
}

/** Samples the isolate's heap and workerd's RSS every 50 ms until stopped; answers the peaks. */
async function sampler(isolate, pid) {
  let stop = false;
  // An idle isolate may not run the collection: then the used heap stands for "before".
  const before = await isolate.liveMb().catch(() => NaN);
  const peaks = {
    heap: 0,
    live: 0,
    rss: 0,
    rssBefore: rssMb(pid),
    liveBefore: Number.isNaN(before) ? await isolate.heapMb().catch(() => NaN) : before,
  };
  let lastLive = 0;
  const loop = (async () => {
    while (!stop) {
      // Used heap (garbage included: V8 collects when it likes) every 50 ms; live heap (after a
      // forced full collection) every LIVE_EVERY_MS.
      const live = LIVE_EVERY_MS > 0 && Date.now() - lastLive >= LIVE_EVERY_MS;
      if (live) lastLive = Date.now();
      const [heap, rss] = [await (live ? isolate.liveMb() : isolate.heapMb()).catch(() => NaN), rssMb(pid)];
      if (heap > peaks.heap) peaks.heap = heap;
      if (live && heap > peaks.live) peaks.live = heap;
      if (rss > peaks.rss) peaks.rss = rss;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    return peaks;
  };
}

function multipart(file, fields) {
  const boundary = `----edgeflow-bench-${randomUUID()}`;
  const head = (name, extra = "") => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n`;
  const [filename, type] = FORMAT === "jsonl" ? ["bench.jsonl", "application/jsonl"] : ["bench.txt", "text/plain"];
  const parts = [Buffer.from(`${head("files", `; filename="${filename}"`)}Content-Type: ${type}\r\n\r\n`), file, Buffer.from("\r\n")];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`${head(k)}\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

async function ingestOne(ctx, isolate, mb) {
  const file = FORMAT === "jsonl" ? benchJsonl(mb * 1024 * 1024, 7 + mb) : benchText(mb * 1024 * 1024, 7 + mb);
  const store = await ctx.api("POST", "/document-store/store", { name: `bench ingest ${mb} MB` });
  if (store.status !== 200) throw new Error(`POST /document-store/store answered ${store.status}`);
  const storeId = store.json.id;
  const queued = mb >= ASYNC_FROM_MB;
  const { body, type } = multipart(file, {
    ...(FORMAT === "jsonl" ? { loader: JSON.stringify({ name: "jsonlinesFile", config: { pointerName: "text" } }) } : {}),
    embedding: JSON.stringify({ name: "localHashEmbeddings" }),
    vectorStore: JSON.stringify({ name: "localVectorStore" }),
    async: queued ? "true" : "false",
  });
  const pid = workerdPid(ctx.serverPid);
  const stopSampling = await sampler(isolate, pid);
  const t0 = performance.now();
  // A server that refuses the upload early may close the connection while the body is still sent.
  const res = await httpFetch(`${ctx.baseUrl}/document-store/upsert/${storeId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": type },
    body,
    dispatcher,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  }).catch((err) => ({ status: `connection closed (${err.cause?.code ?? err.message})`, json: async () => ({}) }));
  const answer = await res.json().catch(() => ({}));
  let chunks = answer.numAdded;
  let status = res.status;
  if (res.status === 202) {
    let last = "";
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const s = await ctx.api("GET", `/document-store/store/${storeId}`);
      const loader = JSON.parse(s.json.loaders)[0] ?? {};
      const p = loader.progress;
      const line = p
        ? `${(p.bytesRead / 1024 / 1024).toFixed(1)} of ${(p.totalBytes / 1024 / 1024).toFixed(1)} MB, ${p.chunks} chunks`
        : `${loader.totalChunks} chunks`;
      if (line !== last)
        console.log(`bench:     ${Math.round((performance.now() - t0) / 1000)} s: ${s.json.status}, loader ${loader.status}: ${line}`);
      last = line;
      if (s.json.status !== "UPSERTING") {
        status = s.json.status === "UPSERTED" ? 200 : `${s.json.status}: ${loader.error ?? ""}`;
        chunks = loader.totalChunks;
        break;
      }
      if (performance.now() - t0 > TIMEOUT_MS) {
        status = "timeout";
        break;
      }
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const peaks = await stopSampling();
  const row = {
    mb,
    mode: queued ? "queue (async: true)" : "request",
    status,
    chunks,
    seconds,
    chunksPerSecond: chunks / seconds,
    peakIsolateMb: peaks.heap,
    peakLiveMb: peaks.live,
    liveBeforeMb: peaks.liveBefore,
    peakRssAboveStartMb: peaks.rss - peaks.rssBefore,
    message: status === 200 ? undefined : answer.message,
  };
  console.log(
    `bench:   ${mb} MB (${row.mode}): ${status}${row.message ? ` ${row.message}` : ""}; ${chunks ?? 0} chunks in ${seconds.toFixed(1)} s → ${Math.round(row.chunksPerSecond) || 0} chunks/s; ` +
      `isolate heap: live ${peaks.liveBefore.toFixed(1)} MB before, peak live ${peaks.live.toFixed(1)} MB, peak used (garbage included) ${peaks.heap.toFixed(1)} MB; workerd RSS +${row.peakRssAboveStartMb.toFixed(0)} MB (from ${peaks.rssBefore.toFixed(0)} MB)`,
  );
  return row;
}

export const ingestionScenarios = [
  {
    name: `ingest large ${FORMAT === "jsonl" ? "JSON Lines" : "text"} files (${SIZES_MB.join(", ")} MB: chunks/s, peak memory)`,
    inspector: true,
    optIn: true,
    async setup() {
      return `sizes ${SIZES_MB.join(", ")} MB; ≥ ${ASYNC_FROM_MB} MB with async: true`;
    },
    async measure(ctx) {
      const isolate = await inspector(ctx.inspectorPort);
      const rows = [];
      try {
        for (const mb of SIZES_MB) rows.push(await ingestOne(ctx, isolate, mb));
      } finally {
        isolate.close();
      }
      console.log(
        "\n| file | how | answer | chunks | seconds | chunks/s | isolate live heap: before → peak MB | peak heap used (garbage included) MB | peak workerd RSS above start MB |\n|---:|---|---|---:|---:|---:|---:|---:|---:|",
      );
      for (const r of rows) {
        console.log(
          `| ${r.mb} MB | ${r.mode} | ${r.status} | ${r.chunks ?? "–"} | ${r.seconds.toFixed(1)} | ${Math.round(r.chunksPerSecond) || "–"} | ${r.liveBeforeMb.toFixed(1)} → ${r.peakLiveMb.toFixed(1)} | ${r.peakIsolateMb.toFixed(1)} | ${r.peakRssAboveStartMb.toFixed(0)} |`,
        );
      }
      const ok = rows.filter((r) => r.status === 200);
      const failures = Object.fromEntries(rows.filter((r) => r.status !== 200).map((r) => [`${r.mb} MB`, r.status]));
      const seconds = ok.reduce((n, r) => n + r.seconds, 0);
      return { requests: ok.length, seconds, rps: ok.length / (seconds || 1), p50: NaN, p90: NaN, p99: NaN, failures, ingestion: rows };
    },
  },
];
