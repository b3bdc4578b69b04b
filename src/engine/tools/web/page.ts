// One HTML page read the way Flowise's web scraper reads it: title, meta description, the text of
// its <p> elements, and its http(s) links — with the Workers HTMLRewriter, not a DOM. Its text
// chunks are the page's source, so entities are decoded here (cheerio's .text() does it for Flowise).
import { decodeHTML, decodeXML } from "entities/decode";

export interface PageParts {
  title: string;
  description: string;
  body_text: string;
  links: string[];
}

export async function pageParts(html: string, pageUrl: string): Promise<PageParts> {
  let title = "";
  let inTitle = false;
  const metas: Record<string, string> = {};
  const paragraphs: string[] = [];
  let current: string[] | undefined;
  let depth = 0;
  const links = new Set<string>();
  const rewriter = new HTMLRewriter()
    .on("title", {
      element(el) {
        if (title) return;
        inTitle = true;
        el.onEndTag(() => {
          inTitle = false;
        });
      },
      text(t) {
        if (inTitle) title += t.text;
      },
    })
    .on("meta", {
      element(el) {
        const key = el.getAttribute("name") ?? el.getAttribute("property");
        const content = el.getAttribute("content");
        if (key && content && !(key in metas)) metas[key.toLowerCase()] = content;
      },
    })
    .on("p", {
      element(el) {
        if (depth++ === 0) current = [];
        el.onEndTag(() => {
          if (--depth === 0 && current) {
            const text = decodeHTML(current.join("")).trim();
            if (text) paragraphs.push(text);
            current = undefined;
          }
        });
      },
      text(t) {
        current?.push(t.text);
      },
    })
    .on("a[href]", {
      element(el) {
        try {
          const abs = new URL(el.getAttribute("href")!, pageUrl).toString();
          if (abs.startsWith("http") && !abs.includes("#")) links.add(abs);
        } catch {
          // not a URL: skipped, as Flowise does
        }
      },
    });
  await rewriter.transform(new Response(html)).text();
  return {
    title: decodeHTML(title).trim() || "No title found",
    description: (metas.description ?? metas["og:description"] ?? metas["twitter:description"] ?? "No description found").trim(),
    body_text: paragraphs.join(" ").replace(/\s\s+/g, " ").trim(),
    links: [...links],
  };
}

/** The <loc> URLs of a sitemap, at most `limit`. */
export const sitemapUrls = (xml: string, limit: number): string[] =>
  [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((m) => decodeXML(m[1])).slice(0, limit);
