// The studio (Flowise's web UI at /) against the running worker: which paths the asset layer
// answers and which reach the worker (wrangler.toml's run_worker_first, which the Workers test pool
// cannot show), then the UI in Chromium on a fresh state — set up the first account, sign out,
// sign in, open each page — with every request to another host refused and recorded.

import { studioJourney } from "./studio-journey.e2e.mjs";

// API calls the UI makes that are not there yet (issue 30's other items): reported, not failed,
// until they are built; anything else answering 4xx/5xx fails the step.
const PENDING = []; // every call the pages make is built

// Each page of the open-source UI and the API call that shows it has loaded (null: none; a pause).
const PAGES = [
  ["/chatflows", "/api/v1/chatflows"],
  ["/agentflows", "/api/v1/chatflows"],
  ["/executions", "/api/v1/executions"],
  ["/assistants", null],
  ["/marketplaces", "/api/v1/marketplaces/templates"],
  ["/tools", "/api/v1/tools"],
  ["/credentials", "/api/v1/credentials"],
  ["/variables", "/api/v1/variables"],
  ["/apikey", "/api/v1/apikey"],
  ["/document-stores", "/api/v1/document-store/store"],
  ["/canvas", "/api/v1/nodes"],
  ["/v2/agentcanvas", "/api/v1/nodes"],
  ["/account", "/api/v1/user"],
];
const EMAIL = "owner@example.com";
const PASSWORD = "Studio-e2e-Passw0rd!";

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

async function routing(origin) {
  const index = await fetch(`${origin}/`);
  const html = await index.text();
  assert(index.status === 200 && html.includes('<div id="root">'), `/ is not the studio's index.html (${index.status})`);
  const csp = index.headers.get("content-security-policy") ?? "";
  assert(csp.includes("default-src 'self'") && csp.includes("connect-src 'self'"), `/ has no origin-only CSP: ${csp}`);
  assert(index.headers.get("cache-control") === "no-cache", `/ is cached: ${index.headers.get("cache-control")}`);
  const route = await fetch(`${origin}/canvas/3f1c2a8e`);
  assert(route.status === 200 && (await route.text()) === html, "/canvas/:id does not load the app");
  const bundle = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
  const asset = await fetch(`${origin}${bundle}`);
  await asset.arrayBuffer();
  assert(asset.headers.get("cache-control") === "public, max-age=31536000, immutable", `${bundle}: ${asset.headers.get("cache-control")}`);
  assert((await (await fetch(`${origin}/api/v1/ping`)).text()) === "pong", "/api/v1/ping is not the worker's");
  const unknown = await fetch(`${origin}/api/v1/no-such-route`);
  assert(unknown.status === 404 && (await unknown.json()).statusCode === 404, "an unknown /api/v1 path is not the worker's JSON 404");
  const own = await fetch(`${origin}/_edgeflow/tiktoken/gpt2.json`);
  assert(own.status === 404 && (await own.json()).statusCode === 404, "the worker's own files are served at a URL of their own");
}

/** A page that refuses and records every request to another host, and records the API's refusals. */
async function watchedPage(browser, origin) {
  const page = await browser.newPage();
  const seen = { elsewhere: [], blocked: [], failing: [], pending: new Set(), errors: [] };
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    seen.elsewhere.push(url);
    return route.abort("internetdisconnected");
  });
  page.on("console", (m) => {
    if (/Content Security Policy/.test(m.text())) seen.blocked.push(m.text().slice(0, 160));
  });
  page.on("pageerror", (e) => seen.errors.push(String(e).slice(0, 200)));
  page.on("response", (r) => {
    const path = new URL(r.url()).pathname;
    if (!path.startsWith("/api/v1/") || r.status() < 400) return;
    const line = `${r.status()} ${r.request().method()} ${path}`;
    if (PENDING.some((re) => re.test(path))) seen.pending.add(line);
    else seen.failing.push(line);
  });
  return { page, seen };
}

/** Sets up the first account, signs out and in again as the UI does, and opens every page. */
async function signInAndOpenPages(page, origin) {
  await page.goto(`${origin}/`);
  await page.waitForURL(/\/organization-setup$/, { timeout: 30_000 });
  const inputs = page.locator("input");
  await inputs.nth(0).fill("Studio Owner");
  await inputs.nth(1).fill(EMAIL);
  await inputs.nth(2).fill(PASSWORD);
  await inputs.nth(3).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign Up" }).click();
  await page.getByText("Build single-agent systems").first().waitFor({ timeout: 30_000 });
  const cookie = (await page.context().cookies()).find((c) => c.name === "edgeflow_session");
  assert(cookie?.httpOnly && cookie.sameSite === "Lax", `session cookie: ${JSON.stringify(cookie)}`);
  assert(!(await page.getByText("We're sunsetting Flowise").count()), "the sunset banner is shown");

  // Sign out as the UI does, then the sign-in page.
  const out = await page.evaluate(() =>
    fetch("/api/v1/account/logout", { method: "POST", headers: { "x-request-from": "internal" } }).then((r) => r.json()),
  );
  assert(out.message === "logged_out", `logout answered ${JSON.stringify(out)}`);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${origin}/signin`);
  await page.locator("input[type=email]").fill(EMAIL);
  await page.locator("input[type=password]").fill(PASSWORD);
  await page.getByRole("button", { name: /login/i }).click();
  await page.getByText("Build single-agent systems").first().waitFor({ timeout: 30_000 });

  for (const [path, api] of PAGES) {
    const loaded = api ? page.waitForResponse((r) => new URL(r.url()).pathname === api, { timeout: 20_000 }) : null;
    await page.goto(`${origin}${path}`);
    await (loaded ?? page.waitForTimeout(1500));
    await page.waitForTimeout(300); // the page's other calls
    assert(new URL(page.url()).pathname === path, `${path} sent the page to ${page.url()} (signed out?)`);
  }
}

/**
 * Adds the studio's steps to the browser test (widget.e2e.mjs): the routing, then in Chromium the
 * first account, every page and the journey (studio-journey.e2e.mjs: `adminKey` sets up its flows,
 * whose model is the stand-in at `standinUrl`), then what the page saw meanwhile.
 */
export async function checkStudio(browser, apiUrl, step, { adminKey, standinUrl }) {
  const origin = new URL(apiUrl).origin;
  await step("the studio: /, client routes and hashed files from the asset layer (CSP, caching); /api/* is the worker", () =>
    routing(origin),
  );

  const { page, seen } = await watchedPage(browser, origin);
  try {
    await step("the studio in Chromium: first account, sign-out, sign-in, every page", () => signInAndOpenPages(page, origin));
    await studioJourney(page, { origin, apiUrl, adminKey, standinUrl }, step);
  } finally {
    await page.close();
  }
  await step("the studio asked no other host; no API call was refused and no page failed, while pages loaded and the journey ran", () => {
    if (seen.blocked.length) console.log(`    (the CSP blocked ${seen.blocked.length} attempt(s) at other hosts, e.g. ${seen.blocked[0]})`);
    if (seen.pending.size) console.log(`    (not built yet: ${[...seen.pending].join(", ")})`);
    assert(!seen.elsewhere.length, `the page asked other hosts: ${[...new Set(seen.elsewhere)].slice(0, 5).join(", ")}`);
    assert(!seen.failing.length, `API calls refused: ${[...new Set(seen.failing)].join(", ")}`);
    assert(!seen.errors.length, `page errors: ${seen.errors.slice(0, 3).join(" | ")}`);
  });
}
