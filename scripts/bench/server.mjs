// The server under test: `npm start` (scripts/start.mjs: the built worker without wrangler's dev
// proxy) or, with `--server dev`, `npm run dev` (scripts/dev.mjs: wrangler dev), in its own process
// group so workerd goes down with it, on a snapshot of the working tree and a fresh state
// directory.
//
// The snapshot (node_modules linked, not copied) keeps the figures clean of the developer's own
// edits: `wrangler dev` rebuilds whenever a file under src/ changes and holds requests while a
// build is broken. Its .dev.vars comes from .dev.vars.example (whose ADMIN_API_KEY the benchmark
// uses to create its API key).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, createWriteStream, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { root, toolEnv, wrangler } from "../lib/local.mjs";
import { cpuMeter } from "./cpu.mjs";

const SCRIPTS = { start: "start.mjs", dev: "dev.mjs" };

export const ADMIN_API_KEY = (() => {
  const line = readFileSync(join(root, ".dev.vars.example"), "utf8")
    .split("\n")
    .find((l) => l.startsWith("ADMIN_API_KEY="));
  return line ? line.slice("ADMIN_API_KEY=".length).trim() : "edgeflow-dev-admin-key";
})();

/** Copies the working tree (or `from`) — sources, config, migrations, scripts — to dir, linking node_modules. */
export function snapshot(dir, from = root) {
  const skip = new Set(["node_modules", ".git", ".wrangler", ".dev.vars", "test", "dist", "bench-results.json", ".test-results.json"]);
  cpSync(from, dir, {
    recursive: true,
    filter: (src) => {
      const rel = src.slice(from.length + 1);
      return rel === "" || !skip.has(rel.split(/[\\/]/)[0]);
    },
  });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
}

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** One server (its app snapshot dir, state dir, log file, kind), started and stopped as often as asked. */
export class BenchServer {
  constructor({ app, stateDir, logFile, kind, logLevel, inspectorPort, assets = true }) {
    Object.assign(this, { app, stateDir, logFile, kind, logLevel, inspectorPort, assets, child: undefined, cpu: cpuMeter(undefined) });
    if (!SCRIPTS[kind]) throw new Error(`bench: --server must be one of ${Object.keys(SCRIPTS).join(", ")}, got ${kind}`);
    if (!assets && kind !== "start") throw new Error("bench: --no-assets needs --server start");
  }

  /** A one-shot wrangler command on the snapshot (CI=true: wrangler answers its prompts itself). */
  wrangler(args, what) {
    const r = spawnSync(wrangler, args, {
      cwd: this.app,
      env: { ...toolEnv, CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) {
      throw new Error(`${what} failed (exit ${r.status ?? r.signal}):\n${(r.stdout + r.stderr).split("\n").slice(-25).join("\n")}`);
    }
    return r.stdout;
  }

  async start(port) {
    const log = createWriteStream(this.logFile, { flags: "a" });
    await new Promise((r) => log.on("open", r));
    const args = [
      join(this.app, "scripts", SCRIPTS[this.kind]),
      "--port",
      String(port),
      "--persist-to",
      this.stateDir,
      "--log-level",
      this.logLevel,
      ...(this.inspectorPort ? ["--inspect", String(this.inspectorPort)] : []),
      ...(this.assets ? [] : ["--no-assets"]),
    ];
    const child = spawn(process.execPath, args, { cwd: this.app, env: toolEnv, stdio: ["ignore", log, log], detached: true });
    this.child = child;
    this.cpu = cpuMeter(child.pid); // workerd runs in the script's process group
    let exited = false;
    child.on("exit", () => {
      exited = true;
    });
    const deadline = Date.now() + 180_000; // a build on a busy machine takes a while
    while (Date.now() < deadline) {
      if (exited) break;
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/ping`);
        if (res.ok && (await res.text()).trim() === "pong") return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const tail = readFileSync(this.logFile, "utf8").split("\n").slice(-30).join("\n");
    throw new Error(`the server did not answer /api/v1/ping (${exited ? "it exited" : "timed out"}). Log:\n${tail}`);
  }

  /** The server script's process id (workerd runs below it). */
  get pid() {
    return this.child?.pid;
  }

  async stop() {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) {
      // The script is gone; make sure nothing of its group stayed behind.
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
      return;
    }
    const gone = new Promise((r) => child.once("exit", r));
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 5000);
    await gone;
    clearTimeout(timer);
    // The server has stopped workerd by now; a straggler of the group gets no second chance.
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }

  /** For process exit: no awaiting possible. */
  killNow() {
    if (this.child) {
      try {
        process.kill(-this.child.pid, "SIGKILL");
      } catch {}
      this.child = undefined;
    }
  }
}

export const removeDir = (dir) => rmSync(dir, { recursive: true, force: true });
