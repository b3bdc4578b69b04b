// Which pages a web scraper loader (cheerioWebScraper, playwrightWebScraper, puppeteerWebScraper)
// reads, and reading them, as Flowise 3.1.4's nodes decide it:
//   - `selectedLinks` (what the studio's "Manage links" dialog stores) first, the first `limit` of them;
//   - else, with `relativeLinksMethod` set (webCrawl, or scrapeXMLSitemap: the sitemap at `url`),
//     the pages links.ts finds, at most `limit` (default 10; 0 = all, which is MAX_LINKS here);
//   - else the one page at `url`.
// Links ending in .pdf are left out, as Flowise leaves them (a scraper cannot read a PDF; the PDF
// loader can). Where Flowise differs, deliberately:
//   - Flowise swallows every page's failure and answers no documents; here one page (the single-page
//     case, or a crawl that found one) fails as its error says (400 for a page answering an error, the
//     outbound policy's 400, 502/504 for a rendering service). Of many pages, one failing is left out
//     (as Flowise does) unless none yields a document: then the first failure is the answer.
//   - An empty or unreadable `limit` is the default 10 (Flowise's parseInt gives NaN: all links for a
//     crawl, none of the selected links).
//   - Loading is bounded: CONCURRENT pages at a time and LOAD_TOTAL_MS in all (504 past it).
import type { Document } from "@langchain/core/documents";
import { ApiError, fail } from "../../errors";
import { MAX_LINKS, fetchLinks } from "./links";
import type { LoaderInput } from "./types";

const DEFAULT_LIMIT = 10;
const LOAD_TOTAL_MS = 120_000;

/** Reads one page: its document, undefined when it has nothing to keep, or throws why it failed. */
export type PageReader = (url: string, deadline: number) => Promise<Document | undefined>;

export interface WebPagesOptions {
  /** The node's name, for messages. */
  name: string;
  /** Pages read at a time (a Worker holds at most six connections open). */
  concurrent: number;
}

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");

/** Flowise's limit: default 10, 0 for every link (here MAX_LINKS), below 0 an error. */
function limitOf(name: string, value: unknown): number {
  if (value === undefined || value === null || value === "") return DEFAULT_LIMIT;
  const n = typeof value === "number" ? Math.trunc(value) : Number.parseInt(String(value), 10);
  if (Number.isNaN(n)) return DEFAULT_LIMIT;
  if (n < 0) throw fail("INVALID_FLOW", `${name}: the links limit cannot be less than 0 (0 reads all links, at most ${MAX_LINKS})`);
  return n === 0 ? MAX_LINKS : Math.min(n, MAX_LINKS);
}

/** The studio stores selectedLinks as a list of URLs; a JSON text of one is read too. */
function selectedLinksOf(value: unknown): string[] {
  let v = value;
  if (typeof v === "string" && v.trim().startsWith("[")) {
    try {
      v = JSON.parse(v);
    } catch {
      return [];
    }
  }
  return Array.isArray(v) ? v.map(str).filter(Boolean) : [];
}

const isPdf = (url: string) => {
  try {
    return new URL(url).pathname.toLowerCase().endsWith(".pdf");
  } catch {
    return url.toLowerCase().endsWith(".pdf");
  }
};

/** The pages the loader's config names (see above), in order; `single` when it is just `url`. */
export async function pagesOf(input: LoaderInput, name: string): Promise<{ pages: string[]; single: boolean }> {
  const { config } = input;
  const url = str(config.url);
  if (!url) throw fail("INVALID_INPUT", `${name} needs a url`);
  const method = str(config.relativeLinksMethod);
  const selected = selectedLinksOf(config.selectedLinks);
  if (!method && !selected.length) return { pages: [url], single: true };
  const limit = limitOf(name, config.limit);
  const pages = selected.length
    ? selected.slice(0, limit)
    : (await fetchLinks(input.outbound, url, method === "webCrawl" ? "webCrawl" : "xmlScrape", limit)).links;
  if (!pages.length) throw fail("INVALID_INPUT", `${name}: no relative links found at ${url} (${method || "selected links"})`);
  return { pages, single: false };
}

/** The documents of every page the config names, in the pages' order (see the rules above). */
export async function loadWebPages(input: LoaderInput, options: WebPagesOptions, read: PageReader): Promise<Document[]> {
  const { name } = options;
  const { pages, single } = await pagesOf(input, name);
  if (single && isPdf(pages[0]))
    throw fail("INVALID_INPUT", `${name} does not read PDF files (${pages[0]}): use the PDF File loader for it`);
  const wanted = pages.filter((p) => !isPdf(p));
  if (!wanted.length) throw fail("INVALID_INPUT", `${name}: every link found is a PDF file, which a web scraper does not read`);
  const deadline = Date.now() + LOAD_TOTAL_MS;
  const results: (Document | undefined)[] = new Array(wanted.length);
  let firstError: unknown;
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const i = next++;
      if (Date.now() >= deadline)
        throw fail("TIMEOUT", `${name}: reading ${wanted.length} pages took longer than ${LOAD_TOTAL_MS / 1000} s; lower its links limit`);
      try {
        results[i] = await read(wanted[i], deadline);
      } catch (err) {
        // One page alone fails as it failed; of many, a failing page is left out (Flowise's way).
        if (wanted.length === 1) throw err;
        firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrent, wanted.length) }, worker));
  const docs = results.filter((d): d is Document => d !== undefined);
  if (!docs.length) {
    if (firstError instanceof ApiError) throw firstError;
    if (firstError) throw fail("INVALID_INPUT", `${name}: no page could be read: ${String(firstError)}`);
    throw fail("INVALID_INPUT", `${name}: no text found on ${wanted.length === 1 ? wanted[0] : `any of ${wanted.length} pages`}`);
  }
  return docs;
}
