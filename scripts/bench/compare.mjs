// `node scripts/bench/compare.mjs <git-ref> [--requests N]`
// `node scripts/bench/compare.mjs --ref-dir <dir> [--requests N]`: the other side is a directory
//   already holding a tree to serve (a copy of another commit, patched for a measurement), not a ref
//
// Before and after on one machine in one run: the working tree and <git-ref> (checked out in a
// temporary worktree, node_modules linked) are each served by their own `npm start` with fresh
// state, and the same requests go to both, interleaved one at a time (A B, then B A), so both see
// the same machine at the same moment. A noisy machine moves both alike; back-to-back bench runs
// differ by more than the changes being measured. Measured per side: GET /ping, a JSON
// prediction and a streamed one's first token (llmChain + chatOpenAI at the tests' stand-in, with
// an API key), p50 / p90 ms, the prediction's time above /ping, and the server's CPU per request
// (cpu.mjs) for each of the three (the streamed answer read to its end).
import { execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../lib/local.mjs";
import { initClient, dispatcher, httpFetch } from "./load.mjs";
import { ADMIN_API_KEY, BenchServer, freePort, removeDir, snapshot } from "./server.mjs";

const argv = process.argv.slice(2);
const flagValue = (flag) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
const refDir = flagValue("--ref-dir");
const ref = refDir ? undefined : argv.find((a) => !a.startsWith("--") && argv[argv.indexOf(a) - 1] !== "--requests");
const requests = Number(flagValue("--requests") ?? 300) || 300;
if (!ref && !refDir) {
  console.error("usage: node scripts/bench/compare.mjs <git-ref> [--requests N] | --ref-dir <dir> [--requests N]");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "edgeflow-compare-"));
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
const sides = [];
const cleanup = async () => {
  for (const s of sides) await s.server.stop().catch(() => {});
  if (!refDir)
    try {
      git("worktree", "remove", "--force", join(dir, "ref"));
    } catch {}
  removeDir(dir);
};
process.on("SIGINT", () => cleanup().then(() => process.exit(130)));

