// Hosted crawler stand-ins for the document loaders (test/engine/more-loaders.test.ts):
//   FireCrawl under /firecrawl (the credential's firecrawlApiUrl), `Authorization: Bearer fc-stand-in-key`:
//     POST /v1/scrape {url}        → {success, data: {markdown, metadata: {title, sourceURL, statusCode}}}
//     POST /v1/crawl {url, limit}  → {success, id: "job-<last path segment of url>"}
//     GET  /v1/crawl/ID            → {status: "scraping"} the first time, then {status: "completed",
//                                    data: [2 pages], next: …/v1/crawl/ID?skip=2}; ?skip=2 → the last page
//                                    (a url ending in "broken" → {status: "failed"})
//     POST /v1/search {query}      → {success, data: [{url, title, description}]}
//   Spider under /spider (SPIDER_BASE_URL), `Authorization: Bearer sk-spider-stand-in`:
//     POST /v1/crawl {url, limit, return_format} → [{content, url, status: 200}] × limit (at most 3)
//   Notion under /notion (NOTION_BASE_URL), `Authorization: Bearer secret-notion-stand-in` and a Notion-Version:
//     GET  /v1/pages/ID                  → a page {object, id, url, properties: {Name (title), Tags}}
//     GET  /v1/blocks/ID/children        → page ID ending "-root": two pages of blocks (start_cursor "c2"):
//                                          a heading, a paragraph (bold, link), a list item with a child, a
//                                          child_page "ID-child", then a code block and a to-do; other pages one paragraph
//     POST /v1/databases/ID/query        → rows ID-row1, ID-row2, then (start_cursor "r2") ID-row3
//     an ID containing "missing" → 404 {object: "error", code: "object_not_found"}
//   Jira under /jira (the node's host), Basic auth jira@example.com:jira-stand-in-token:
//     GET /rest/api/2/search?jql=project=KEY…&startAt&maxResults → 3 issues of project KEY, maxResults a page
//   Airtable under /airtable (AIRTABLE_BASE_URL), Bearer pat-airtable-stand-in:
//     POST /v0/BASE/TABLE/listRecords {offset?} → records 1–2 with offset "o2", then record 3
//   Confluence under /confluence (the node's baseUrl), Bearer pat-confluence-stand-in:
//     GET /rest/api/content?spaceKey&limit&start&expand → 3 pages of storage HTML, `limit` at a time, then size 0
// A wrong key → 401 {error}. GET /requests lists what was received (?contains= a body marker).
import { serveStandin } from "./base.mjs";

export const FIRECRAWL_KEY = "fc-stand-in-key";
export const SPIDER_KEY = "sk-spider-stand-in";
const polled = new Map();

const page = (url, n) => ({
  markdown: `# Page ${n}\n\nCrawled from ${url}`,
  metadata: { title: `Page ${n}`, sourceURL: `${url}/p${n}`, statusCode: 200, language: "en" },
});

function firecrawl({ req, url, body, json }) {
  if (req.headers.authorization !== `Bearer ${FIRECRAWL_KEY}`) return json(401, { success: false, error: "Unauthorized: Invalid token" });
  const path = url.pathname.replace(/^\/firecrawl/, "");
  if (req.method === "POST" && path === "/v1/scrape")
    return json(200, {
      success: true,
      data: { markdown: `# Scraped\n\n${body.url}`, metadata: { title: "Scraped page", sourceURL: body.url, statusCode: 200 } },
    });
  if (req.method === "POST" && path === "/v1/crawl") return json(200, { success: true, id: `job-${body.url.split("/").pop()}` });
  if (req.method === "POST" && path === "/v1/search")
    return json(200, {
      success: true,
      data: [{ url: "https://example.com/found", title: `Found ${body.query}`, description: `About ${body.query}` }],
    });
  const m = /^\/v1\/crawl\/([^/]+)$/.exec(path);
  if (req.method === "GET" && m) {
    const id = decodeURIComponent(m[1]);
    if (id.endsWith("broken")) return json(200, { status: "failed" });
    const n = (polled.get(id) ?? 0) + 1;
    polled.set(id, n);
    if (n === 1) return json(200, { status: "scraping", completed: 0, total: 3 });
    const site = `https://docs.example.com/${id.slice(4)}`;
    if (url.searchParams.get("skip") === "2") return json(200, { status: "completed", data: [page(site, 3)] });
    const next = `http://${req.headers.host}/firecrawl/v1/crawl/${encodeURIComponent(id)}?skip=2`;
    return json(200, { status: "completed", total: 3, data: [page(site, 1), page(site, 2)], next });
  }
  return json(404, { success: false, error: `no stand-in for ${path}` });
}

