// playwrightWebScraper and puppeteerWebScraper (Flowise 3.1.4). Flowise drives a local headless
// Chromium; a Worker has none, so each page is rendered by Cloudflare Browser Rendering's REST API:
//   POST {BROWSER_RENDERING_BASE_URL}/accounts/{BROWSER_RENDERING_ACCOUNT_ID}/browser-rendering/content
//   Authorization: Bearer {BROWSER_RENDERING_API_TOKEN}
//   {url, gotoOptions: {waitUntil, timeout}, waitForSelector?: {selector, timeout}}
//   → {success: true, result: "<!DOCTYPE html>…"}   (errors: {success: false, errors: [{code, message}]})
// Which pages (one, a crawl, a sitemap's, the selected links; crawls fetch plainly, as Flowise's
// do) and how a failing page counts: web-pages.ts. Each page's URL is checked by the outbound policy
// before the service is asked for it (a private address is a 400, the service never called).
// What a document holds, as LangChain's loaders and Flowise's `evaluate` make it, metadata {source}:
//   - playwright without cssSelector/waitForSelector: the page's HTML (page.content());
//   - puppeteer without them: document.body.innerHTML;
//   - with either: the innerHTML of cssSelector's first match, else document.body.innerHTML.
// waitUntil is puppeteer's vocabulary at the service: Playwright's networkidle (no connection for
// 500 ms) is networkidle0, and its commit (response received), which puppeteer lacks, the earliest
// puppeteer has, domcontentloaded. Unset: domcontentloaded, Flowise's default.
import { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { assertOutboundAllowed } from "../../lib/outbound";
import { hostedCall, serviceBase } from "./hosted/call";
import type { LoaderDefinition, LoaderInput } from "./types";
import { loadWebPages } from "./web-pages";

const SERVICE = "Cloudflare Browser Rendering";
const GOTO_TIMEOUT_MS = 30_000;
/** Playwright's and puppeteer's own default for waitForSelector. */
const SELECTOR_TIMEOUT_MS = 30_000;
/** One page: navigation and the selector's wait, with room for the service's own work. */
const CALL_TIMEOUT_MS = 75_000;

interface Flavour {
  name: "playwrightWebScraper" | "puppeteerWebScraper";
  label: string;
  /** The node's waitUntilGoToOption values, as the service (puppeteer) names them. */
  waitUntil: Record<string, string>;
  /** What the page is without cssSelector or waitForSelector: its whole HTML, or the body's. */
  whole: "page" | "body";
}

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/** The inner HTML of `selector`'s first match in `html`, found by HTMLRewriter (undefined: no match). */
async function innerHtml(html: string, selector: string, name: string): Promise<string | undefined> {
  const mark = `ef-${crypto.randomUUID()}`;
  const [open, close] = [`<!--${mark}-open-->`, `<!--${mark}-close-->`];
  let found = false;
  let rewriter: HTMLRewriter;
  try {
    rewriter = new HTMLRewriter().on(selector, {
      element(el) {
        if (found) return;
        found = true;
        el.prepend(open, { html: true });
        el.append(close, { html: true });
      },
    });
  } catch (err) {
    throw fail("INVALID_FLOW", `${name}: "${selector}" is not a CSS selector it can read: ${err instanceof Error ? err.message : err}`);
  }
  const out = await rewriter.transform(new Response(html, { headers: { "content-type": "text/html" } })).text();
  const start = out.indexOf(open);
  const end = out.indexOf(close, start);
  return start < 0 || end < 0 ? undefined : out.slice(start + open.length, end);
}

function serviceOf(input: LoaderInput, name: string) {
  const account = str(input.services?.BROWSER_RENDERING_ACCOUNT_ID);
  const token = str(input.services?.BROWSER_RENDERING_API_TOKEN);
  if (!account || !token)
    throw fail(
      "INVALID_FLOW",
      `${name} renders pages with ${SERVICE}, which this deployment has not set up: set BROWSER_RENDERING_ACCOUNT_ID and ` +
        "BROWSER_RENDERING_API_TOKEN (an API token with the Browser Rendering - Edit permission)",
    );
  const base = serviceBase(input.services?.BROWSER_RENDERING_BASE_URL, "https://api.cloudflare.com/client/v4");
  return { url: `${base}/accounts/${encodeURIComponent(account)}/browser-rendering/content`, token };
}

function loaderOf(flavour: Flavour): LoaderDefinition {
  const { name } = flavour;
  return {
    name,
    label: flavour.label,
    async load(input) {
      const { config } = input;
      const service = serviceOf(input, name);
      const option = str(config.waitUntilGoToOption);
      const waitUntil = option ? flavour.waitUntil[option] : "domcontentloaded";
      if (!waitUntil)
        throw fail("INVALID_FLOW", `${name}: waitUntilGoToOption must be one of ${Object.keys(flavour.waitUntil).join(", ")}`);
      const waitFor = str(config.waitForSelector);
      const cssSelector = str(config.cssSelector);
      const read = async (page: string, deadline: number) => {
        assertOutboundAllowed(page, input.outbound);
        const body = {
          url: page,
          gotoOptions: { waitUntil, timeout: GOTO_TIMEOUT_MS },
          ...(waitFor ? { waitForSelector: { selector: waitFor, timeout: SELECTOR_TIMEOUT_MS } } : {}),
        };
        const { text } = await hostedCall(input, {
          service: SERVICE,
          field: "BROWSER_RENDERING_BASE_URL",
          url: service.url,
          init: {
            method: "POST",
            headers: { authorization: `Bearer ${service.token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          },
          secrets: [service.token],
          timeoutMs: Math.max(1, Math.min(CALL_TIMEOUT_MS, deadline - Date.now())),
        });
        let answer: { success?: unknown; result?: unknown; errors?: { message?: unknown }[] };
        try {
          answer = JSON.parse(text);
        } catch {
          throw fail("UPSTREAM_FAILED", `${SERVICE} answered something that is not JSON`);
        }
        if (answer.success === false || typeof answer.result !== "string")
          throw fail(
            "UPSTREAM_FAILED",
            `${SERVICE} could not render ${page}: ${String(answer.errors?.[0]?.message ?? "no HTML in its answer")}`,
          );
        const html = answer.result;
        let content: string;
        if (cssSelector || waitFor || flavour.whole === "body") {
          const picked = cssSelector ? await innerHtml(html, cssSelector, name) : undefined;
          content = picked ?? (await innerHtml(html, "body", name)) ?? "";
        } else content = html;
        if (!content.trim()) throw fail("INVALID_INPUT", `${SERVICE} rendered nothing for ${page}`);
        return new Document({ pageContent: content, metadata: { source: page } });
      };
      try {
        return await loadWebPages(input, { name, concurrent: 2 }, read);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        throw fail("UPSTREAM_FAILED", `${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
  };
}

const same = (...names: string[]) => Object.fromEntries(names.map((n) => [n, n]));

export const browserRenderingLoaders: LoaderDefinition[] = [
  loaderOf({
    name: "playwrightWebScraper",
    label: "Playwright Web Scraper",
    waitUntil: { ...same("load", "domcontentloaded"), networkidle: "networkidle0", commit: "domcontentloaded" },
    whole: "page",
  }),
  loaderOf({
    name: "puppeteerWebScraper",
    label: "Puppeteer Web Scraper",
    waitUntil: same("load", "domcontentloaded", "networkidle0", "networkidle2"),
    whole: "body",
  }),
];