try {
  await initClient(2);
  let other;
  if (refDir) other = [`${refDir}`, refDir];
  else {
    const commit = git("rev-parse", "--short", ref);
    git("worktree", "add", "--detach", join(dir, "ref"), commit);
    symlinkSync(join(root, "node_modules"), join(dir, "ref", "node_modules"), "dir");
    other = [`${ref} (${commit})`, join(dir, "ref")];
  }
  snapshot(join(dir, "tree"));
  for (const [label, app] of [["working tree", join(dir, "tree")], other]) {
    const server = new BenchServer({
      app,
      stateDir: join(dir, `${sides.length}-state`),
      logFile: join(dir, `${sides.length}.log`),
      kind: "start",
      logLevel: "warn",
    });
    const port = await freePort();
    console.log(`compare: starting ${label} on ${port} (builds the worker)`);
    await server.start(port);
    sides.push({
      label,
      server,
      base: `http://127.0.0.1:${port}/api/v1`,
      times: { ping: [], json: [], first: [] },
      cpu: { ping: 0, json: 0, stream: 0 },
    });
  }

  const { startStandin } = await import("../../test/standin/server.mjs");
  const standin = await startStandin();
  const call = async (base, method, path, token, body) => {
    const res = await httpFetch(base + path, {
      dispatcher,
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${base}${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  for (const side of sides) {
    const admin = (method, path, body) => call(side.base, method, path, ADMIN_API_KEY, body).then((r) => r.json());
    const cred = await admin("POST", "/credentials", {
      name: "compare",
      credentialName: "openAIApi",
      plainDataObj: { openAIApiKey: "sk-compare" },
    });
    const node = (id, name, category, inputs, extra = {}) => ({
      id,
      type: "customNode",
      position: { x: 0, y: 0 },
      data: { id, label: name, name, category, inputs, outputs: {}, ...extra },
    });
    const flowData = JSON.stringify({
      nodes: [
        node(
          "chatOpenAI_0",
          "chatOpenAI",
          "Chat Models",
          { modelName: "gpt-4o-mini", temperature: 0, streaming: true, basepath: `${standin.url}/v1` },
          { credential: cred.id },
        ),
        node("promptTemplate_0", "promptTemplate", "Prompts", {
          template: "{product}",
          promptValues: JSON.stringify({ product: "{{question}}" }),
        }),
        node(
          "llmChain_0",
          "llmChain",
          "Chains",
          { model: "{{chatOpenAI_0.data.instance}}", prompt: "{{promptTemplate_0.data.instance}}" },
          { outputs: { output: "llmChain" } },
        ),
      ],
      edges: [
        {
          id: "e1",
          source: "chatOpenAI_0",
          sourceHandle: "chatOpenAI_0-output",
          target: "llmChain_0",
          targetHandle: "llmChain_0-input-model-BaseLanguageModel",
        },
        {
          id: "e2",
          source: "promptTemplate_0",
          sourceHandle: "promptTemplate_0-output",
          target: "llmChain_0",
          targetHandle: "llmChain_0-input-prompt-BasePromptTemplate",
        },
      ],
    });
    side.flow = (await admin("POST", "/chatflows", { name: "compare", flowData })).id;
    side.key = (await admin("POST", "/apikey", { keyName: `compare-${Date.now()}` })).apiKey;
  }

  const timed = async (fn) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const round = async (side, i, keep) => {
    const cpu = side.server.cpu;
    let c0 = cpu.read();
    const ping = await timed(async () => (await httpFetch(`${side.base}/ping`, { dispatcher })).text());
    const c1 = cpu.read();
    if (keep) side.cpu.ping += c1 - c0;
    const json = await timed(async () => {
      const answer = await (await call(side.base, "POST", `/prediction/${side.flow}`, side.key, { question: `json ${i}` })).json();
      if (!answer.text?.includes(`json ${i}`)) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
    });
    c0 = cpu.read();
    if (keep) side.cpu.json += c0 - c1;
    const t0 = performance.now();
    let first = 0;
    let text = "";
    const res = await call(side.base, "POST", `/prediction/${side.flow}`, side.key, { question: `stream ${i}`, streaming: true });
    for await (const chunk of res.body) {
      text += Buffer.from(chunk).toString();
      if (!first && text.includes('"event":"token"')) first = performance.now() - t0;
    }
    if (!first || !text.includes('"event":"end"')) throw new Error(`a stream without tokens or end: ${text.slice(0, 300)}`);
    if (keep) side.cpu.stream += cpu.read() - c0;
    if (keep) for (const [k, v] of Object.entries({ ping, json, first })) side.times[k].push(v);
  };
  const warmup = 30;
  for (let i = -warmup; i < requests; i++) {
    for (const side of i % 2 ? sides : [...sides].reverse()) await round(side, i, i >= 0);
  }
  standin.close();

  const pct = (values, q) => {
    const s = [...values].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)];
  };
  const cell = (v) => `${pct(v, 50).toFixed(2)} / ${pct(v, 90).toFixed(2)}`;
  console.log(`\n${requests} rounds per side, interleaved, one request at a time (p50 / p90 ms; "above /ping" = p50 − /ping p50)\n`);
  console.log("| side | GET /ping | JSON prediction | above /ping | streamed first token | above /ping | CPU ms per /ping, JSON, stream |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  const perRequest = (ms) => (Number.isFinite(ms) ? (ms / requests).toFixed(2) : "–");
  for (const s of sides) {
    const floor = pct(s.times.ping, 50);
    console.log(
      `| ${s.label} | ${cell(s.times.ping)} | ${cell(s.times.json)} | ${(pct(s.times.json, 50) - floor).toFixed(2)} | ${cell(s.times.first)} | ${(pct(s.times.first, 50) - floor).toFixed(2)} | ` +
        `${perRequest(s.cpu.ping)}, ${perRequest(s.cpu.json)}, ${perRequest(s.cpu.stream)} |`,
    );
  }
} finally {
  await cleanup();
}
