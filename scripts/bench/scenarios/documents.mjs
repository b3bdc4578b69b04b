// Document store scenarios: a 5 MB text file through the whole local pipeline, and queries over
// 10,000 stored chunks.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { REQUEST_TIMEOUT_MS, dispatcher, expectOk, httpFetch, stats } from "../load.mjs";

// Document store scenarios: sizes and runs.
const DOC_BENCH = { ingestMb: 5, openAIMb: 1, ingestRuns: 3, queryChunks: 10_000, queryRequests: 300, timeoutMs: 600_000 };

/** Deterministic prose-like text of about `bytes` characters: pseudo-words, sentences, paragraphs. */
export function benchText(bytes, seed) {
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
  return parts.join("\n\n").slice(0, bytes);
}

/**
 * Upserts `text` as a multipart text file into a fresh store per run, one run at a time, with the
 * given embedding and the local vector store; chunks/s is chunks over wall time (the mean over the
 * runs, and their median). Also the server's CPU per upsert, and this process's (the client and,
 * for the OpenAI-compatible scenario, the stand-in answering the embeddings: on one machine both
 * share the cores, so the figure depends on the stand-in's cost as well as on edgeflow's).
 */
async function measureIngest(ctx, { text, runs, embedding, label }) {
  const times = [];
  const serverCpu = [];
  const benchCpu = [];
  const failures = {};
  let chunks = 0;
  for (let run = 0; run < runs; run++) {
    const store = expectOk(
      await ctx.api("POST", "/document-store/store", { name: `bench ingest ${label} ${run}` }),
      "POST /document-store/store",
    );
    // multipart/form-data written out by hand (undici's fetch and Node's FormData may differ).
    const boundary = `----edgeflow-bench-${randomUUID()}`;
    const part = (headers, body) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
    const body =
      part('Content-Disposition: form-data; name="files"; filename="bench.txt"\r\nContent-Type: text/plain', text) +
      part('Content-Disposition: form-data; name="embedding"', JSON.stringify(embedding)) +
      part('Content-Disposition: form-data; name="vectorStore"', JSON.stringify({ name: "localVectorStore" })) +
      // Measured in the request: over UPSERT_QUEUE_CHUNKS chunks an upsert would otherwise go to the queue (202).
      part('Content-Disposition: form-data; name="async"', "false") +
      `--${boundary}--\r\n`;
    const cpu0 = ctx.cpuMs();
    const own0 = process.cpuUsage();
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
    const own = process.cpuUsage(own0);
    chunks = answer.numAdded;
    times.push(ms);
    serverCpu.push(ctx.cpuMs() - cpu0);
    benchCpu.push((own.user + own.system) / 1000);
    console.log(
      `bench:   run ${run + 1}: ${chunks} chunks in ${(ms / 1000).toFixed(2)} s → ${Math.round(chunks / (ms / 1000))} chunks/s; ` +
        `CPU ms: server ${serverCpu.at(-1).toFixed(0)}, this process ${benchCpu.at(-1).toFixed(0)}`,
    );
  }
  const seconds = times.reduce((a, b) => a + b, 0) / 1000;
  const chunksPerSecond = seconds > 0 ? (chunks * times.length) / seconds : NaN;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const medianChunksPerSecond = times.length ? chunks / (median(times) / 1000) : NaN;
  console.log(
    `bench:   ingestion (${label}): ${chunks} chunks per file, ${Math.round(chunksPerSecond)} chunks/s (mean of ${times.length} runs), ` +
      `median ${Math.round(medianChunksPerSecond)}; CPU ms per upsert (median): server ${median(serverCpu)?.toFixed(0)}, ` +
      `this process ${median(benchCpu)?.toFixed(0)}`,
  );
  return {
    requests: times.length,
    seconds,
    rps: times.length / seconds,
    ...stats(times),
    failures,
    chunksPerUpsert: chunks,
    chunksPerSecond,
    medianChunksPerSecond,
    serverCpuMsPerUpsert: median(serverCpu),
    benchProcessCpuMsPerUpsert: median(benchCpu),
  };
}

export const documentScenarios = [
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
    measure(ctx) {
      return measureIngest(ctx, {
        text: this.text,
        runs: DOC_BENCH.ingestRuns,
        embedding: { name: "localHashEmbeddings" },
        label: "local",
      });
    },
  },
  {
    // 1 MB through the OpenAI-compatible embeddings: the stand-in of the tests, in this process,
    // answering 1,536-dimension vectors (text-embedding-3-small's size) over loopback HTTP.
    name: `POST /document-store/upsert (${DOC_BENCH.openAIMb} MB text file: split + OpenAI-compatible embeddings (stand-in, 1,536 dims) + local vector store)`,
    async setup(ctx) {
      const { startStandin } = await import("../../../test/standin/server.mjs");
      const standin = await startStandin();
      ctx.onCleanup(() => standin.close());
      const cred = expectOk(
        await ctx.api("POST", "/credentials", {
          name: "bench embeddings",
          credentialName: "openAIApi",
          plainDataObj: { openAIApiKey: "sk-bench" },
        }),
        "POST /credentials",
      );
      this.embedding = {
        name: "openAIEmbeddings",
        config: { credential: cred.id, basepath: `${standin.url}/v1`, modelName: "text-embedding-3-small", dimensions: 1536 },
      };
      this.text = benchText(DOC_BENCH.openAIMb * 1024 * 1024, 11);
      return `${(this.text.length / 1024 / 1024).toFixed(2)} MB, ${DOC_BENCH.ingestRuns} runs`;
    },
    measure(ctx) {
      return measureIngest(ctx, { text: this.text, runs: DOC_BENCH.ingestRuns, embedding: this.embedding, label: "OpenAI-compatible" });
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
          async: false, // in the request, though over UPSERT_QUEUE_CHUNKS
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
      const count = Math.min(ctx.opts.requests, DOC_BENCH.queryRequests);
      const times = [];
      const failures = {};
      let ranked = 0;
      for (let i = -Math.min(ctx.opts.warmup, 20); i < count; i++) {
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