function spider({ req, url, body, json }) {
  if (req.headers.authorization !== `Bearer ${SPIDER_KEY}`) return json(401, { error: "Invalid API key" });
  if (req.method !== "POST" || url.pathname !== "/spider/v1/crawl") return json(404, { error: "Not found" });
  const count = Math.min(Number(body.limit) || 1, 3);
  return json(
    200,
    Array.from({ length: count }, (_, i) => ({
      url: `${body.url}/s${i + 1}`,
      status: 200,
      content: `Spider page ${i + 1} of ${body.url}`,
    })),
  );
}

export const NOTION_TOKEN = "secret-notion-stand-in";
const rt = (plain_text, annotations = {}, href = null) => ({ type: "text", plain_text, annotations, href });
const block = (id, type, body, has_children = false) => ({ object: "block", id, type, has_children, [type]: body });
const notionPage = (id) => ({
  object: "page",
  id,
  url: `https://www.notion.so/${id}`,
  archived: false,
  properties: {
    Name: { id: "title", type: "title", title: [rt(`Title of ${id}`)] },
    Tags: { id: "t", type: "multi_select", multi_select: [{ name: "owls" }, { name: "night" }] },
  },
});

function notion({ req, url, body, json }) {
  if (req.headers.authorization !== `Bearer ${NOTION_TOKEN}` || !req.headers["notion-version"])
    return json(401, { object: "error", status: 401, code: "unauthorized", message: "API token is invalid." });
  const path = url.pathname.replace(/^\/notion/, "");
  if (path.includes("missing"))
    return json(404, {
      object: "error",
      status: 404,
      code: "object_not_found",
      message: "Could not find page. Share it with your integration.",
    });
  let m = /^\/v1\/pages\/([^/]+)$/.exec(path);
  if (m && req.method === "GET") return json(200, notionPage(decodeURIComponent(m[1])));
  m = /^\/v1\/blocks\/([^/]+)\/children$/.exec(path);
  if (m && req.method === "GET") {
    const id = decodeURIComponent(m[1]);
    if (id.endsWith("-item"))
      return json(200, {
        object: "list",
        results: [block(`${id}-sub`, "paragraph", { rich_text: [rt("nested detail")] })],
        has_more: false,
        next_cursor: null,
      });
    if (!id.endsWith("-root"))
      return json(200, {
        object: "list",
        results: [block(`${id}-p`, "paragraph", { rich_text: [rt(`Body of ${id}`)] })],
        has_more: false,
        next_cursor: null,
      });
    if (url.searchParams.get("start_cursor") !== "c2")
      return json(200, {
        object: "list",
        results: [
          block(`${id}-h`, "heading_1", { rich_text: [rt("Owls")] }),
          block(`${id}-p`, "paragraph", {
            rich_text: [rt("Owls "), rt("hunt", { bold: true }), rt(" at night", {}, "https://owls.example")],
          }),
          block(`${id}-item`, "bulleted_list_item", { rich_text: [rt("Barn owl")] }, true),
          block(`${id}-child`, "child_page", { title: "Child" }),
        ],
        has_more: true,
        next_cursor: "c2",
      });
    return json(200, {
      object: "list",
      results: [
        block(`${id}-code`, "code", { language: "js", rich_text: [rt("hoot()")] }),
        block(`${id}-todo`, "to_do", { checked: true, rich_text: [rt("Count owls")] }),
      ],
      has_more: false,
      next_cursor: null,
    });
  }
  m = /^\/v1\/databases\/([^/]+)\/query$/.exec(path);
  if (m && req.method === "POST") {
    const id = decodeURIComponent(m[1]);
    if (body?.start_cursor === "r2")
      return json(200, { object: "list", results: [notionPage(`${id}-row3`)], has_more: false, next_cursor: null });
    return json(200, { object: "list", results: [notionPage(`${id}-row1`), notionPage(`${id}-row2`)], has_more: true, next_cursor: "r2" });
  }
  return json(404, { object: "error", code: "invalid_request_url", message: `no stand-in for ${path}` });
}

