// gitbook: a GitBook page, or with shouldLoadAllPaths every page its sitemap lists
// ({webPath}/sitemap.xml; a sitemap index is followed one level), as LangChain's GitbookLoader reads
// them: the text nodes under <main>, each trimmed, a line each; metadata {source, title: the first
// <h1> in <main>}. Pages are fetched under the outbound policy (web.ts), each within the upload
// limit; a sitemap's first MAX_PAGES pages are read.
import { Document } from "@langchain/core/documents";
import { decodeHTML, decodeXML } from "entities/decode";
import { fail } from "../../errors";
import { overLimit } from "../../lib/limits";
import type { LoaderDefinition, LoaderInput } from "./types";
import { fetchPage } from "./web";

const MAX_PAGES = 500;
const MAX_SITEMAPS = 20;
const SKIP = "main script, main style, main noscript, main template, main svg";

/** The text nodes under <main> (trimmed, one a line) and its first <h1>. */
export async function gitbookPage(html: string): Promise<{ text: string; title: string }> {
  const lines: string[] = [];
  let current = "";
  let skipping = 0;
  let title = "";
  let h1 = 0; // 0 before the first h1, 1 inside it, 2 after
  const rewriter = new HTMLRewriter()
    .on(SKIP, {
      element(el) {
        skipping++;
        try {
          el.onEndTag(() => {
            skipping--;
          });
        } catch {
          skipping--;
        }
      },
    })
    .on("main h1", {
      element(el) {
        if (h1 !== 0) return;
        h1 = 1;
        el.onEndTag(() => {
          h1 = 2;
        });
      },
      text(t) {
        if (h1 === 1) title += t.text;
      },
    })
    .on("main", {
      text(t) {
        if (!skipping) current += t.text;
        if (t.lastInTextNode) {
          const line = decodeHTML(current).trim();
          if (line) lines.push(line);
          current = "";
        }
      },
    });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html" } })).arrayBuffer();
  return { text: lines.join("\n"), title: decodeHTML(title).trim() };
}

const locs = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => decodeXML(m[1]).trim()).filter(Boolean);

async function sitemapUrls(input: LoaderInput, base: string): Promise<string[]> {
  const root = await fetchPage(`${base}/sitemap.xml`, input.outbound, input.maxBytes);
  if (!root.html.includes("<sitemapindex")) return locs(root.html);
  const urls: string[] = [];
  for (const sitemap of locs(root.html).slice(0, MAX_SITEMAPS)) {
    urls.push(...locs((await fetchPage(sitemap, input.outbound, input.maxBytes)).html));
    if (urls.length >= MAX_PAGES) break;
  }
  return urls;
}

// A sitemap's <loc> is an absolute URL (sitemaps.org protocol), often on another address than webPath (https,
// a custom domain): taken as is — "base + loc" unless it contains webPath made those a broken URL. A relative
// one (GitBook's older sitemaps) is still joined to webPath, as LangChain's GitbookLoader does.
const pageUrl = (loc: string, base: string) => (/^https?:\/\//i.test(loc) ? loc : base + loc);

async function loadGitbook(input: LoaderInput): Promise<Document[]> {
  const webPath = typeof input.config.webPath === "string" ? input.config.webPath.trim() : "";
  if (!webPath) throw fail("INVALID_INPUT", "gitbook needs a webPath: a GitBook page, or its root with shouldLoadAllPaths");
  const all = input.config.shouldLoadAllPaths === true || input.config.shouldLoadAllPaths === "true";
  const base = webPath.replace(/\/+$/, "");
  const urls = all ? (await sitemapUrls(input, base)).map((u) => pageUrl(u, base)) : [webPath];
  if (!urls.length) throw fail("INVALID_INPUT", `The sitemap of ${base} lists no pages`);
  const pages = urls.slice(0, Math.min(MAX_PAGES, input.limits.chunks + 1));
  if (pages.length > input.limits.chunks) throw overLimit(input.limits, "chunks", `The GitBook at ${base}`, `${urls.length} pages`);
  const docs: Document[] = [];
  for (const url of pages) {
    const page = await fetchPage(url, input.outbound, input.maxBytes);
    const { text, title } = await gitbookPage(page.html);
    docs.push(new Document({ pageContent: text, metadata: { source: url, title } }));
  }
  return docs;
}

export const gitbookLoader: LoaderDefinition = { name: "gitbook", label: "GitBook", load: loadGitbook };
