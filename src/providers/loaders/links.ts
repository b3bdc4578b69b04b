// The links of a site, as Flowise's webCrawl and xmlScrape find them: for GET /fetch-links (a web
// loader node's "Manage links" dialog) and for the web scraper loaders when `relativeLinksMethod` is
// set (web-pages.ts). webCrawl follows a site's own links from the page given; xmlScrape reads a
// sitemap's <loc> entries. Every page is fetched through the outbound policy (lib/outbound: the URL
// and each redirect hop checked, private addresses refused), and the work is bounded: at most
// MAX_LINKS links, pages of at most MAX_PAGE_BYTES, each answered within PAGE_TIMEOUT_MS, the whole
// within TOTAL_MS (what was found by then is answered).
import { ApiError, fail } from "../../errors";
import { type OutboundEnv, assertOutboundAllowed, outboundFetch } from "../../lib/outbound";
import { errorMessage } from "../../lib/error-message";

export const MAX_LINKS = 100;
const MAX_PAGE_BYTES = 2 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 10_000;
const TOTAL_MS = 30_000;
/** Links waiting to be visited: a page full of links cannot grow the crawl's memory without end. */
const MAX_QUEUE = 5_000;

// The loader nodes name the sitemap method `scrapeXMLSitemap`, and the studio's dialog sends the
// node's value as it is; Flowise's /fetch-links reads anything but webCrawl as a sitemap.
export const LINK_METHODS = ["webCrawl", "xmlScrape", "scrapeXMLSitemap"] as const;
export type LinkMethod = (typeof LINK_METHODS)[number];

interface Page {
  url: string;
  type: string;
  body: string;
}

/** The page's text (at most MAX_PAGE_BYTES), or undefined when it answered an error status. */
async function fetchPage(url: string, env: OutboundEnv, deadline: number): Promise<Page | undefined> {
  const signal = AbortSignal.timeout(Math.max(1, Math.min(PAGE_TIMEOUT_MS, deadline - Date.now())));
  let res: Response;
  try {
    res = await outboundFetch(url, { signal, headers: { accept: "text/html,application/xml,text/xml;q=0.9,*/*;q=0.5" } }, env);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw fail("TIMEOUT", `${url} did not answer within ${PAGE_TIMEOUT_MS / 1000} s`);
    throw fail("UPSTREAM_FAILED", `Could not fetch ${url}: ${errorMessage(err)}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    return undefined;
  }
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PAGE_BYTES) {
      await reader.cancel();
      break; // the links of the first MAX_PAGE_BYTES are enough
    }
    chunks.push(value);
  }
  const decoder = new TextDecoder();
  const body = chunks.map((c, i) => decoder.decode(c, { stream: i < chunks.length - 1 })).join("");
  return { url: res.url || url, type: (res.headers.get("content-type") ?? "").toLowerCase(), body };
}

/** Flowise's normalizeURL: scheme, host, path and query, without a trailing slash or fragment. */
export function normalizeLink(url: URL): string {
  const path = `${url.pathname}${url.search}`.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

async function hrefsOf(html: string): Promise<string[]> {
  const hrefs: string[] = [];
  const rewriter = new HTMLRewriter().on("a[href]", {
    element(el) {
      const href = el.getAttribute("href");
      if (href) hrefs.push(href);
    },
  });
  await rewriter.transform(new Response(html)).text();
  return hrefs;
}

/** Pages of the start page's host reached by its links, breadth first, the start page first. */
async function webCrawl(start: URL, limit: number, env: OutboundEnv, deadline: number): Promise<string[]> {
  const found: string[] = [];
  const queue: URL[] = [start];
  while (queue.length && found.length < limit && Date.now() < deadline) {
    const url = queue.shift() as URL;
    const key = normalizeLink(url);
    if (url.host !== start.host || found.includes(key)) continue;
    found.push(key);
    // The start page's failure is the caller's to know; a later page's only ends that branch.
    const page = await fetchPage(url.href, env, deadline).catch((err) => {
      if (found.length === 1) throw err;
      return undefined;
    });
    if (!page) {
      if (found.length === 1) throw fail("INVALID_INPUT", `${url.href} answered an error status`);
      continue;
    }
    if (!page.type.includes("text/html")) continue;
    for (const href of await hrefsOf(page.body)) {
      try {
        const next = new URL(href, page.url);
        next.hash = "";
        const sameSite = (next.protocol === "http:" || next.protocol === "https:") && next.host === start.host;
        if (sameSite && queue.length < MAX_QUEUE) queue.push(next);
      } catch {
        // not a URL
      }
    }
  }
  return found;
}

const decodeXml = (s: string) =>
  s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");

/** The <loc> URLs of a sitemap (http and https only). */
async function xmlScrape(start: URL, limit: number, env: OutboundEnv, deadline: number): Promise<string[]> {
  const page = await fetchPage(start.href, env, deadline);
  if (!page) throw fail("INVALID_INPUT", `${start.href} answered an error status`);
  const links: string[] = [];
  for (const m of page.body.matchAll(/<loc>\s*([^<]+?)\s*<\/loc>/g)) {
    const link = decodeXml(m[1]);
    if (/^https?:\/\//i.test(link) && !links.includes(link)) links.push(link);
    if (links.length >= limit) break;
  }
  return links;
}

/** The links at `rawUrl` by `method`, at most `limit` (0: MAX_LINKS, as Flowise's 0 means "no limit"). */
export async function fetchLinks(env: OutboundEnv, rawUrl: string, method: LinkMethod, limit: number) {
  const url = assertOutboundAllowed(rawUrl.trim(), env);
  // As Flowise's webCrawl: the start page without its trailing slash (relative links resolve from there).
  if (method === "webCrawl" && url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, "");
  const max = limit <= 0 ? MAX_LINKS : Math.min(limit, MAX_LINKS);
  const deadline = Date.now() + TOTAL_MS;
  const links = method === "webCrawl" ? await webCrawl(url, max, env, deadline) : await xmlScrape(url, max, env, deadline);
  return { status: "OK" as const, links };
}