const JIRA_AUTH = `Basic ${Buffer.from("jira@example.com:jira-stand-in-token").toString("base64")}`;
const issue = (key, n) => ({
  id: `100${n}`,
  key: `${key}-${n}`,
  fields: {
    summary: `Owl issue ${n}`,
    project: { id: "10", key, name: "Owls" },
    status: { name: "Open" },
    priority: { name: "High" },
    issuetype: { name: "Bug" },
    creator: { displayName: "Ada" },
    labels: n === 1 ? ["night"] : [],
    created: "2024-02-01T10:00:00.000+0000",
    updated: "2024-02-02T10:00:00.000+0000",
    assignee: n === 2 ? { displayName: "Bob" } : null,
    description: `Issue ${n} of ${key}`,
  },
});

function jira({ req, url, json }) {
  if (req.headers.authorization !== JIRA_AUTH) return json(401, { errorMessages: ["Unauthorized"] });
  if (url.pathname !== "/jira/rest/api/2/search") return json(404, { errorMessages: ["Not found"] });
  const key = /project=([^ ]+)/.exec(url.searchParams.get("jql") ?? "")?.[1] ?? "X";
  const startAt = Number(url.searchParams.get("startAt") ?? 0);
  const max = Number(url.searchParams.get("maxResults") ?? 50);
  const all = [1, 2, 3].map((n) => issue(key, n));
  return json(200, { startAt, maxResults: max, total: all.length, issues: all.slice(startAt, startAt + max) });
}

function airtable({ req, url, body, json }) {
  if (req.headers.authorization !== "Bearer pat-airtable-stand-in") return json(401, { error: { type: "AUTHENTICATION_REQUIRED" } });
  const m = /^\/airtable\/v0\/([^/]+)\/([^/]+)\/listRecords$/.exec(url.pathname);
  if (!m || req.method !== "POST") return json(404, { error: "NOT_FOUND" });
  const rec = (n) => ({ id: `rec${n}`, createdTime: "2024-01-01T00:00:00.000Z", fields: { Name: `Owl ${n}`, Table: m[2] } });
  if (body?.offset === "o2") return json(200, { records: [rec(3)] });
  return json(200, { records: [rec(1), rec(2)], offset: "o2" });
}

function confluence({ req, url, json }) {
  if (req.headers.authorization !== "Bearer pat-confluence-stand-in") return json(401, { message: "Unauthorized" });
  if (url.pathname !== "/confluence/rest/api/content") return json(404, { message: "Not found" });
  const space = url.searchParams.get("spaceKey") ?? "";
  const start = Number(url.searchParams.get("start") ?? 0);
  const limit = Number(url.searchParams.get("limit") ?? 25);
  const page = (n) => ({
    id: `${n}00`,
    type: "page",
    status: "current",
    title: `Owls ${n}`,
    version: { number: n, when: "2024-03-01T00:00:00.000Z", by: { displayName: "Ada" } },
    body: {
      storage: {
        value:
          `<h1>Owls ${n} in ${space}</h1><p>Owls hunt <strong>at night</strong>.</p><p></p>` +
          '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">js</ac:parameter>' +
          "<ac:plain-text-body><![CDATA[hoot();]]></ac:plain-text-body></ac:structured-macro>" +
          '<ac:structured-macro ac:name="attachments" />',
      },
    },
  });
  const results = [1, 2, 3].slice(start, start + limit).map(page);
  return json(200, { results, start, limit, size: results.length });
}

export function startLoadersHostedStandin() {
  return serveStandin(async (ctx) => {
    if (ctx.url.pathname.startsWith("/firecrawl/")) return firecrawl(ctx);
    if (ctx.url.pathname.startsWith("/spider/")) return spider(ctx);
    if (ctx.url.pathname.startsWith("/notion/")) return notion(ctx);
    if (ctx.url.pathname.startsWith("/jira/")) return jira(ctx);
    if (ctx.url.pathname.startsWith("/airtable/")) return airtable(ctx);
    if (ctx.url.pathname.startsWith("/confluence/")) return confluence(ctx);
    return ctx.json(404, { error: "unknown service" });
  });
}
