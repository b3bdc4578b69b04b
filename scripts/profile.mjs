// `node scripts/profile.mjs [--inspect 9229] [--seconds 10] [--out profile.cpuprofile] [--bundle dist/worker/index.js]`
//
// Records the worker's CPU for a while and prints where it went, by source file of the bundle (our
// src/ files, each node_modules package, workerd's internals), per second of recording. Start the
// server with `npm start -- --inspect 9229 --no-minify` (readable names), start this, and drive
// load meanwhile (e.g. `npm run bench -- --only JSON` against another server, or curl in a loop).
// The .cpuprofile it writes opens in Chrome DevTools (Performance panel) for the call tree.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { argReader, root } from "./lib/local.mjs";

const arg = argReader(process.argv.slice(2));
const port = Number(arg.value(["--inspect"]) ?? 9229);
const seconds = Number(arg.value(["--seconds"]) ?? 10);
const out = arg.value(["--out"]) ?? "profile.cpuprofile";
const bundle = arg.value(["--bundle"]) ?? join(root, "dist", "worker", "index.js");

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
const send = (method, params = {}) =>
  new Promise((resolve) => {
    const id = ++nextId;
    pending.set(id, resolve);
    ws.send(JSON.stringify({ id, method, params }));
  });

await send("Profiler.enable");
await send("Profiler.setSamplingInterval", { interval: 100 });
await send("Profiler.start");
console.log(`profile: recording ${seconds} s of ${target.title ?? target.url}`);
await new Promise((r) => setTimeout(r, seconds * 1000));
const { profile } = await send("Profiler.stop");
ws.close();
writeFileSync(out, JSON.stringify(profile));

// Which file each bundle line came from: esbuild heads each module with a `// <path>` comment.
const fileAt = [];
try {
  let current = "(bundle)";
  readFileSync(bundle, "utf8")
    .split("\n")
    .forEach((line, i) => {
      const m = /^\/\/ ((?:src|node_modules)\/\S+)/.exec(line);
      if (m) current = m[1];
      fileAt[i] = current;
    });
} catch {
  /* no bundle: natives and internals only */
}
const pkg = (f) => {
  const p = f.split("/");
  return p[1]?.startsWith("@") ? p.slice(0, 3).join("/") : p.slice(0, 2).join("/");
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const spent = new Map();
profile.samples.forEach((sample, i) => {
  const frame = byId.get(sample).callFrame;
  const file = frame.url.endsWith(".js") && fileAt.length ? (fileAt[frame.lineNumber] ?? "(bundle)") : undefined;
  const key = file
    ? file.startsWith("node_modules/")
      ? pkg(file)
      : file
    : `${frame.url || "(native)"} ${frame.functionName || "(anonymous)"}`;
  spent.set(key, (spent.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...spent.values()].reduce((a, b) => a + b, 0);
console.log(`profile: ${(total / 1e6).toFixed(1)} s sampled, written to ${out}; ms of CPU per second recorded:`);
for (const [key, us] of [...spent].sort((a, b) => b[1] - a[1]).slice(0, 40))
  console.log(`${(us / 1000 / seconds).toFixed(1).padStart(8)}  ${key}`);
