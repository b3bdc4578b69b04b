// Runs vitest, then prints the `N passed, N failed` line CI counts; exits non-zero when vitest did.
// The whole suite (no arguments) runs as two shards side by side (TEST_SHARDS=1: one process): each
// shard is its own vitest process with its own Workers runtime, local D1/R2 and stand-ins, so files
// of different shards share nothing, and within a shard files still run one after another. Most of a
// file's time is waiting (stalls, timeouts, stand-ins), so two shards on two cores take ~60% of one.
// Arguments (files, -t …) go to a single process. Each shard's output is printed when it ends.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { buildAssets } from "./lib/assets.mjs";

const OUT = ".test-results.json";
const extra = process.argv.slice(2);
const shards = extra.length ? 1 : Math.max(1, Math.floor(Number(process.env.TEST_SHARDS ?? 2)) || 1);
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

// Built once here: every shard's vitest config builds them too, and then finds them fresh.
await buildAssets();

/** One vitest process: its exit code and, for a shard, its output (printed after, not interleaved). */
function run(index) {
  const out = shards === 1 ? OUT : `.test-results-${index}.json`;
  rmSync(out, { force: true });
  const args = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${out}`];
  if (shards > 1) args.push(`--shard=${index}/${shards}`);
  const child = spawn("npx", [...args, ...extra], { env, stdio: shards === 1 ? "inherit" : ["ignore", "pipe", "pipe"] });
  const chunks = [];
  child.stdout?.on("data", (d) => chunks.push(d));
  child.stderr?.on("data", (d) => chunks.push(d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? 1, out, output: Buffer.concat(chunks) })));
}

const results = await Promise.all(Array.from({ length: shards }, (_, i) => run(i + 1)));

let passed = 0;
let failed = 0;
const merged = { numPassedTests: 0, numFailedTests: 0, numRuntimeErrorTestSuites: 0, success: true, testResults: [] };
for (const [i, r] of results.entries()) {
  if (shards > 1) {
    console.log(`\ntest: shard ${i + 1}/${shards}`);
    process.stdout.write(r.output);
  }
  if (!existsSync(r.out)) {
    failed += 1; // vitest ended before writing its report
    continue;
  }
  const report = JSON.parse(readFileSync(r.out, "utf8"));
  const failures = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  passed += report.numPassedTests ?? 0;
  failed += report.success === false && failures === 0 ? 1 : failures; // a suite that failed to load counts
  for (const key of ["numPassedTests", "numFailedTests", "numRuntimeErrorTestSuites"]) merged[key] += report[key] ?? 0;
  merged.success &&= report.success !== false;
  merged.testResults.push(...(report.testResults ?? []));
}
if (shards > 1) {
  writeFileSync(OUT, JSON.stringify(merged));
  for (const r of results) rmSync(r.out, { force: true });
}
console.log(`${passed} passed, ${failed} failed`);
// exitCode, not exit(): into a pipe (CI's tee) stdout is written asynchronously, and exit() would cut
// the shards' output — and this count line — short.
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
