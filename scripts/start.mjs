// `npm start -- [--port <P>] [--ip <host>] [--persist-to <dir>] [--log-level <lvl>] [--inspect <port>] [--no-minify]`
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
// --no-minify keeps function names readable in those profiles.
import { join } from "node:path";
import { buildWorker } from "./lib/build.mjs";
import { applyLocalMigrations, argReader, ensureDevVars, requireWrangler, root } from "./lib/local.mjs";
import { serveBuiltWorker } from "./lib/serve.mjs";

const arg = argReader(process.argv.slice(2));
const port = Number(arg.value(["--port"]) ?? 8787);
const host = arg.value(["--ip"]) ?? "127.0.0.1";
const persistTo = arg.value(["--persist-to"]);
const logLevel = arg.value(["--log-level"]) ?? "warn";
const inspectorPort = arg.value(["--inspect"]) === undefined ? undefined : Number(arg.value(["--inspect"]));
const minify = !process.argv.includes("--no-minify");
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
  const built = await buildWorker({ env: "local", outdir: join(root, "dist", "worker"), minify });
  console.log(
    `start: built ${built.modules.join(", ")} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${built.sizeLine ?? "size unknown"})`,
  );
  server = await serveBuiltWorker({ outdir: built.outdir, host, port, persistTo, logLevel, inspectorPort });
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
