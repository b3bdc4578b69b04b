// `node scripts/bench/head-probe.mjs [--rtt 80,5] [--n 40] [--ref-dir <dir>]`
//
// A streamed prediction's head and first token, one at a time, against /ping: serves the working
// tree (or another tree, --ref-dir) with `npm start` on fresh state, with the simulated planet's
// D1 delays (primary,replica ms; "0,0" counts round trips without delaying them), streams the
// bench's chatflow (llmChain + the model stand-in, 3 tokens) with an API key, and prints p50s.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { root as here } from "../lib/local.mjs";
import { makeApi } from "./load.mjs";
import { streamingSetup } from "./scenarios/streaming.mjs";
import { ADMIN_API_KEY, BenchServer, freePort, snapshot } from "./server.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const root = arg("ref-dir", here);
const [rtt, replica] = arg("rtt", "80,5").split(",");
const n = Number(arg("n", "40"));

const dir = mkdtempSync(join(tmpdir(), "edgeflow-head-"));
const app = join(dir, "app");
snapshot(app, root);
const example = readFileSync(join(root, ".dev.vars.example"), "utf8");
writeFileSync(join(app, ".dev.vars"), `${example}\nD1_SIMULATED_RTT_MS=${rtt}\nD1_SIMULATED_REPLICA_RTT_MS=${replica}\n`);
const server = new BenchServer({ app, stateDir: join(dir, "state"), logFile: join(dir, "log"), kind: "start", logLevel: "warn" });
server.wrangler(["d1", "migrations", "apply", "DB", "--local", "--env", "local", "--persist-to", server.stateDir], "migrations");
const port = await freePort();
await server.start(port);
const base = `http://127.0.0.1:${port}/api/v1`;
const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1);
try {
  const key = (await makeApi(base, ADMIN_API_KEY)("POST", "/apikey", { keyName: "head probe" })).json.apiKey;
  const { flowId } = await streamingSetup.get({ api: makeApi(base, key), onCleanup: () => {}, baseUrl: base });
  const rows = { ping: [], head: [], first: [] };
  for (let i = 0; i < n; i++) {
    let t0 = performance.now();
    await (await fetch(`${base}/ping`)).text();
    rows.ping.push(performance.now() - t0);
    t0 = performance.now();
    const res = await fetch(`${base}/prediction/${flowId}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ question: "[bench:3:0] hi", streaming: true }),
    });
    rows.head.push(performance.now() - t0);
    const decoder = new TextDecoder();
    let text = "";
    let first;
    for await (const chunk of res.body) {
      text += decoder.decode(chunk, { stream: true });
      if (first === undefined && text.includes('"event":"token"')) first = performance.now() - t0;
    }
    rows.first.push(first ?? Number.NaN);
  }
  console.log(
    `D1 ${rtt}/${replica} ms: /ping ${p50(rows.ping)}, stream head ${p50(rows.head)}, first token ${p50(rows.first)} (p50 of ${n}, ms)`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
