// Stand-ins for the second batch of hosted document loaders (test/engine/more-loaders-2.test.ts),
// one loopback server with a route per service:
//   Figma under /figma (FIGMA_BASE_URL), `X-Figma-Token: figd-stand-in`:
//     GET /v1/files/KEY/nodes?ids=A,B → {name: "File KEY", nodes: {A: {document: {id, name: "Frame A", type}}, …}}
//     another token → 403 {status: 403, err: "Invalid token"}; a KEY not letters and digits → 404; no ids → 400
//   Unstructured at /unstructured/general/v0/general (the node's unstructuredAPIUrl), multipart `files`:
//     each non-blank line of the file → an element {type: Title (a "#" line) | NarrativeText, text,
//     metadata: {filename, page_number: 1}}; `unstructured-api-key: bad-key` → 401 {detail}; a
//     `strategy` or `chunking_strategy` the API does not name → 422 {detail: [literal_error]}
//   Oxylabs under /oxylabs (OXYLABS_BASE_URL), Basic oxy-user:oxy-pass:
//     POST /v1/queries {source, url|query, parse, markdown} → {results: [{content}], job: {id}}: markdown
//     text naming the url/query, or (parse) an object; other credentials → 401 {message: "Unauthorized"};
//     a source not listed, universal without `url` (others without `query`), render not "html"/"png",
//     a non-boolean parse/markdown, a user_agent_type not listed → 400 {message} (validateOxylabs); a url/query
//     holding "missing" → 200 with a result {content: "", status_code: 404} (the target's own 404)
//   Apify under /apify (APIFY_BASE_URL), Bearer apify_api_stand_in:
//     POST /v2/acts/apify~website-content-crawler/runs → {data: {id: run-N, status: RUNNING, defaultDatasetId: ds-N}}
//     GET  /v2/actor-runs/run-N → SUCCEEDED (FAILED when a start URL contains "fail")
//     GET  /v2/datasets/ds-N/items?offset&limit → [{url, text}] for each start URL
//     a wrong token → 401 {error: {type: "token-not-valid", message}}
//   GitBook pages under /gitbook/…: SITE/sitemap.xml (a relative and an absolute <loc>), SITE/intro and
//     SITE/guide (a <main> with an <h1>, text, a script), any other path 404; SITE holding "canon": a sitemap
//     index → SITE/sitemap-pages.xml listing absolute locs on docs-SITE (its canonical address)
// Every request is recorded (method, path, headers, JSON body or multipart fields and file); GET
// /requests?contains=<marker> lists those whose path or body holds the marker.
import { createServer } from "node:http";

export const FIGMA_TOKEN = "figd-stand-in";
export const APIFY_TOKEN = "apify_api_stand_in";
const OXY_AUTH = `Basic ${Buffer.from("oxy-user:oxy-pass").toString("base64")}`;

const runs = new Map();
let runCount = 0;

const page = (title, body) =>
  `<!doctype html><html><head><title>${title} | Docs</title><script>var x = "no";</script></head>` +
  `<body><nav>Menu</nav><main><h1>${title}</h1><p>${body} &amp; more</p><script>track()</script>` +
  `<ul><li>First point</li><li>Second point</li></ul></main><footer>Footer</footer></body></html>`;

function gitbook(path, host, send) {
  const m = /^\/gitbook\/([^/]+)\/(.*)$/.exec(path);
  if (!m) return send(404, "text/plain", "not found");
  const [, site, rest] = m;
  // A site holding "canon": a sitemap index (sitemaps.org) naming sitemap-pages.xml, whose locs are absolute
  // URLs (as the protocol requires) on the site's canonical address (here the site docs-SITE), not the one asked.
  if (site.includes("canon") && rest === "sitemap.xml")
    return send(
      200,
      "application/xml",
      `<?xml version="1.0"?><sitemapindex><sitemap><loc>http://${host}/gitbook/${site}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
    );
  if (site.includes("canon") && rest === "sitemap-pages.xml")
    return send(
      200,
      "application/xml",
      `<?xml version="1.0"?><urlset>${["intro", "guide"]
        .map((p) => `<url><loc>http://${host}/gitbook/docs-${site}/${p}</loc></url>`)
        .join("")}</urlset>`,
    );
  if (rest === "sitemap.xml")
    return send(
      200,
      "application/xml",
      `<?xml version="1.0"?><urlset><url><loc>/intro</loc></url><url><loc>http://${host}/gitbook/${site}/guide</loc></url></urlset>`,
    );
  if (rest === "intro") return send(200, "text/html", page(`Intro ${site}`, "Welcome to the book"));
  if (rest === "guide") return send(200, "text/html", page(`Guide ${site}`, "How to use it"));
  return send(404, "text/plain", "no such page");
}

