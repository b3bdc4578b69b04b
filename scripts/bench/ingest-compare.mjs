// `node scripts/bench/ingest-compare.mjs [--rounds N] [--mb M] [--port P] <dir> [<dir> …]`
//
// Ingestion side by side: each directory (a prepared tree of edgeflow, e.g. `git archive <ref> | tar
// -x -C <dir>` with node_modules linked; `.` for the working tree) is served by its own `npm start`
// on a fresh state, and each round upserts the bench's M MB text file (default 1) into a fresh
// store on each server in turn, through the OpenAI-compatible embeddings stand-in (1,536 dims,
// in this process) into the local vector store, in the request (`async: false`). One warm-up
// round, then N (default 8). Printed per tree: median chunks/s and the server's CPU per upsert.
// On a shared machine two bench runs back to back differ by more than most changes; interleaving
// gives every side the same machine. `--port P`: the servers listen on P, P+1, … (else any free port).
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { argReader } from "../lib/local.mjs";
import { benchText } from "./scenarios/documents.mjs";
import { freePort, removeDir } from "./server.mjs";

const argv = process.argv.slice(2);
const arg = argReader(argv);
const rounds = Number(arg.value(["--rounds"]) ?? 8);
const mb = Number(arg.value(["--mb"]) ?? 1);
const firstPort = arg.value(["--port"]);
const dirs = argv.filter((a, i) => !a.startsWith("--") && !["--rounds", "--mb", "--port"].includes(argv[i - 1])).map((d) => resolve(d));
if (!dirs.length) throw new Error("name at least one tree to serve");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const { startStandin } = await import("../../test/standin/server.mjs");
const standin = await startStandin();
const text = benchText(mb * 1024 * 1024, 11);
const sides = [];

async function serve(tree) {
  const dir = mkdtempSync(join(tmpdir(), "edgeflow-ingest-"));
  // The tree's own snapshot, server script and migrations: each side is exactly that tree.
  const own = await import(join(tree, "scripts/bench/server.mjs"));
  const { ADMIN_API_KEY } = own;
  own.snapshot(join(dir, "app"));
  const server = new own.BenchServer({
    app: join(dir, "app"),
    stateDir: join(dir, "state"),
    logFile: join(dir, "server.log"),
    kind: "start",
  });
  server.wrangler(["d1", "migrations", "apply", "DB", "--local", "--env", "local", "--persist-to", server.stateDir], "migrations");
  const port = firstPort ? Number(firstPort) + sides.length : await freePort();
  await server.start(port);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const api = async (key, method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${answer.slice(0, 200)}`);
    return JSON.parse(answer);
  };
  const key = (await api(ADMIN_API_KEY, "POST", "/apikey", { keyName: "ingest-compare" })).apiKey;
  const cred = await api(key, "POST", "/credentials", { name: "e", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk" } });
  const embedding = {
    name: "openAIEmbeddings",
    config: { credential: cred.id, basepath: `${standin.url}/v1`, modelName: "text-embedding-3-small", dimensions: 1536 },
  };
  return { tree, dir, server, base, api, key, embedding, rates: [], cpus: [] };
}

async function upsertOnce(s, round) {
  const store = await s.api(s.key, "POST", "/document-store/store", { name: `compare ${round}` });
  const boundary = `----edgeflow-compare-${randomUUID()}`;
  const part = (h, b) => `--${boundary}\r\n${h}\r\n\r\n${b}\r\n`;
  const body =
    part('Content-Disposition: form-data; name="files"; filename="bench.txt"\r\nContent-Type: text/plain', text) +
    part('Content-Disposition: form-data; name="embedding"', JSON.stringify(s.embedding)) +
    part('Content-Disposition: form-data; name="vectorStore"', JSON.stringify({ name: "localVectorStore" })) +
    part('Content-Disposition: form-data; name="async"', "false") +
    `--${boundary}--\r\n`;
  const cpu0 = s.server.cpu.read();
  const t0 = performance.now();
  const res = await fetch(`${s.base}/document-store/upsert/${store.id}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
  });
  const answer = await res.json();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${s.tree}: the upsert answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  if (round >= 0) {
    s.rates.push(answer.numAdded / (ms / 1000));
    s.cpus.push(s.server.cpu.read() - cpu0);
  }
}

try {
  for (const tree of dirs) sides.push(await serve(tree));
  for (let round = -1; round < rounds; round++) for (const s of sides) await upsertOnce(s, round);
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`${mb} MB, ${rounds} interleaved rounds after one warm-up; load average at the end ${load}\n`);
  console.log("| tree | chunks/s (median) | runs | server CPU ms per upsert (median) |\n|---|---:|---|---:|");
  for (const s of sides)
    console.log(`| ${s.tree} | ${Math.round(median(s.rates))} | ${s.rates.map(Math.round).join(" ")} | ${median(s.cpus).toFixed(0)} |`);
} finally {
  await standin.close();
  for (const s of sides) {
    await s.server.stop();
    removeDir(s.dir);
  }
}
