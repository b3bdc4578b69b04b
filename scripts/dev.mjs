// `npm run dev -- [--port <P>] [other wrangler dev flags]`
//
// Serves http://127.0.0.1:<P>/api/v1 on local D1/R2 (the `local` wrangler environment: no
// Cloudflare account, no network), rebuilding on every change (for editing; `npm start` serves the
// built worker without wrangler's dev proxy, for running):
//   1. creates .dev.vars from .dev.vars.example when it is missing;
//   2. builds the static assets (dist/assets: the API reference's script, tokenizer ranks);
//   3. applies pending local D1 migrations, non-interactively;
//   4. runs `wrangler dev --env local --ip 127.0.0.1 --port <P> ...extra args`, forwarding
//      SIGINT/SIGTERM/SIGHUP to it and exiting with its exit code.
//
// Flags that also matter to step 3 (`--env`/`-e`, `--persist-to`, `--config`/`-c`) are passed to
// the migrations command as well, so `--persist-to <dir>` keeps both steps on the same state.
import { spawn } from "node:child_process";
import { constants as osConstants } from "node:os";
import { buildAssets } from "./lib/assets.mjs";
import { applyLocalMigrations, argReader, ensureDevVars, requireWrangler, root, toolEnv, wrangler } from "./lib/local.mjs";

const args = process.argv.slice(2);
const arg = argReader(args);

requireWrangler("dev");
ensureDevVars("dev");
await buildAssets();

const shared = [];
const envName = arg.value(["--env", "-e"]);
shared.push("--env", envName ?? "local");
const config = arg.value(["--config", "-c"]);
if (config !== undefined) shared.push("--config", config);
const persistTo = arg.value(["--persist-to"]);
if (persistTo !== undefined) shared.push("--persist-to", persistTo);
applyLocalMigrations(shared, "dev");

const devArgs = ["dev"];
if (envName === undefined) devArgs.push("--env", "local");
if (!arg.has(["--ip"])) devArgs.push("--ip", "127.0.0.1");
if (!arg.has(["--port"])) devArgs.push("--port", "8787");
devArgs.push(...args);

const child = spawn(wrangler, devArgs, { cwd: root, env: toolEnv, stdio: "inherit" });
child.on("error", (err) => {
  console.error(`dev: could not start wrangler dev: ${err.message}`);
  process.exit(1);
});

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}

child.on("exit", (code, signal) => {
  if (code !== null) process.exit(code);
  // Killed by a signal: report it the way a shell does (128 + signal number).
  process.exit(128 + (osConstants.signals[signal] ?? 1));
});
