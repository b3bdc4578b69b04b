// `npm start -- [--port <P>] [--ip <host>] [--persist-to <dir>] [--log-level <lvl>] [--inspect <port>] [--no-minify]
//   [--var NAME:VALUE …] [--no-build] [--no-assets]`
//
// Serves http://127.0.0.1:<P>/api/v1 from the built worker, for running rather than editing:
// the bundle `wrangler deploy` would upload (minified, the `local` environment's bindings), served
// by workerd through Miniflare's API without `wrangler dev`'s proxy and without live reload, on
// the same local D1/R2 state as `npm run dev` (.wrangler/state, or --persist-to):
//   1. creates .dev.vars from .dev.vars.example when it is missing;
//   2. applies pending local D1 migrations;
//   3. builds the worker into dist/worker (and its static assets into dist/assets);
//   4. serves it until SIGINT/SIGTERM/SIGHUP.
// --inspect <port> opens the V8 inspector (Chrome DevTools, or a CDP client for CPU profiles);
// --no-minify keeps function names readable in those profiles. --var NAME:VALUE (repeatable, as
// `wrangler dev --var`) sets a var over wrangler.toml's and .dev.vars' (the restart test's short
// DETACHED_STALL_MS). --no-build serves the bundle the last start built (dist/worker) as it is: a
// restart on the same state in seconds (the restart test stops and starts the server).
// --no-assets serves the worker without the static-asset layer in front of it (no studio at /): for
// measuring what that local router costs each request (`npm run bench -- --no-assets`); deployed,
// Cloudflare routes assets before the worker, outside its CPU time.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildWorker, builtEntry } from "./lib/build.mjs";
import { applyLocalMigrations, argReader, ensureDevVars, requireWrangler, root } from "./lib/local.mjs";
import { serveBuiltWorker } from "./lib/serve.mjs";

const arg = argReader(process.argv.slice(2));
const port = Number(arg.value(["--port"]) ?? 8787);
const host = arg.value(["--ip"]) ?? "127.0.0.1";
const persistTo = arg.value(["--persist-to"]);
const logLevel = arg.value(["--log-level"]) ?? "warn";
const inspectorPort = arg.value(["--inspect"]) === undefined ? undefined : Number(arg.value(["--inspect"]));
const minify = !process.argv.includes("--no-minify");
const build = !process.argv.includes("--no-build");
const assets = !process.argv.includes("--no-assets");
const vars = {};
for (let i = 2; i < process.argv.length; i++) {
  const given =
    process.argv[i] === "--var" ? process.argv[++i] : process.argv[i].startsWith("--var=") ? process.argv[i].slice(6) : undefined;
  if (given === undefined) continue;
  const at = given.indexOf(":");
  if (at < 1) {
    console.error(`start: --var takes NAME:VALUE, got ${given}`);
    process.exit(1);
  }
  vars[given.slice(0, at)] = given.slice(at + 1);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`start: --port must be a port number, got ${arg.value(["--port"])}`);
  process.exit(1);
}

requireWrangler("start");
ensureDevVars("start");
applyLocalMigrations(["--env", "local", ...(persistTo ? ["--persist-to", persistTo] : [])], "start");

let server;
try {
  const t0 = performance.now();
  const outdir = join(root, "dist", "worker");
  if (build) {
    const built = await buildWorker({ env: "local", outdir, minify });
    console.log(
      `start: built ${built.modules.join(", ")} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${built.sizeLine ?? "size unknown"})`,
    );
  } else if (!existsSync(builtEntry(outdir))) {
    throw new Error(`--no-build: there is no bundle in ${outdir} yet (run npm start once without it)`);
  }
  server = await serveBuiltWorker({ outdir, host, port, persistTo, logLevel, inspectorPort, vars, assets });
} catch (err) {
  console.error(`start: ${err.message}`);
  process.exit(1);
}
console.log(`start: serving ${server.url} (built worker, local D1/R2 in ${persistTo ?? ".wrangler/state"}); Ctrl-C stops it`);

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, async () => {
    await server.dispose().catch(() => {});
    process.exit(0);
  });
}
