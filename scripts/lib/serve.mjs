// Serves a worker built by build.mjs with Miniflare's API: workerd listens on the port itself, so
// a request goes socket → workerd → the worker, without `wrangler dev`'s proxy (about 5.7 ms of
// every request here). The bindings are the ones wrangler.toml declares for the environment (read
// by wrangler itself), the secrets come from .dev.vars, and the state is wrangler's local state
// directory, so `npm start` and `npm run dev` see the same D1, R2 and Durable Objects.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readDevVars, root } from "./local.mjs";

const LOG_LEVELS = { none: "NONE", error: "ERROR", warn: "WARN", info: "INFO", log: "INFO", debug: "DEBUG" };

/**
 * Starts the built worker in `outdir` on host:port with state under `persistTo` (wrangler's
 * `--persist-to`; default .wrangler/state); `vars` override the configured ones; `assets: false` serves
 * the worker alone, every path to it (no studio). Answers {url, dispose}.
 */
export async function serveBuiltWorker({
  outdir,
  env = "local",
  host = "127.0.0.1",
  port = 8787,
  persistTo,
  logLevel = "warn",
  inspectorPort,
  vars = {},
  assets: withAssets = true,
}) {
  const { Miniflare, Log, LogLevel, convertV4MiniflareOptions } = await import("miniflare");
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"), env);
  // The bundle is already built: its modules are listed, so no source rules apply.
  const { modulesRules: _rules, rootPath: _root, assets, ...bindings } = workerOptions;
  // The entry module first: workerd takes the first module as the main one.
  const modules = readdirSync(outdir)
    .filter((f) => !f.endsWith(".map") && f !== "README.md")
    .sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : a.localeCompare(b)))
    .map((f) => ({
      type: f === "index.js" ? "ESModule" : f.endsWith("-wasm") || f.endsWith(".wasm") ? "CompiledWasm" : "Data",
      path: join(outdir, f),
    }));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host,
      port,
      cf: false, // no Request.cf lookup over the network
      // GET /cdn-cgi/handler/scheduled?cron=…&time=<unix seconds> fires the Cron Trigger (as under wrangler dev).
      unsafeTriggerHandlers: true,
      ...(inspectorPort ? { inspectorPort } : {}),
      log: new Log(LogLevel[LOG_LEVELS[logLevel] ?? "WARN"]),
      resourcePersistencePath: join(persistTo ?? join(root, ".wrangler", "state"), "v3"),
      workers: [
        {
          ...bindings,
          name: "edgeflow",
          modules,
          modulesRoot: outdir,
          bindings: { ...bindings.bindings, ...readDevVars(), ...vars },
          // Without the asset layer (a measurement: what the local asset router costs each request),
          // ASSETS answers 404 for the worker's own files and nothing serves the studio.
          ...(withAssets
            ? { assets }
            : { serviceBindings: { ...bindings.serviceBindings, ASSETS: () => new Response(null, { status: 404 }) } }),
        },
      ],
    }),
  );
  const url = await mf.ready;
  return { url: new URL("/api/v1", url).href, dispose: () => mf.dispose() };
}
