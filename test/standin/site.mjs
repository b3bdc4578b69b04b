// A small web site for GET /fetch-links (webCrawl and xmlScrape):
//   /site           links to /site/a, /site/b/, /site/a#top, another origin, mailto: and /missing
//   /site/a         links back to /site and on to /site/c?x=1
//   /site/b         links to /site/a;  /site/c?x=1: no links;  /missing: 404
//   /sitemap.xml    a sitemap of four <loc> entries (one with &amp;, one ftp: to be left out)
//   /many           a page linking to /many/1 … /many/500 (each of which links to nothing)
// GET /requests lists what was received.
import { serveStandin } from "./base.mjs";

const page = (res, links) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(`<html><body>${links.map((l) => `<a href="${l}">${l}</a>`).join("\n")}</body></html>`);
};

export function startSiteStandin() {
  return serveStandin(async ({ req, res, url }) => {
    const base = `http://${req.headers.host}`;
    switch (url.pathname.replace(/\/+$/, "") || "/") {
      case "/site":
        return page(res, ["/site/a", "site/b/", "/site/a#top", "https://example.com/elsewhere", "mailto:x@example.com", "/missing"]);
      case "/site/a":
        return page(res, ["/site", "/site/c?x=1"]);
      case "/site/b":
        return page(res, ["/site/a"]);
      case "/site/c":
        return page(res, []);
      case "/many":
        return page(
          res,
          Array.from({ length: 500 }, (_, i) => `/many/${i + 1}`),
        );
      case "/sitemap.xml":
        res.writeHead(200, { "content-type": "application/xml" });
        return res.end(
          `<?xml version="1.0"?><urlset><url><loc>${base}/site</loc></url><url><loc> ${base}/site/a </loc></url>` +
            `<url><loc>${base}/search?q=a&amp;page=2</loc></url><url><loc>ftp://example.com/file</loc></url></urlset>`,
        );
      default:
        if (url.pathname.startsWith("/many/")) return page(res, []);
        res.writeHead(404, { "content-type": "text/plain" });
        return res.end("not here");
    }
  });
}
