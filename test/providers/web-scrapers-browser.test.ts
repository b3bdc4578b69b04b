// playwrightWebScraper and puppeteerWebScraper: each page rendered by Cloudflare Browser Rendering's
// REST API (test/standin/browser-rendering.mjs, which renders HTML unlike what a plain fetch of the
// page gives), through a document store upsert and a chatflow's POST /vector/upsert.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, json, uuid } from "../helpers";
import { flow } from "../engine/retrieval-flows";
import { LOCAL, newStore, upsert } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";

const base = () => inject("browserRenderingUrl");
const TOKEN = "br-token-ok";
type Received = { method: string; path: string; headers: Record<string, string>; body: any };
const received = async (m: string): Promise<Received[]> => (await fetch(`${base()}/requests?contains=${m}`)).json();
const site = (m: string) => `${base()}/web/${m}`;

async function load(name: string, config: Record<string, unknown>, expected = 200) {
  const store = await newStore("rendered");
  return upsert(store.id, { ...LOCAL, loader: { name, config } }, expected);
}

describe("playwrightWebScraper and puppeteerWebScraper over Cloudflare Browser Rendering", () => {
  let restore: () => void;
  const configured = () =>
    setVars({
      OUTBOUND_ALLOW: new URL(base()).host,
      BROWSER_RENDERING_ACCOUNT_ID: "br-account",
      BROWSER_RENDERING_API_TOKEN: TOKEN,
      BROWSER_RENDERING_BASE_URL: `${base()}/client/v4`,
    });
  beforeAll(() => {
    restore = configured();
  });
  afterAll(() => restore());

  it("playwright: the rendered page's whole HTML, source the URL; Playwright's networkidle sent as networkidle0", async () => {
    const m = `pw-${uuid()}`;
    const url = `${site(m)}/page`;
    const up = await load("playwrightWebScraper", { url, waitUntilGoToOption: "networkidle", metadata: '{"kind":"rendered"}' });
    expect(up.addedDocs).toHaveLength(1);
    const doc = up.addedDocs[0];
    expect(doc.pageContent).toMatch(/^<!DOCTYPE html><html><head><title>Rendered<\/title>/);
    expect(doc.pageContent).toContain(`<h1>Rendered /web/${m}/page</h1>`);
    expect(doc.metadata).toMatchObject({ source: url, kind: "rendered" });
    const calls = await received(m);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: "POST",
      path: "/client/v4/accounts/br-account/browser-rendering/content",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: { url, gotoOptions: { waitUntil: "networkidle0", timeout: 30000 } },
    });
    expect(calls[0].body.waitForSelector).toBeUndefined();
  });

  it("puppeteer: body.innerHTML by default; cssSelector's innerHTML after waitForSelector; no match falls back to the body", async () => {
    const m = `pp-${uuid()}`;
    const body = '<div id="app"><h1>Rendered /web/M/x</h1><p class="note">Built by script</p></div><footer>Footer</footer>';
    const plain = await load("puppeteerWebScraper", { url: `${site(m)}/x` });
    expect(plain.addedDocs[0].pageContent).toBe(body.replace("M", m));
    const picked = await load("puppeteerWebScraper", {
      url: `${site(m)}/y`,
      waitUntilGoToOption: "networkidle2",
      waitForSelector: "#app",
      cssSelector: ".note",
    });
    expect(picked.addedDocs[0].pageContent).toBe("Built by script");
    const none = await load("playwrightWebScraper", { url: `${site(m)}/x`, cssSelector: "article.none" });
    expect(none.addedDocs[0].pageContent).toBe(body.replace("M", m));
    const calls = await received(m);
    expect(calls.map((c) => c.body.gotoOptions.waitUntil)).toEqual(["domcontentloaded", "networkidle2", "domcontentloaded"]);
    expect(calls[1].body.waitForSelector).toEqual({ selector: "#app", timeout: 30000 });
  });

  it("a crawl is found by plain fetches, then every page but the PDF is rendered", async () => {
    const m = `crawl-${uuid()}`;
    const up = await load("playwrightWebScraper", { url: site(m), relativeLinksMethod: "webCrawl", limit: "10", cssSelector: "h1" });
    const pages = [site(m), `${site(m)}/a`, `${site(m)}/b`, `${site(m)}/broken`];
    expect(up.addedDocs.map((d: any) => [d.metadata.source, d.pageContent])).toEqual(
      pages.map((p) => [p, `Rendered ${new URL(p).pathname}`]),
    );
    expect((await received(m)).map((c) => c.body.url).sort()).toEqual([...pages].sort());
  });

  it("not configured: a 400 naming the vars to set, the service never called", async () => {
    restore();
    try {
      restore = setVars({ OUTBOUND_ALLOW: new URL(base()).host });
      const m = `unset-${uuid()}`;
      const bad = await load("puppeteerWebScraper", { url: site(m) }, 400);
      expect(bad.message).toMatch(/BROWSER_RENDERING_ACCOUNT_ID and BROWSER_RENDERING_API_TOKEN/);
      expect(await received(m)).toEqual([]);
    } finally {
      restore();
      restore = configured();
    }
  });

  it("a private page address is refused before the service is asked; bad settings are 400s", async () => {
    const refused = await load("playwrightWebScraper", { url: "http://169.254.169.254/latest/meta-data?m=private-x" }, 400);
    expect(refused.message).toMatch(/refused/);
    expect(await received("private-x")).toEqual([]);
    const wait = await load("puppeteerWebScraper", { url: site("w"), waitUntilGoToOption: "commit" }, 400);
    expect(wait.message).toMatch(/waitUntilGoToOption must be one of load, domcontentloaded, networkidle0, networkidle2/);
    expect((await load("playwrightWebScraper", { url: site("w"), limit: -2, relativeLinksMethod: "webCrawl" }, 400)).message).toMatch(
      /less than 0/,
    );
  });

  it("the service's errors are 502s with its message, never the token", async () => {
    const m = `fail-${uuid()}`;
    const failed = await load("playwrightWebScraper", { url: `${site(m)}/render-fail` }, 502);
    expect(failed.message).toMatch(/Cloudflare Browser Rendering answered 422: Navigation to .* failed: net::ERR_NAME_NOT_RESOLVED/);
    const selector = await load("puppeteerWebScraper", { url: `${site(m)}/p`, waitForSelector: "#never" }, 502);
    expect(selector.message).toMatch(/Waiting for selector `#never` failed/);
    restore();
    try {
      restore = setVars({
        OUTBOUND_ALLOW: new URL(base()).host,
        BROWSER_RENDERING_ACCOUNT_ID: "br-account",
        BROWSER_RENDERING_API_TOKEN: "br-token-wrong-secret",
        BROWSER_RENDERING_BASE_URL: `${base()}/client/v4`,
      });
      const denied = await load("puppeteerWebScraper", { url: `${site(m)}/q` }, 502);
      expect(denied.message).toContain("answered 401: Authentication error");
      expect(denied.message).not.toContain("br-token-wrong-secret");
    } finally {
      restore();
      restore = configured();
    }
  });

  it("a chatflow's POST /vector/upsert runs puppeteerWebScraper, and saving it warns of no unsupported node", async () => {
    const m = `flow-${uuid()}`;
    const flowData = flow([
      ["loader_0", "puppeteerWebScraper", "Document Loaders", { url: `${site(m)}/guide`, cssSelector: "h1" }],
      ["emb_0", "localHashEmbeddings", "Embeddings"],
      ["vs_0", "memoryVectorStore", "Vector Stores", { document: ["{{loader_0.data.instance}}"], embeddings: "{{emb_0.data.instance}}" }],
    ] as never);
    const saved = await json("POST", "/chatflows", { body: { name: "rendered", flowData } });
    expect(saved.warning).toBeUndefined();
    const res = await call("POST", `/vector/upsert/${saved.id}`, { body: {} });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body.addedDocs.map((d: any) => [d.pageContent, d.metadata.source])).toEqual([[`Rendered /web/${m}/guide`, `${site(m)}/guide`]]);
    expect(await received(m)).toHaveLength(1);
  });
});