// The partition endpoint's form (unstructured-api prepline_general/api/models/form_params.py; the hosted
// API's chunking strategies): `strategy` one of fast, hi_res, auto, ocr_only and `chunking_strategy`
// one of basic, by_title, by_page, by_similarity, else FastAPI's 422 literal_error.
const LITERALS = { strategy: ["fast", "hi_res", "auto", "ocr_only"], chunking_strategy: ["basic", "by_title", "by_page", "by_similarity"] };

function validateUnstructured(fields) {
  for (const [name, allowed] of Object.entries(LITERALS)) {
    const value = fields[name]?.[0];
    if (value !== undefined && !allowed.includes(value))
      return {
        type: "literal_error",
        loc: ["body", name],
        msg: `Input should be ${allowed.map((a) => `'${a}'`).join(", ")}`,
        input: value,
      };
  }
  return undefined;
}

async function handle(req, url, raw, record, json) {
  const path = url.pathname;
  if (path.startsWith("/figma/")) {
    if (req.headers["x-figma-token"] !== FIGMA_TOKEN) return json(403, { status: 403, err: "Invalid token" });
    const m = /^\/figma\/v1\/files\/([^/]+)\/nodes$/.exec(path);
    // File keys are letters and digits (the key in figma.com/design/:key/…): anything else names no file.
    if (!m || req.method !== "GET" || !/^[A-Za-z0-9]+$/.test(decodeURIComponent(m[1]))) return json(404, { status: 404, err: "Not found" });
    const ids = (url.searchParams.get("ids") ?? "").split(",").filter(Boolean);
    // `ids` is a required parameter of GET file nodes (figma/rest-api-spec openapi.yaml): 400 without it.
    if (!ids.length) return json(400, { status: 400, err: "Missing required parameter ids" });
    const nodes = Object.fromEntries(ids.map((id) => [id, { document: { id, name: `Frame ${id}`, type: "FRAME" } }]));
    return json(200, { name: `File ${decodeURIComponent(m[1])}`, nodes });
  }
  if (path === "/unstructured/general/v0/general") {
    const form = await new Request("http://standin/", {
      method: "POST",
      headers: { "content-type": req.headers["content-type"] ?? "" },
      body: raw,
    })
      .formData()
      .catch(() => undefined);
    if (!form) return json(400, { detail: "expected multipart/form-data" });
    const fields = {};
    let file;
    for (const [k, v] of form.entries()) {
      if (typeof v === "string") (fields[k] ??= []).push(v);
      else file = { name: v.name, type: v.type, text: await v.text() };
    }
    record.fields = fields;
    record.file = file;
    if (req.headers["unstructured-api-key"] === "bad-key")
      return json(401, { detail: "API key is malformed, please type the API key correctly" });
    if (!file) return json(422, { detail: "files is required" });
    const invalid = validateUnstructured(fields);
    if (invalid) return json(422, { detail: [invalid] });
    const lines = file.text.split(/\r?\n/).filter((l) => l.trim());
    return json(
      200,
      lines.map((text, i) => ({
        type: text.startsWith("#") ? "Title" : "NarrativeText",
        element_id: `el-${i}`,
        text: text.replace(/^#+\s*/, ""),
        metadata: { filename: file.name, page_number: 1, languages: ["eng"] },
      })),
    );
  }
  if (path === "/oxylabs/v1/queries") {
    if (req.headers.authorization !== OXY_AUTH) return json(401, { message: "Unauthorized" });
    const body = record.body ?? {};
    const refusal = validateOxylabs(body);
    if (refusal) return json(400, { message: refusal });
    const target = body.url ?? body.query;
    // A target that answers 404 (a page or ASIN that does not exist): the job is done, the result carries the
    // status_code and empty content.
    if (String(target).includes("missing"))
      return json(200, { results: [{ content: "", status_code: 404, url: target }], job: { id: 7002, status: "done" } });
    const content = body.parse ? { title: `Parsed ${target}`, results: [1, 2] } : `# Oxylabs\n\nContent of ${target}`;
    return json(200, { results: [{ content, status_code: 200, url: target }], job: { id: 7001, status: "done" } });
  }
  if (path.startsWith("/apify/")) {
    if (req.headers.authorization !== `Bearer ${APIFY_TOKEN}`)
      return json(401, { error: { type: "token-not-valid", message: "Authentication token is not valid." } });
    if (req.method === "POST" && path === "/apify/v2/acts/apify~website-content-crawler/runs") {
      const n = ++runCount;
      const starts = (record.body?.startUrls ?? []).map((s) => s.url);
      runs.set(`run-${n}`, { starts, polls: 0 });
      return json(201, { data: { id: `run-${n}`, status: "RUNNING", defaultDatasetId: `ds-${n}` } });
    }
    const run = /^\/apify\/v2\/actor-runs\/([^/]+)$/.exec(path);
    if (run && runs.has(run[1])) {
      const r = runs.get(run[1]);
      const status = r.starts.some((u) => u.includes("fail")) ? "FAILED" : "SUCCEEDED";
      return json(200, { data: { id: run[1], status, defaultDatasetId: run[1].replace("run", "ds") } });
    }
    // Dataset items (docs.apify.com/api/v2/dataset-items-get): `offset` and `limit` (no limit: every item).
    const ds = /^\/apify\/v2\/datasets\/ds-(\d+)\/items$/.exec(path);
    if (ds && runs.has(`run-${ds[1]}`)) {
      const items = runs.get(`run-${ds[1]}`).starts.map((u) => ({ url: u, text: `Crawled text of ${u}`, metadata: { title: "t" } }));
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = url.searchParams.has("limit") ? Number(url.searchParams.get("limit")) : items.length;
      return json(200, items.slice(offset, offset + limit));
    }
    return json(404, { error: { type: "record-not-found", message: "Not found" } });
  }
  return json(404, { error: `no stand-in for ${path}` });
}

// Oxylabs Web Scraper API (developers.oxylabs.io: targets, realtime, response codes): `universal` takes a `url`,
// the search/product sources a `query`; `render` is "html" or "png"; parse/markdown are booleans; user_agent_type
// one of desktop|mobile|tablet and their browser variants; a wrong structure or value is a 400 whose body names
// it (the body's shape is not documented: {message} here). Only the node's four sources are known here (Oxylabs has more).
const OXY_SOURCES = new Set(["universal", "google_search", "amazon_product", "amazon_search"]);
const OXY_AGENTS = ["desktop", "mobile", "tablet"].flatMap((d) => {
  const browsers = { desktop: ["chrome", "edge", "firefox", "opera", "safari"], mobile: ["android", "ios"], tablet: ["android", "ios"] }[d];
  return [d, ...browsers.map((b) => `${d}_${b}`)];
});
function validateOxylabs(body) {
  if (!OXY_SOURCES.has(body.source)) return `Unsupported source: ${body.source}`;
  if (body.source === "universal" ? typeof body.url !== "string" : typeof body.query !== "string")
    return body.source === "universal" ? "url is required for source universal" : `query is required for source ${body.source}`;
  if (body.render !== undefined && !["html", "png"].includes(body.render)) return `Invalid render value: ${JSON.stringify(body.render)}`;
  for (const k of ["parse", "markdown"])
    if (body[k] !== undefined && typeof body[k] !== "boolean") return `Invalid ${k} value: must be a boolean`;
  if (body.user_agent_type !== undefined && !OXY_AGENTS.includes(body.user_agent_type))
    return `Invalid user_agent_type: ${body.user_agent_type}`;
  if (body.geo_location !== undefined && (typeof body.geo_location !== "string" || !body.geo_location)) return "Invalid geo_location";
  return undefined;
}

export function startLoadersHosted2Standin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const send = (status, type, text) => {
      res.writeHead(status, { "content-type": type });
      res.end(text);
    };
    const json = (status, value) => send(status, "application/json", JSON.stringify(value));
    if (url.pathname === "/requests") {
      const m = url.searchParams.get("contains") ?? "";
      return json(
        200,
        requests.filter((r) => r.path.includes(m) || r.text.includes(m)).map(({ text: _t, ...r }) => r),
      );
    }
    if (url.pathname.startsWith("/gitbook/")) return gitbook(url.pathname, req.headers.host, send);
    const text = raw.toString("utf8");
    let body;
    if (text && (req.headers["content-type"] ?? "").includes("json")) {
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, { error: "body is not JSON" });
      }
    }
    const record = { method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, body, text };
    requests.push(record);
    try {
      await handle(req, url, raw, record, json);
    } catch (err) {
      if (!res.headersSent) json(500, { error: String(err) });
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
