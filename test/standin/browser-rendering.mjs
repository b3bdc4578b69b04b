// Cloudflare Browser Rendering's REST API, and a small site for the web scraper loaders
// (test/providers/web-scrapers*.test.ts). Every test picks a marker M of its own:
//   GET  /web/M            a page ("Plain home …") linking to /web/M/a, /web/M/b, /web/M/doc.pdf,
//                          /web/M/broken and another origin;  /web/M/a, /web/M/b: a page each
//   GET  /web/M/broken     500;  /web/M/doc.pdf: a PDF;  /web/M/sitemap.xml: a, b, doc.pdf;
//   GET  /web/M/empty.xml  a sitemap without entries
//   POST /client/v4/accounts/ACCOUNT/browser-rendering/content  {url, gotoOptions, waitForSelector, …}
//        Bearer br-token-ok and account br-account only (else Cloudflare's 401/403 envelopes); answers
//        {success: true, result: "<!DOCTYPE html>…"} — HTML "rendered" for the URL, unlike what a plain
//        fetch of it gives. A URL containing render-fail: 422 with Cloudflare's error envelope;
//        render-hang: no answer; a waitForSelector of "#never": 422 as a selector that never appears.
// GET /requests?contains=M lists the rendering calls made for M's pages (base.mjs).
import { hang, serveStandin } from "./base.mjs";

const TOKEN = "br-token-ok";
const ACCOUNT = "br-account";

const html = (res, status, body, type = "text/html; charset=utf-8") => {
  res.writeHead(status, { "content-type": type });
  res.end(body);
};

function site(res, base, marker, rest) {
  const root = `/web/${marker}`;
  const page = (title, text, links = []) =>
    html(
      res,
      200,
      `<html><head><title>${title}</title></head><body><p>${text}</p>` +
        `${links.map((l) => `<a href="${l}">more</a>`).join("")}<div id="app"></div></body></html>`,
    );
  switch (rest) {
    case "":
      return page(`Home ${marker}`, "Plain home page.", [
        `${root}/a`,
        `${root}/b`,
        `${root}/a#top`,
        `${root}/doc.pdf`,
        `${root}/broken`,
        "https://example.com/elsewhere",
      ]);
    case "/a":
      return page("Page A", "Plain page A.", [root]);
    case "/b":
      return page("Page B", "Plain page B.");
    case "/broken":
      return html(res, 500, "broken", "text/plain");
    case "/doc.pdf":
      return html(res, 200, "%PDF-1.4 not really", "application/pdf");
    case "/sitemap.xml":
      return html(
        res,
        200,
        `<?xml version="1.0"?><urlset>${["a", "b", "doc.pdf"].map((p) => `<url><loc>${base}${root}/${p}</loc></url>`).join("")}</urlset>`,
        "application/xml",
      );
    case "/empty.xml":
      return html(res, 200, `<?xml version="1.0"?><urlset></urlset>`, "application/xml");
    default:
      return html(res, 404, "not here", "text/plain");
  }
}

const cfError = (json, status, code, message) => json(status, { success: false, errors: [{ code, message }], messages: [], result: null });

async function render({ req, res, url, body, json }) {
  const account = url.pathname.split("/")[4];
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return cfError(json, 401, 10000, "Authentication error");
  if (account !== ACCOUNT) return cfError(json, 403, 10000, "Authentication error: account not found");
  if (!body || typeof body.url !== "string") return cfError(json, 400, 2001, "Request body is invalid: url or html is required");
  if (body.url.includes("render-hang")) return hang(res);
  if (body.url.includes("render-fail")) return cfError(json, 422, 2002, `Navigation to ${body.url} failed: net::ERR_NAME_NOT_RESOLVED`);
  if (body.waitForSelector?.selector === "#never")
    return cfError(json, 422, 2003, "Waiting for selector `#never` failed: Waiting failed: 30000ms exceeded");
  const path = new URL(body.url).pathname;
  const result =
    `<!DOCTYPE html><html><head><title>Rendered</title></head><body><div id="app"><h1>Rendered ${path}</h1>` +
    `<p class="note">Built by script</p></div><footer>Footer</footer></body></html>`;
  return json(200, { success: true, errors: [], messages: [], result });
}

export function startBrowserRenderingStandin() {
  return serveStandin(async (ctx) => {
    const { req, res, url } = ctx;
    const web = url.pathname.match(/^\/web\/([^/]+)(\/.*)?$/);
    if (web && req.method === "GET") return site(res, `http://${req.headers.host}`, web[1], (web[2] ?? "").replace(/\/+$/, ""));
    if (req.method === "POST" && /^\/client\/v4\/accounts\/[^/]+\/browser-rendering\/content$/.test(url.pathname)) return render(ctx);
    return cfError(ctx.json, 404, 7000, "No route for that URI");
  });
}
