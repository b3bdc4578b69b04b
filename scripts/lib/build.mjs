// Bundles the worker the way `wrangler deploy` would, without deploying: `wrangler deploy
// --dry-run --outdir`. Used by `npm start` (the local environment, minified), and by
// scripts/bundle-size.mjs (the deployment), whose figure is the upload Cloudflare limits.
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildAssets } from "./assets.mjs";
import { root, toolEnv, wrangler } from "./local.mjs";

/**
 * Builds into `outdir` for wrangler environment `env` ("" = the top level, i.e. deployment).
 * Answers the modules written and wrangler's own size line ("Total Upload: … / gzip: …").
 * Throws with wrangler's output when the bundle does not build.
 */
export async function buildWorker({ env, outdir, minify = true }) {
  await buildAssets(); // [assets] must exist for wrangler to accept the configuration
  rmSync(outdir, { recursive: true, force: true });
  const args = ["deploy", "--dry-run", `--env=${env}`, "--outdir", outdir, ...(minify ? ["--minify"] : [])];
  const run = spawnSync(wrangler, args, {
    cwd: root,
    env: toolEnv,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.error || run.status !== 0) {
    throw new Error(
      `wrangler deploy --dry-run failed (exit ${run.status ?? run.error?.message}):\n${output.split("\n").slice(-40).join("\n")}`,
    );
  }
  // eslint-disable-next-line no-control-regex
  const sizeLine = output
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .find((l) => l.startsWith("Total Upload:"));
  const modules = readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md");
  return { outdir, modules, sizeLine };
}

/** "Total Upload: 5248.68 KiB / gzip: 1866.80 KiB" → {total, gzip} in KiB. */
export function parseSizeLine(line) {
  const m = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(line ?? "");
  return m ? { totalKiB: Number(m[1]), gzipKiB: Number(m[2]) } : undefined;
}

export const builtEntry = (outdir) => join(outdir, "index.js");
