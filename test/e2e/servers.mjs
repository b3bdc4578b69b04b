// Servers for the browser end-to-end test: edgeflow (via scripts/dev.mjs on a throwaway state
// directory), and a page server on another origin that hosts flowise-embed's web.js.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");

export function freePort() {
  return new Promise((res, rej) => {
    const s = createNetServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * Starts `npm run dev`'s script (or `scripts/start.mjs`, the built worker, as `npm start` does) on a
 * free port and a fresh state dir, with `vars` set over wrangler.toml's; resolves once /ping answers.
 */
export async function startEdgeflow({ script = "scripts/dev.mjs", port: wanted, vars = {} } = {}) {
  // E2E_PORT: a fixed port (a machine shared with other builds gives each its own range).
  const port = wanted ?? (process.env.E2E_PORT ? Number(process.env.E2E_PORT) : await freePort());
  const state = mkdtempSync(join(tmpdir(), "edgeflow-e2e-"));
  const log = [];
  const child = spawn(
    process.execPath,
    [
      script,
      ...["--port", String(port), "--persist-to", state, "--log-level", process.env.E2E_VERBOSE ? "log" : "warn"],
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  // E2E_VERBOSE=1 shows the server's own output as it runs (otherwise only when it fails to start).
  const keep = (d) => (process.env.E2E_VERBOSE ? process.stderr.write(d) : log.push(String(d)));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const stop = () => {
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    rmSync(state, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}/api/v1`;
  // Up to 3 minutes: on a machine shared with other builds, wrangler dev's first answer is slow.
  for (let i = 0; i < 360; i++) {
    try {
      if ((await fetch(`${url}/ping`)).ok) break;
    } catch {}
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  try {
    if (!(await fetch(`${url}/ping`)).ok) throw new Error("not ready");
  } catch {
    stop();
    throw new Error(`edgeflow did not start:\n${log.join("").slice(-3000)}`);
  }
  const devVars = readFileSync(join(root, ".dev.vars"), "utf8");
  const adminKey = /^ADMIN_API_KEY=(.*)$/m.exec(devVars)?.[1]?.trim();
  return { url, adminKey, stop };
}

/** Serves `/` pages (HTML from `pages`) and `/web.js` from flowise-embed, on its own origin. */
export async function startPageServer(pages) {
  const webJs = join(root, "node_modules/flowise-embed/dist/web.js");
  if (!existsSync(webJs)) throw new Error("flowise-embed is not installed (npm install)");
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page").pathname;
    if (path === "/web.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(readFileSync(webJs));
      return;
    }
    const html = pages[path];
    res.writeHead(html ? 200 : 404, { "content-type": "text/html" });
    res.end(html ?? "not found");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A full-page chatbot for `chatflowid` talking to `apiHost`. */
export const widgetPage = (chatflowid, apiHost) => `<!doctype html>
<html><head><meta charset="utf-8"><title>widget e2e</title></head>
<body>
<flowise-fullchatbot></flowise-fullchatbot>
<script type="module">
  import Chatbot from "/web.js";
  Chatbot.initFull({ chatflowid: ${JSON.stringify(chatflowid)}, apiHost: ${JSON.stringify(apiHost)} });
</script>
</body></html>`;
