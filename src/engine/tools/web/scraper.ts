// webScraperTool: scrapes from the URL the model gives, following links up to maxDepth (or the
// site's /sitemap.xml in sitemap mode), at most maxPages pages, every URL under the outbound
// policy; answers a JSON array of {url, title, description, body_text, error?} as Flowise does.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { num, str } from "../../core/inputs";
import { ToolCallError, callService } from "../service";
import type { ToolDeps } from "../types";
import { pageParts, sitemapUrls } from "./page";

/** Without a maxPages input Flowise has no limit; a worker keeps one. */
const HARD_PAGE_LIMIT = 50;

type Scraped = { url: string; title: string; description: string; body_text: string; error?: string };

export async function webScraperTool(inputs: Record<string, unknown>, { ctx }: ToolDeps) {
  const useSitemap = str(inputs.scrapeMode) === "sitemap";
  const maxDepth = Math.max(1, Math.floor(num(inputs.maxDepth) ?? 1));
  const pagesInput = num(inputs.maxPages);
  const maxPages = Math.min(pagesInput && pagesInput > 0 ? Math.floor(pagesInput) : HARD_PAGE_LIMIT, HARD_PAGE_LIMIT);
  const timeoutS = num(inputs.timeoutS);
  const timeoutMs = timeoutS && timeoutS > 0 ? Math.round(timeoutS * 1000) : 60_000;
  const description = useSitemap
    ? `Scrapes URLs listed in the detected default sitemap (/sitemap.xml) up to ${maxPages} pages, with ` +
      `a ${timeoutMs / 1000}-second timeout per page. Falls back to Recursive Link Following if sitemap is not found or empty.`
    : `Recursively scrapes web pages starting from a given URL up to ${maxDepth} level(s) deep or ` +
      `until ${maxPages} pages are scraped, with a ${timeoutMs / 1000}-second timeout per page, whichever comes first.`;

  const fetchPage = async (url: string) => callService({ service: url, url, policy: ctx.runtime.outbound, timeoutMs }, ctx);

  async function scrape(url: string): Promise<Scraped & { links: string[] }> {
    const empty = { url, title: "", description: "", body_text: "", links: [] as string[] };
    try {
      const res = await fetchPage(url);
      if (!res.ok) return { ...empty, error: `HTTP Error: ${res.status}. ${res.text.slice(0, 200)}` };
      if (!res.contentType.includes("text/html"))
        return { ...empty, error: `Skipped non-HTML content (Content-Type: ${res.contentType || "none"})` };
      return { url, ...(await pageParts(res.text, url)) };
    } catch (err) {
      if (!(err instanceof ToolCallError)) throw err;
      return { ...empty, error: `Scraping Error: ${err.message}` };
    }
  }

  return new DynamicStructuredTool({
    name: "web_scraper_tool",
    description: `${
      str(inputs.description) ??
      `${description} Extracts title, description, and paragraph text. ` +
        `Input should be a single URL string. Returns a JSON string array of scraped page data.`
    }`,
    schema: z.object({ input: z.string().describe("the URL to start from") }),
    func: async ({ input }) => {
      const start = input.trim();
      try {
        if (!/^https?:$/.test(new URL(start).protocol)) throw new Error();
      } catch {
        return JSON.stringify([{ url: start, title: "", description: "", body_text: "", error: "Invalid URL format or protocol" }]);
      }
      const results: Scraped[] = [];
      const seen = new Set<string>();
      if (useSitemap) {
        const sitemap = await fetchPage(new URL("/sitemap.xml", start).toString()).catch(() => undefined);
        const urls = sitemap?.ok ? sitemapUrls(sitemap.text, maxPages) : [];
        if (urls.length) {
          const pages = await Promise.all(urls.map((u) => scrape(u)));
          return JSON.stringify(pages.map(({ links: _links, ...page }) => page));
        }
      }
      // Breadth-first, level by level: depth 1 is the start page.
      let level = [start];
      for (let depth = 1; depth <= maxDepth && level.length && results.length < maxPages; depth++) {
        const batch = level.filter((u) => !seen.has(u)).slice(0, maxPages - results.length);
        batch.forEach((u) => seen.add(u));
        const pages = await Promise.all(batch.map((u) => scrape(u)));
        level = [];
        for (const { links, ...page } of pages) {
          results.push(page);
          if (!page.error) level.push(...links.filter((l) => !seen.has(l)));
        }
        level = [...new Set(level)];
      }
      return useSitemap
        ? JSON.stringify({ warning: "Sitemap not found or empty; fell back to recursive scraping.", scrapedData: results })
        : JSON.stringify(results);
    },
  });
}
