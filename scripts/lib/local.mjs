// What `npm run dev`, `npm start`, the benchmark and the end-to-end tests share about running the
// worker locally: the tool environment, .dev.vars, and the local D1 migrations.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Children find wrangler (and, through `#!/usr/bin/env node`, the Node 22 of the `node`
// devDependency) in node_modules/.bin even when a script is started without `npm run`.
export const toolEnv = {
  ...process.env,
  PATH: [join(root, "node_modules", ".bin"), process.env.PATH ?? ""].join(delimiter),
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

export const wrangler = join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");

/** Exits with a clear message when wrangler is not installed (no `npm install` yet). */
export function requireWrangler(tag) {
  if (!existsSync(wrangler)) {
    console.error(`${tag}: wrangler is not installed here; run \`npm install\` first.`);
    process.exit(1);
  }
}

/** Creates .dev.vars from .dev.vars.example when it is missing. */
export function ensureDevVars(tag) {
  const devVars = join(root, ".dev.vars");
  if (!existsSync(devVars)) {
    copyFileSync(join(root, ".dev.vars.example"), devVars);
    console.log(`${tag}: created .dev.vars from .dev.vars.example (development values only)`);
  }
}

/** The secrets of .dev.vars (what `wrangler dev` adds to the worker's environment). */
export function readDevVars() {
  const devVars = join(root, ".dev.vars");
  return existsSync(devVars) ? parseEnv(readFileSync(devVars, "utf8")) : {};
}

/**
 * Applies pending local D1 migrations; `shared` are the flags the server uses too (`--env`,
 * `--config`, `--persist-to`). Exits on failure.
 *
 * `d1 migrations apply` asks "continue? (Y/n)" when stdin and stdout are a TTY and would wait for
 * an answer forever. It answers yes by itself when stdin is not a TTY or when CI is set (ci-info),
 * so both are arranged here: stdin is ignored and CI=true.
 */
export function applyLocalMigrations(shared, tag) {
  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", ...shared], {
    cwd: root,
    env: { ...toolEnv, CI: "true" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (migrate.error) {
    console.error(`${tag}: could not run wrangler: ${migrate.error.message}`);
    process.exit(1);
  }
  if (migrate.status !== 0) {
    console.error(`${tag}: applying local D1 migrations failed (exit ${migrate.status ?? migrate.signal})`);
    process.exit(migrate.status || 1);
  }
}

/** A tiny argv reader: `--name <v>` / `--name=<v>` (or a short alias), and presence. */
export function argReader(args) {
  const value = (names) => {
    for (let i = 0; i < args.length; i++) {
      for (const n of names) {
        if (args[i] === n) return args[i + 1];
        if (args[i].startsWith(`${n}=`)) return args[i].slice(n.length + 1);
      }
    }
    return undefined;
  };
  const has = (names) => args.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
  return { value, has };
}
