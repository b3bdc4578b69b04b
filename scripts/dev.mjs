// `npm run dev -- [--port <P>] [other wrangler dev flags]`
//
// Serves http://127.0.0.1:<P>/api/v1 on local D1/R2 (the `local` wrangler environment: no
// Cloudflare account, no network):
//   1. creates .dev.vars from .dev.vars.example when it is missing;
//   2. applies pending local D1 migrations, non-interactively;
//   3. runs `wrangler dev --env local --ip 127.0.0.1 --port <P> ...extra args`, forwarding
//      SIGINT/SIGTERM/SIGHUP to it and exiting with its exit code.
//
// Flags that also matter to step 2 (`--env`/`-e`, `--persist-to`, `--config`/`-c`) are passed to
// the migrations command as well, so `--persist-to <dir>` keeps both steps on the same state.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { constants as osConstants } from "node:os";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

/** The value of `--name <v>` / `--name=<v>` (or a short alias) in args, else undefined. */
function flagValue(names) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    for (const n of names) {
      if (a === n) return args[i + 1];
      if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
    }
  }
  return undefined;
}
const hasFlag = (names) => args.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));

// Children find wrangler (and, through `#!/usr/bin/env node`, the Node 22 of the `node`
// devDependency) in node_modules/.bin even when this script is started without `npm run`.
const env = {
  ...process.env,
  PATH: [join(root, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter),
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
const wrangler = join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
if (!existsSync(wrangler)) {
  console.error("dev: wrangler is not installed here; run `npm install` first.");
  process.exit(1);
}

// 1. .dev.vars
const devVars = join(root, ".dev.vars");
if (!existsSync(devVars)) {
  copyFileSync(join(root, ".dev.vars.example"), devVars);
  console.log("dev: created .dev.vars from .dev.vars.example (development values only)");
}

// 2. Migrations. Shared flags: the environment, the config file and the persistence directory.
const shared = [];
const envName = flagValue(["--env", "-e"]);
shared.push("--env", envName ?? "local");
const config = flagValue(["--config", "-c"]);
if (config !== undefined) shared.push("--config", config);
const persistTo = flagValue(["--persist-to"]);
if (persistTo !== undefined) shared.push("--persist-to", persistTo);

// `d1 migrations apply` asks "continue? (Y/n)" when stdin and stdout are a TTY and would wait for
// an answer forever. It answers yes by itself when stdin is not a TTY or when CI is set (ci-info),
// so both are arranged here: stdin is ignored and CI=true.
const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", ...shared], {
  cwd: root,
  env: { ...env, CI: "true" },
  stdio: ["ignore", "inherit", "inherit"],
});
if (migrate.error) {
  console.error(`dev: could not run wrangler: ${migrate.error.message}`);
  process.exit(1);
}
if (migrate.status !== 0) {
  console.error(`dev: applying local D1 migrations failed (exit ${migrate.status ?? migrate.signal})`);
  process.exit(migrate.status || 1);
}

// 3. wrangler dev
const devArgs = ["dev"];
if (envName === undefined) devArgs.push("--env", "local");
if (!hasFlag(["--ip"])) devArgs.push("--ip", "127.0.0.1");
if (!hasFlag(["--port"])) devArgs.push("--port", "8787");
devArgs.push(...args);

const child = spawn(wrangler, devArgs, { cwd: root, env, stdio: "inherit" });
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
