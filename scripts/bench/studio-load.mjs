// `node scripts/bench/studio-load.mjs [--url http://127.0.0.1:PORT] [--port P] [--script start|dev] [--runs N] [--gets N]`
//
// The studio's load, in headless Chromium (playwright-core, /usr/bin/chromium or CHROMIUM_PATH):
// - time to an interactive canvas: from navigating to /canvas (signed in) until the React Flow
//   pane is on the screen, `GET /nodes` has answered and the Add Nodes button is there; with an
//   empty browser cache (a new context each run) and warm (the same page reloaded: the browser's
//   cache, ETags answered 304);
// - opening Add Nodes: until the panel lists nodes and every icon it asked for has arrived (how many);
// - `GET /nodes` from outside the browser with the session cookie, as the studio sends it: p50 of
//   repeated GETs read to the end, without and with If-None-Match (304), and its size (raw, gzip).
// Without --url it starts edgeflow (`npm start`'s script, or --script dev) on a fresh state
// directory, on --port (else a free one). With --url it measures a server already running there
// (e.g. Flowise: `npx flowise start` with PORT set). Both sign up the first account, or sign in.
// Not part of npm test: a measurement, printed as a markdown table.
import { existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { argReader } from "../lib/local.mjs";

const arg = argReader(process.argv.slice(2));
const given = arg.value(["--url"]);
const runs = Number(arg.value(["--runs"]) ?? 5);
const gets = Number(arg.value(["--gets"]) ?? 50);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"];
const EMAIL = "load@example.com";
const PASSWORD = "Studio-load-Passw0rd!";

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x === undefined ? "–" : x.toFixed(0));

async function startServer() {
  const { startEdgeflow } = await import("../../test/e2e/servers.mjs");
  const script = arg.value(["--script"]) === "dev" ? "scripts/dev.mjs" : "scripts/start.mjs";
  const port = arg.value(["--port"]) ? Number(arg.value(["--port"])) : undefined;
  const server = await startEdgeflow({ script, port });
  return { origin: server.url.replace(/\/api\/v1$/, ""), stop: server.stop };
}

/** Waits until the page's URL (client-side routing included) matches `pattern`. */
async function urlMatches(page, pattern, timeout = 60_000) {
  for (const end = Date.now() + timeout; Date.now() < end; await page.waitForTimeout(100)) if (pattern.test(page.url())) return;
  throw new Error(`the page stayed at ${page.url()} (waited for ${pattern})`);
}

/** The chatflows page (at / or /chatflows) is shown: its heading, as the studio's own e2e test waits for. */
const signedIn = (page) => page.getByText("Build single-agent systems").first().waitFor({ timeout: 60_000 });

/** Signs up the first account (organization setup) or signs in; answers the context's cookies. */
async function signIn(browser, origin) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await urlMatches(page, /\/(organization-setup|signin|login|register|chatflows)/);
  if (/organization-setup|register/.test(page.url())) {
    const inputs = page.locator("input");
    await inputs.nth(0).waitFor();
    await inputs.nth(0).fill("Load Owner");
    await inputs.nth(1).fill(EMAIL);
    await inputs.nth(2).fill(PASSWORD);
    await inputs.nth(3).fill(PASSWORD);
    await page.getByRole("button", { name: /sign up/i }).click();
    await signedIn(page);
  }
  if (/signin|login/.test(page.url())) {
    await page.locator("input[type=email]").fill(EMAIL);
    await page.locator("input[type=password]").fill(PASSWORD);
    await page.getByRole("button", { name: /login/i }).click();
    await signedIn(page);
  }
  const state = await context.storageState();
  await context.close();
  return state;
}

/** Navigates (or reloads) to /canvas; answers ms until the canvas is interactive, and what came over the wire. */
async function openCanvas(page, origin, reload) {
  let bytes = 0;
  let requests = 0;
  const counted = [];
  const onFinished = (req) => {
    requests++;
    counted.push(
      req.sizes().then(
        (s) => (bytes += s.responseBodySize + s.responseHeadersSize),
        () => undefined,
      ),
    );
  };
  page.on("requestfinished", onFinished);
  const nodes = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/nodes", { timeout: 60_000 });
  const t0 = performance.now();
  if (reload) await page.reload();
  else await page.goto(`${origin}/canvas`);
  await nodes;
  await page.locator(".react-flow__pane").waitFor({ timeout: 60_000 });
  await page.getByRole("button", { name: "add", exact: true }).waitFor({ timeout: 60_000 });
  const interactive = performance.now() - t0;
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await Promise.all(counted);
  page.off("requestfinished", onFinished);
  return { interactive, requests, bytes };
}

