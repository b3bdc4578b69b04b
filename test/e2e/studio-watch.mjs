// What the studio's browser test watches and probes from outside the page: every request the page
// makes (another host is refused and recorded; an /api/v1 answer of 4xx/5xx is recorded against the
// step that caused it), and the session cookie replayed by hand, the way an attacker or a curl would.

export const COOKIE = "edgeflow_session";

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Fails the step now, saying which earlier step should have produced what it needs. */
export function need(value, what) {
  if (value === undefined || value === null) throw new Error(`cannot run: ${what}`);
  return value;
}

/**
 * A browser context whose page refuses and records every request to another host, and records the
 * API's refusals (those matching `pending` apart: calls not built yet, reported without failing).
 */
// Flowise 3.1.4's own races, not edgeflow's: its chat's audio player calls MediaSource.endOfStream()
// 100 ms after appending the last queued chunk without checking that the append finished
// (packages/ui/src/views/chatmessage/ChatMessage.jsx, handleTTSEnd), which throws when the audio
// arrived all at once (a fast provider, a loaded machine). Counted and reported, never failed.
// And the same race's other end: a chunk appended after that endOfStream() reopens the MediaSource
// (MSE fires `sourceopen` again), the player's `sourceopen` handler (not once-only) adds a second
// SourceBuffer, Chromium refuses it (QuotaExceededError, "reached the limit of SourceBuffer
// objects"), and its catch logs an undeclared `mimeType` (initializeTTSStreaming): a ReferenceError
// counted as the UI's own only when the console has just said so.
const UPSTREAM_UI_RACES = [/Failed to execute 'endOfStream' on 'MediaSource': The 'updating' attribute is true/];
const SOURCE_BUFFER_LIMIT = /^Error setting up source buffer: QuotaExceededError: .*limit of SourceBuffer objects/;
const isUpstream = (text, consoleErrors) =>
  UPSTREAM_UI_RACES.some((re) => re.test(text)) ||
  (/ReferenceError: mimeType is not defined/.test(text) && consoleErrors.some((e) => SOURCE_BUFFER_LIMIT.test(e)));

export async function watchedContext(browser, origin, pending = []) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  // `providers`: origins a step lets its pop-up reach (an OAuth2 provider's consent page), no other.
  const seen = { elsewhere: [], blocked: [], failing: [], pending: new Set(), errors: [], upstream: [], apiCalls: 0, providers: [] };
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    if (seen.providers.some((p) => url.startsWith(`${p}/`))) return route.continue();
    seen.elsewhere.push(url);
    return route.abort("internetdisconnected");
  });
  context.setDefaultTimeout(15_000); // a step that cannot go on fails in seconds, not half a minute
  const page = await context.newPage();
  const consoleErrors = []; // the last few: what the page said just before it threw
  page.on("console", (m) => {
    if (/Content Security Policy/.test(m.text())) seen.blocked.push(m.text().slice(0, 160));
    if (m.type() === "error" && consoleErrors.push(m.text()) > 3) consoleErrors.shift();
  });
  page.on("pageerror", (e) => {
    const text = String(e).slice(0, 200);
    if (isUpstream(text, consoleErrors)) seen.upstream.push(text);
    else seen.errors.push(consoleErrors.length ? `${text} (the console before: ${consoleErrors.join(" / ").slice(0, 300)})` : text);
  });
  page.on("response", (r) => {
    const path = new URL(r.url()).pathname;
    if (!path.startsWith("/api/v1/")) return;
    seen.apiCalls++;
    if (r.status() < 400) return;
    const line = `${r.status()} ${r.request().method()} ${path}`;
    if (pending.some((re) => re.test(path))) seen.pending.add(line);
    else seen.failing.push(line);
  });
  return { context, page, seen };
}

/**
 * Runs `fn` as one step and fails it when the page, meanwhile, asked another host, got a 4xx/5xx
 * from the API or threw: each step answers for the requests it caused.
 */
export function watchedStep(step, seen, page) {
  let shots = 0;
  return (name, fn) =>
    step(name, async () => {
      const from = { elsewhere: seen.elsewhere.length, failing: seen.failing.length, errors: seen.errors.length };
      try {
        await fn();
      } catch (err) {
        // What the page met meanwhile is often why the step could not go on.
        const met = [...new Set([...seen.failing.slice(from.failing), ...seen.errors.slice(from.errors)])];
        if (met.length) {
          const lines = String(err.stack ?? err.message).split("\n");
          err.stack = [lines[0], `meanwhile: ${met.join(" | ")}`, ...lines.slice(1)].join("\n");
        }
        // E2E_SCREENSHOTS=<dir>: what the page showed when the step failed.
        const dir = process.env.E2E_SCREENSHOTS;
        if (dir) await page.screenshot({ path: `${dir}/studio-${++shots}.png` }).catch(() => {});
        throw err;
      }
      const elsewhere = seen.elsewhere.slice(from.elsewhere);
      const failing = seen.failing.slice(from.failing);
      const errors = seen.errors.slice(from.errors);
      assert(!elsewhere.length, `the page asked other hosts: ${[...new Set(elsewhere)].slice(0, 5).join(", ")}`);
      assert(!failing.length, `API calls refused: ${[...new Set(failing)].join(", ")}`);
      assert(!errors.length, `page errors: ${errors.slice(0, 3).join(" | ")}`);
    });
}

/** The session cookie the browser holds (HttpOnly: only the test can read it), or undefined. */
export async function sessionCookie(context) {
  return (await context.cookies()).find((c) => c.name === COOKIE);
}

/** A request carrying only the given cookie value, from outside the browser. */
export function withCookie(origin, value, path, { internal = true, method = "GET", body, headers = {} } = {}) {
  return fetch(`${origin}/api/v1${path}`, {
    method,
    headers: {
      cookie: `${COOKIE}=${value}`,
      ...(internal ? { "x-request-from": "internal" } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body && JSON.stringify(body),
  });
}

/** The admin key's view of the API: what was stored, whatever the page showed. */
export function adminApi(apiUrl, adminKey) {
  return async (method, path, body) => {
    const res = await fetch(apiUrl + path, {
      method,
      headers: { Authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** Sets `until` true-ish within `ms`, polling every 100 ms; the last value, or an error naming `what`. */
export async function eventually(what, until, ms = 10_000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await until();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} (waited ${ms} ms)`);
}
