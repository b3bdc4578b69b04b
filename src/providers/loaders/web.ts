// cheerioWebScraper: fetches each page under the outbound URL policy (src/lib/outbound/: the URL
// and every redirect hop checked) and extracts its text with HTMLRewriter — the workers runtime's
// own streaming HTML parser, so no DOM library is bundled. `selector` narrows the text (default body).
// Which pages (one, a crawl, a sitemap's, the selected links) and how failures count: web-pages.ts.
import { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { decodeHTML } from "entities/decode";
import type { LoaderDefinition, LoaderInput } from "./types";
import { type OutboundEnv, outboundFetch } from "../../lib/outbound";
import { errorMessage } from "../../lib/error-message";
import { loadWebPages } from "./web-pages";

const FETCH_TIMEOUT_MS = 30_000;
const SKIP = "script, style, noscript, template, svg, iframe, object, head";
const BLOCK =
  "p, div, br, li, ul, ol, h1, h2, h3, h4, h5, h6, tr, table, section, article, header, footer, nav, aside, main, " +
  "blockquote, pre, hr, dt, dd, figcaption";

export async function fetchPage(
  raw: string,
  outbound: OutboundEnv,
  maxBytes: number,
  deadline = Number.POSITIVE_INFINITY,
): Promise<{ url: string; html: string; type: string }> {
  const timeout = Math.max(1, Math.min(FETCH_TIMEOUT_MS, deadline - Date.now()));
  const signal = AbortSignal.timeout(timeout);
  let res: Response;
  try {
    res = await outboundFetch(
      raw,
      {
        signal,
        headers: { accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5", "user-agent": "edgeflow-document-loader" },
      },
      outbound,
    );
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (signal.aborted) throw fail("TIMEOUT", `${raw} did not answer within ${Math.ceil(timeout / 1000)} s`);
    throw fail("INVALID_INPUT", `Could not fetch ${raw}: ${errorMessage(err)}`);
  }
  const url = res.url || raw;
  if (!res.ok) throw fail("INVALID_INPUT", `Fetching ${url} answered ${res.status}`);
  const length = Number(res.headers.get("content-length"));
  if (Number.isFinite(length) && length > maxBytes) throw fail("INVALID_INPUT", `The page at ${url} is larger than the upload limit`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length > maxBytes) throw fail("INVALID_INPUT", `The page at ${url} is larger than the upload limit`);
  return { url, html: new TextDecoder().decode(bytes), type: res.headers.get("content-type") ?? "" };
}

/** Visible text of an HTML page under `selector`, blocks on their own lines; and its title. */
export async function htmlToText(html: string, selector = "body"): Promise<{ text: string; title?: string }> {
  const parts: string[] = [];
  let skipping = 0;
  let title = "";
  let inTitle = false;
  const rewriter = new HTMLRewriter()
    .on("title", {
      element(el) {
        inTitle = true;
        el.onEndTag(() => {
          inTitle = false;
        });
      },
      text(t) {
        if (inTitle) title += t.text;
      },
    })
    .on(SKIP, {
      element(el) {
        skipping++;
        try {
          el.onEndTag(() => {
            skipping--;
          });
        } catch {
          skipping--; // an element without an end tag holds no text
        }
      },
    })
    .on(BLOCK, {
      element() {
        parts.push("\n");
      },
    })
    .on(selector, {
      text(t) {
        if (!skipping) parts.push(t.text);
      },
    });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html" } })).arrayBuffer();
  const text = decodeHTML(parts.join(""))
    .split("\n")
    .map((l) => l.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { text, title: decodeHTML(title).trim() || undefined };
}

/** One page's text under `selector` as a document with its `source` (the URL after redirects) and title. */
async function readPage(raw: string, input: LoaderInput, selector: string, deadline: number): Promise<Document> {
  const page = await fetchPage(raw, input.outbound, input.maxBytes, deadline);
  let extracted: { text: string; title?: string };
  if (/text\/plain/i.test(page.type)) extracted = { text: page.html.trim() };
  else {
    try {
      extracted = await htmlToText(page.html, selector);
    } catch (err) {
      throw fail("INVALID_FLOW", `Could not read the page at ${page.url} with selector "${selector}": ${errorMessage(err)}`);
    }
  }
  if (!extracted.text) throw fail("INVALID_INPUT", `No text found at ${page.url}${selector !== "body" ? ` under "${selector}"` : ""}`);
  return new Document({
    pageContent: extracted.text,
    metadata: { source: page.url, ...(extracted.title ? { title: extracted.title } : {}) },
  });
}

export const webLoader: LoaderDefinition = {
  name: "cheerioWebScraper",
  label: "Cheerio Web Scraper",
  async load(input) {
    const { config } = input;
    const selector = typeof config.selector === "string" && config.selector.trim() ? config.selector.trim() : "body";
    return loadWebPages(input, { name: "cheerioWebScraper", concurrent: 4 }, (url, deadline) => readPage(url, input, selector, deadline));
  },
};