/** Opens Add Nodes; answers ms until its search box and nodes are there and every icon it asked for has arrived, and how many. */
async function openAddNodes(page) {
  const icons = [];
  const onRequest = (req) => {
    if (/\/node-icon\//.test(req.url())) icons.push(req.response());
  };
  page.on("request", onRequest);
  const t0 = performance.now();
  await page.getByRole("button", { name: "add", exact: true }).click();
  await page.getByPlaceholder(/search nodes/i).waitFor({ timeout: 30_000 });
  await page.locator('[draggable="true"]').first().waitFor({ state: "attached", timeout: 30_000 });
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await Promise.all(icons);
  const ms = performance.now() - t0;
  page.off("request", onRequest);
  return { ms, icons: icons.length };
}

/** p50 of `gets` GET /nodes with the session cookie; `etag`: sent as If-None-Match (a 304 expected). */
async function nodesLatency(origin, cookie, etag) {
  const times = [];
  const statuses = new Set();
  let body = "";
  for (let i = 0; i < gets; i++) {
    const headers = { cookie, "x-request-from": "internal", ...(etag ? { "if-none-match": etag } : {}) };
    const t0 = performance.now();
    const res = await fetch(`${origin}/api/v1/nodes`, { headers });
    const text = await res.text();
    times.push(performance.now() - t0);
    statuses.add(res.status);
    if (text) body = text;
  }
  return { p50: p50(times), statuses: [...statuses].join("/"), body };
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const server = given ? { origin: given.replace(/\/+$/, ""), stop: () => undefined } : await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const { origin } = server;
    const state = await signIn(browser, origin);
    const cookie = state.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const cold = [];
    const warm = [];
    const add = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ storageState: state, viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      cold.push(await openCanvas(page, origin, false));
      warm.push(await openCanvas(page, origin, true));
      add.push(await openAddNodes(page));
      await context.close();
    }
    const full = await nodesLatency(origin, cookie);
    const res = await fetch(`${origin}/api/v1/nodes`, { headers: { cookie, "x-request-from": "internal" } });
    const etag = res.headers.get("etag") ?? undefined;
    await res.text();
    const revalidated = etag ? await nodesLatency(origin, cookie, etag) : undefined;
    const nodes = (() => {
      try {
        return JSON.parse(full.body).length;
      } catch {
        return undefined;
      }
    })();
    const raw = Buffer.byteLength(full.body);
    const load = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    console.log(`studio load at ${origin} (${runs} runs, ${gets} GETs each; load average ${load})\n`);
    console.log("| what | p50 |\n|---|---:|");
    console.log(`| canvas interactive, empty cache (ms) | ${ms(p50(cold.map((r) => r.interactive)))} |`);
    console.log(
      `| … requests / KB over the wire until idle | ${p50(cold.map((r) => r.requests))} / ${ms(p50(cold.map((r) => r.bytes)) / 1024)} |`,
    );
    console.log(`| canvas interactive, reloaded (warm cache) (ms) | ${ms(p50(warm.map((r) => r.interactive)))} |`);
    console.log(
      `| … requests / KB over the wire until idle | ${p50(warm.map((r) => r.requests))} / ${ms(p50(warm.map((r) => r.bytes)) / 1024)} |`,
    );
    console.log(`| Add Nodes open, icons loaded (ms) | ${ms(p50(add.map((r) => r.ms)))} |`);
    console.log(`| … icon requests | ${p50(add.map((r) => r.icons))} |`);
    console.log(`| GET /nodes, full answer (ms; status ${full.statuses}) | ${full.p50.toFixed(1)} |`);
    console.log(
      `| GET /nodes with If-None-Match (ms; status ${revalidated?.statuses ?? "no ETag"}) | ${revalidated ? revalidated.p50.toFixed(1) : "–"} |`,
    );
    console.log(`| /nodes: nodes, KB raw / gzip | ${nodes ?? "?"}, ${ms(raw / 1024)} / ${ms(gzipSync(full.body).length / 1024)} |`);
  } finally {
    await browser.close();
    server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
