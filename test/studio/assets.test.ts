// Issue 30, item 1: the studio's files as the asset layer serves them (the ASSETS binding is that
// layer: the same directory, _headers and single-page fallback). Which paths reach the worker
// first (wrangler.toml's run_worker_first) is not the binding's to show: test/e2e/studio.e2e.mjs
// checks that against the running worker.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { call } from "../helpers";

const asset = (path: string) => (env as unknown as { ASSETS: Fetcher }).ASSETS.fetch(new Request(`http://edgeflow.test${path}`));

const directives = (csp: string) =>
  new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
      .map(([k, ...v]) => [k, v]),
  );

describe("the studio's page", () => {
  it("/ is Flowise's index.html, not cached, with a CSP that allows only the origin itself", async () => {
    const res = await asset("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const csp = directives(res.headers.get("content-security-policy") ?? "");
    expect(csp.get("default-src")).toEqual(["'self'"]);
    expect(csp.get("script-src")).toEqual(["'self'"]); // no inline script, no eval, no other host
    expect(csp.get("connect-src")).toEqual(["'self'"]); // api.github.com is blocked, not called
    // The chat's voice plays: the recording's preview (data:) and the spoken answer (a MediaSource's blob:).
    expect(csp.get("media-src")).toEqual(["'self'", "blob:", "data:"]);
    for (const sources of csp.values()) for (const s of sources) expect(s).not.toMatch(/^(https?:|\*|wss?:)/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toContain('<div id="root"></div>');
  });

  it("client-side routes answer the same index.html (the single-page fallback)", async () => {
    const root = await (await asset("/")).text();
    for (const path of ["/canvas/abc", "/v2/agentcanvas/3f1c", "/agentflows", "/signin", "/organization-setup"]) {
      const res = await asset(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(root);
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'self'");
    }
  });

  it("index.html loads nothing from another host and has no inline script; the init script comes before the bundle", async () => {
    const html = await (await asset("/")).text();
    const loads = [...html.matchAll(/<(script|link)\b[^>]*>/gi)].map((m) => m[0]);
    expect(loads.length).toBeGreaterThan(2);
    for (const tag of loads) expect(tag).not.toMatch(/\b(src|href)\s*=\s*["'](https?:)?\/\//i);
    expect(html).not.toMatch(/fonts\.googleapis|wdfl\.co|rewardful/);
    expect([...html.matchAll(/<script\b([^>]*)>/gi)].every((m) => /\bsrc=/.test(m[1]))).toBe(true);
    const init = html.indexOf('src="/edgeflow-studio.js"');
    const bundle = html.search(/type="module"[^>]*src="\/assets\/index-[\w-]+\.js"/);
    expect(init).toBeGreaterThan(0);
    expect(bundle).toBeGreaterThan(init);
  });

  it("the init script dismisses the sunset banner and provides `global`", async () => {
    const script = await (await asset("/edgeflow-studio.js")).text();
    expect(script).toContain('localStorage.setItem("flowise.announcementDismissed", "true")');
    expect(script).toContain("window.global = window");
  });

  it("hashed files under /assets/ are cached for a year, immutable", async () => {
    const html = await (await asset("/")).text();
    const bundle = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)![1];
    const res = await asset(bundle);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await res.text()).length).toBeGreaterThan(1_000_000);
  });
});

describe("the API beside it", () => {
  it("/api/v1 paths are the worker's as before: ping, the version the studio compares, the reference and its script", async () => {
    expect(await (await call("GET", "/ping", { token: null })).text()).toBe("pong");
    expect(await (await call("GET", "/version", { token: null })).json()).toEqual({ version: "3.1.4", edgeflow: pkg.version });
    const docs = await call("GET", "/docs", { token: null });
    expect(await docs.text()).toContain("/api/v1/docs/scalar.js");
    const script = await call("GET", "/docs/scalar.js", { token: null });
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});

describe("the worker's own files", () => {
  it("a missing one is a miss (404), not the studio's page the single-page fallback would give", async () => {
    const { fetchAsset, readAsset } = await import("../../src/lib/assets");
    expect((await asset("/_edgeflow/no-such-file.json")).status).toBe(200); // the binding alone: index.html
    expect((await fetchAsset("no-such-file.json")).status).toBe(404);
    const conditional = await fetchAsset("catalogue/node/noSuchNode.json", { "if-none-match": "*" });
    expect(conditional.status).toBe(404);
    await expect(readAsset("no-such-file.json")).rejects.toThrow(/missing/);
    const ranks = await readAsset("tiktoken/gpt2.json");
    expect(ranks.headers.get("content-type")).toMatch(/json/);
  });
});
