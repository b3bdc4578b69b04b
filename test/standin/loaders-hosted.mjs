// Hosted crawler stand-ins for the document loaders (test/engine/more-loaders.test.ts). Each refuses
// what its service documents refusing, in that service's error shape (the validate… functions below):
//   FireCrawl under /firecrawl (the credential's firecrawlApiUrl), `Authorization: Bearer fc-stand-in-key`;
//   bodies as FireCrawl's strict v1 schemas take them (an unknown key, a search limit outside 1–100 → 400):
//     POST /v1/scrape {url}        → {success, data: {markdown, metadata: {title, sourceURL, statusCode}}}
//     POST /v1/crawl {url, limit}  → {success, id: "job-<last path segment of url>"}: min(limit, 3) pages,
//                                    150 when that segment starts "big-"
//     GET  /v1/crawl/ID            → {status: "scraping"} the first time, then {status: "completed", data:
//                                    100 pages from ?skip, next: http://HOST/v1/crawl/ID?skip=N while more}
//                                    (FireCrawl's own host, without /firecrawl; a url ending "broken" → failed)
//     POST /v1/search {query}      → {success, data: [{url, title, description}] (at most 2)}
//   Spider under /spider (SPIDER_BASE_URL), `Authorization: Bearer sk-spider-stand-in`:
//     POST /v1/crawl {url, limit, return_format} → [{content, url, status: 200}] × limit (at most 3)
//   Notion under /notion (NOTION_BASE_URL), `Authorization: Bearer secret-notion-stand-in`, a Notion-Version
//   (else 400 missing_version), page_size ≤ 100 (else 400 validation_error):
//     GET  /v1/pages/ID                  → a page {object, id, url, properties: {Name (title), Tags}}
//     GET  /v1/blocks/ID/children        → page ID ending "-root": two pages of blocks (start_cursor "c2"):
//                                          a heading, a paragraph (bold, link), a list item with a child, a
//                                          child_page "ID-child", then a code block and a to-do; ID ending
//                                          "-withdb": a paragraph and a child_database "ID-multi-cdb"; other pages one paragraph
//     GET  /v1/databases/ID              → 2025-09-03: {object: "database", data_sources: [ID-ds1 (+ ID-ds2 when ID
//                                          holds "multi")]}; older versions: the database, or (multi) 400 validation_error
//     POST /v1/data_sources/DS/query     → 2025-09-03 only (older: 400 invalid_request_url): rows DS-row1, DS-row2, then
//                                          (start_cursor "r2") DS-row3; DS holding "wiki" also lists a data source DS-nested
//     POST /v1/databases/ID/query        → rows ID-row1, ID-row2, then ID-row3 (older versions; multi → 400 validation_error)
//     an ID containing "missing" → 404 object_not_found; "busy" → its first request a 429 rate_limited
//     with Retry-After: 1 (asked again sooner: 429 again)
//   Jira under /jira (Cloud) and /jira-dc (Data Center), Basic auth jira@example.com:jira-stand-in-token:
//     Cloud GET /rest/api/2/search → 410 (removed); /rest/api/2/search/jql?jql&maxResults&fields&nextPageToken
//     → 3 issues of project KEY, at most 100 a page, nextPageToken while more (ids only without `fields`)
//     DC GET /rest/api/2/search?jql&startAt&maxResults → 5 issues, at most 2 a page; /search/jql → 404
//   Airtable under /airtable (AIRTABLE_BASE_URL), Bearer pat-airtable-stand-in:
//     POST /v0/BASE/TABLE/listRecords {pageSize ≤ 100, maxRecords, offset} → pages of up to 100 records
//     (3 records, 150 when TABLE holds "big", 601 "huge") with an opaque offset while more; a bad pageSize → 422;
//     a 6th request to BASE within a second → 429 RATE_LIMIT_REACHED, and every request to BASE for 30 s
//   Confluence Cloud under /confluence (the node's baseUrl, a site's …/wiki), Basic
//   confluence@example.com:confluence-stand-in-token (a personal access token → 401: Cloud has none):
//     GET /rest/api/content → 410 GoneException (v1 content is deprecated, CHANGE-864)
//     GET /api/v2/spaces?keys=K → {results: [{id, key, name}]} (none for a key holding "NONE")
//     GET /api/v2/spaces/ID/pages?body-format&status&limit&cursor → the space's pages (3, 260 when the key
//       holds "BIG"; page 2 archived when it holds "ARCH"), at most min(limit, 250), `_links.next` with a
//       cursor while more; the body only when body-format names one (storage | atlas_doc_format)
//     POST /api/v2/users-bulk {accountIds: 1–250} → {results: [{accountId, displayName}]}
//   Confluence Data Center under /confluence-dc, Bearer pat-confluence-stand-in or the Basic pair above:
//     GET /rest/api/content?spaceKey&limit&start&expand → pages of storage HTML (3, 60 when the key holds
//     "BIG"), `limit` at a time but at most 50 with a body expansion, `_links.next` while more; /api/v2/… → 404
// A wrong key → 401 {error}. GET /requests lists what was received (?contains= a body marker).
import { serveStandin } from "./base.mjs";

export const FIRECRAWL_KEY = "fc-stand-in-key";
export const SPIDER_KEY = "sk-spider-stand-in";
const polled = new Map();

const page = (url, n) => ({
  markdown: `# Page ${n}\n\nCrawled from ${url}`,
  metadata: { title: `Page ${n}`, sourceURL: `${url}/p${n}`, statusCode: 200, language: "en" },
});

// FireCrawl's v1 request schemas (apps/api/src/controllers/v1/types.ts): zod objects made .strict(),
// so a key they do not name is a 400; `integration` one of FireCrawl's listed integrations; `formats`
// from its enum; search `limit` a whole number 1–100, `timeout`s positive whole numbers.
const SCRAPE_OPTIONS = [
  "formats",
  "headers",
  "includeTags",
  "excludeTags",
  "onlyMainContent",
  "timeout",
  "waitFor",
  "extract",
  "jsonOptions",
  "changeTrackingOptions",
  "mobile",
  "parsePDF",
  "actions",
  "location",
  "geolocation",
  "skipTlsVerification",
  "removeBase64Images",
  "fastMode",
  "blockAds",
  "proxy",
  "maxAge",
  "storeInCache",
];
const FIRECRAWL_KEYS = {
  "/v1/scrape": ["url", ...SCRAPE_OPTIONS, "origin", "integration", "zeroDataRetention", "agent"],
  "/v1/crawl": [
    "url",
    "includePaths",
    "excludePaths",
    "maxDepth",
    "maxDiscoveryDepth",
    "limit",
    "allowBackwardLinks",
    "crawlEntireDomain",
    "allowExternalLinks",
    "allowSubdomains",
    "ignoreRobotsTxt",
    "ignoreSitemap",
    "deduplicateSimilarURLs",
    "ignoreQueryParameters",
    "regexOnFullURL",
    "delay",
    "origin",
    "integration",
    "scrapeOptions",
    "webhook",
    "maxConcurrency",
    "zeroDataRetention",
  ],
  "/v1/search": [
    "query",
    "limit",
    "tbs",
    "filter",
    "lang",
    "country",
    "location",
    "origin",
    "integration",
    "timeout",
    "ignoreInvalidURLs",
    "scrapeOptions",
  ],
};
const INTEGRATIONS = [
  "dify",
  "zapier",
  "pipedream",
  "raycast",
  "langchain",
  "crewai",
  "llamaindex",
  "n8n",
  "camelai",
  "make",
  "flowise",
  "metagpt",
  "relevanceai",
];
const FORMATS = [
  "markdown",
  "html",
  "rawHtml",
  "links",
  "screenshot",
  "screenshot@fullPage",
  "extract",
  "json",
  "summary",
  "changeTracking",
];
const wholePositive = (v) => Number.isSafeInteger(v) && v > 0;

/** The zod issues FireCrawl would report for a POST body (empty: valid). */
function validateFirecrawl(path, body) {
  const issues = [];
  const unknown = Object.keys(body ?? {}).filter((k) => !FIRECRAWL_KEYS[path].includes(k));
  if (unknown.length)
    issues.push({
      code: "unrecognized_keys",
      keys: unknown,
      message: "Unrecognized key in body -- please review the v1 API documentation for request body changes",
    });
  if (body.integration !== undefined && !INTEGRATIONS.includes(body.integration))
    issues.push({ code: "invalid_enum_value", path: ["integration"], message: `Invalid enum value '${body.integration}'` });
  for (const f of body.formats ?? [])
    if (!FORMATS.includes(f)) issues.push({ code: "invalid_enum_value", path: ["formats"], message: `Invalid enum value '${f}'` });
  if (path === "/v1/search") {
    if (typeof body.query !== "string") issues.push({ code: "invalid_type", path: ["query"], message: "Required" });
    if (body.limit !== undefined && !(wholePositive(body.limit) && body.limit <= 100))
      issues.push({ code: "too_big", path: ["limit"], message: "Number must be a whole number from 1 to 100" });
  }
  if (body.timeout !== undefined && !wholePositive(body.timeout))
    issues.push({ code: "invalid_type", path: ["timeout"], message: "Expected a positive integer" });
  if (path === "/v1/crawl" && body.limit !== undefined && typeof body.limit !== "number")
    issues.push({ code: "invalid_type", path: ["limit"], message: "Expected number" });
  return issues;
}

/** The site a crawl walks: a last path segment starting "big-" has 150 pages, any other 3. */
const siteSize = (id) => (id.startsWith("job-big-") ? 150 : 3);

function firecrawl({ req, url, body, json }) {
  if (req.headers.authorization !== `Bearer ${FIRECRAWL_KEY}`) return json(401, { success: false, error: "Unauthorized: Invalid token" });
  const path = url.pathname.replace(/^\/firecrawl/, "");
  if (req.method === "POST" && FIRECRAWL_KEYS[path]) {
    const issues = validateFirecrawl(path, body ?? {});
    if (issues.length) return json(400, { success: false, code: "BAD_REQUEST", error: "Bad Request", details: issues });
  }
  if (req.method === "POST" && path === "/v1/scrape")
    return json(200, {
      success: true,
      data: { markdown: `# Scraped\n\n${body.url}`, metadata: { title: "Scraped page", sourceURL: body.url, statusCode: 200 } },
    });
  if (req.method === "POST" && path === "/v1/crawl") {
    const id = `job-${body.url.split("/").pop()}`;
    polled.set(id, { n: 0, pages: Math.min(siteSize(id), body.limit ?? 10000) });
    return json(200, { success: true, id, url: `http://${req.headers.host}/v1/crawl/${id}` });
  }
  if (req.method === "POST" && path === "/v1/search")
    return json(200, {
      success: true,
      data: Array.from({ length: Math.min(body.limit ?? 5, 2) }, (_, i) => ({
        url: `https://example.com/found${i || ""}`,
        title: `Found ${body.query}${i ? ` ${i}` : ""}`,
        description: `About ${body.query}${i ? ` ${i}` : ""}`,
      })),
    });
  const m = /^\/v1\/crawl\/([^/]+)$/.exec(path);
  if (req.method === "GET" && m) {
    const id = decodeURIComponent(m[1]);
    if (id.endsWith("broken")) return json(200, { status: "failed" });
    const job = polled.get(id);
    if (!job) return json(404, { success: false, error: "Job not found" });
    if (++job.n === 1) return json(200, { status: "scraping", completed: 0, total: job.pages });
    // As crawl-status.ts pages a job: 100 documents from ?skip, and `next` while more remain — built
    // from FireCrawl's own host (http on a local instance), knowing nothing of a proxy's path prefix.
    const skip = Number(url.searchParams.get("skip") ?? 0);
    const site = `https://docs.example.com/${id.slice(4)}`;
    const data = Array.from({ length: Math.max(0, Math.min(100, job.pages - skip)) }, (_, i) => page(site, skip + i + 1));
    const more = job.pages > skip + data.length;
    const next = more ? `http://${req.headers.host}/v1/crawl/${encodeURIComponent(id)}?skip=${skip + data.length}` : undefined;
    return json(200, { status: "completed", completed: job.pages, total: job.pages, data, ...(next ? { next } : {}) });
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

// Notion's request rules (developers.notion.com/reference/request-limits, /reference/intro#pagination):
// a Notion-Version header on every request; page_size a whole number up to 100; past its rate limit a
// 429 `rate_limited` with Retry-After (whole seconds), and a request before that wait is refused again.
const notionError = (json, status, code, message) => json(status, { object: "error", status, code, message });

function validateNotion(req, url, body) {
  if (!req.headers["notion-version"])
    return [
      400,
      "missing_version",
      "Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.",
    ];
  const raw = req.method === "GET" ? url.searchParams.get("page_size") : body?.page_size;
  if (raw === null || raw === undefined) return undefined;
  const size = Number(raw);
  const where = req.method === "GET" ? "query" : "body";
  if (!Number.isInteger(size) || size < 1)
    return [400, "validation_error", `${where} failed validation: ${where}.page_size should be a positive integer.`];
  if (size > 100)
    return [400, "validation_error", `${where} failed validation: ${where}.page_size should be ≤ \`100\`, instead was \`${size}\`.`];
  return undefined;
}

/** When each id holding "busy" may be asked again: its first request is rate limited for 1 s. */
const notionWaits = new Map();
function rateLimited(path, res) {
  const id = /\/v1\/(?:pages|blocks|databases|data_sources)\/([^/]+)/.exec(path)?.[1] ?? "";
  if (!id.includes("busy")) return false;
  const until = notionWaits.get(id);
  if (until !== undefined && Date.now() >= until) return false;
  if (until === undefined) notionWaits.set(id, Date.now() + 1000);
  res.setHeader("retry-after", "1");
  return true;
}

function notion({ req, res, url, body, json }) {
  if (req.headers.authorization !== `Bearer ${NOTION_TOKEN}`) return notionError(json, 401, "unauthorized", "API token is invalid.");
  const bad = validateNotion(req, url, body);
  if (bad) return notionError(json, ...bad);
  const path = url.pathname.replace(/^\/notion/, "");
  if (rateLimited(path, res))
    return notionError(json, 429, "rate_limited", "You have been rate limited. Please try again in a few minutes.");
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
    if (id.endsWith("-withdb"))
      return json(200, {
        object: "list",
        results: [
          block(`${id}-p`, "paragraph", { rich_text: [rt(`Body of ${id}`)] }),
          block(`${id}-multi-cdb`, "child_database", { title: "Owl sightings" }),
        ],
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
  return notionDatabases({ req, path, body, json });
}

// Notion 2025-09-03 (developers.notion.com upgrade guide and changes-by-version): a database is a container
// of data sources (GET /v1/databases/ID lists them), rows are queried per data source; older versions
// answer a database with more than one data source 400 validation_error (dify-official-plugins#2167,
// onyx#8926) and know no /v1/data_sources (400 invalid_request_url, notion-mcp-server#178, #185). Whether
// 2025-09-03 still answers the deprecated /v1/databases/ID/query is not confirmed: it is answered here.
const DATA_SOURCES_VERSION = "2025-09-03";
const MULTI_SOURCE = "Databases with multiple data sources are not supported in this API version.";
const rowsPage = (json, id, body, extra = []) =>
  body?.start_cursor === "r2"
    ? json(200, { object: "list", results: [notionPage(`${id}-row3`)], has_more: false, next_cursor: null })
    : json(200, {
        object: "list",
        results: [notionPage(`${id}-row1`), ...extra, notionPage(`${id}-row2`)],
        has_more: true,
        next_cursor: "r2",
      });

function notionDatabases({ req, path, body, json }) {
  const current = req.headers["notion-version"] >= DATA_SOURCES_VERSION;
  let m = /^\/v1\/data_sources\/([^/]+)\/query$/.exec(path);
  if (m && !current) return notionError(json, 400, "invalid_request_url", "Invalid request URL.");
  if (m && req.method === "POST") {
    const id = decodeURIComponent(m[1]);
    const nested = id.includes("wiki") && !id.endsWith("-nested") ? [{ object: "data_source", id: `${id}-nested` }] : [];
    return rowsPage(json, id, body, nested);
  }
  m = /^\/v1\/databases\/([^/]+)(\/query)?$/.exec(path);
  const id = m ? decodeURIComponent(m[1]) : "";
  if (m && !current && id.includes("multi")) return notionError(json, 400, "validation_error", MULTI_SOURCE);
  if (m && !m[2] && req.method === "GET") {
    const sources = [`${id}-ds1`, ...(id.includes("multi") ? [`${id}-ds2`] : [])].map((d, i) => ({ id: d, name: `Source ${i + 1}` }));
    return json(200, { object: "database", id, title: [rt(`Database ${id}`)], ...(current ? { data_sources: sources } : {}) });
  }
  if (m?.[2] && req.method === "POST") return rowsPage(json, id, body);
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

// Jira Cloud (developer.atlassian.com changelog CHANGE-2046): /rest/api/{2,3}/search is removed (410);
// /search/jql takes a bounded `jql`, returns only ids unless `fields` names more, pages by
// nextPageToken (absent on the last page) and returns fewer than maxResults when fields are asked
// (here at most 100, as Cloud's older search did). /jira-dc/ is a Data Center server: no /search/jql
// (404), /search with startAt, maxResults capped by the admin's jira.search.views.default.max (here 2).
const JIRA_REMOVED =
  "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. " +
  "A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046";
const DC_MAX_RESULTS = 2;

function jiraIssues(url, count) {
  const key = /project=([^ ]+)/.exec(url.searchParams.get("jql") ?? "")?.[1] ?? "X";
  return Array.from({ length: count }, (_, i) => issue(key, i + 1));
}

function jiraCloud(url, json) {
  const jql = (url.searchParams.get("jql") ?? "").trim();
  if (!jql || /^order by/i.test(jql))
    return json(400, {
      errorMessages: ["Unbounded JQL queries are not allowed here. Please add a search restriction to your query."],
      errors: {},
    });
  const fields = url.searchParams.getAll("fields").join(",") || "id";
  const idsOnly = fields.split(",").every((f) => f === "id" || f === "key");
  const token = url.searchParams.get("nextPageToken");
  const start = token ? Number(Buffer.from(token, "base64url").toString()) : 0;
  if (!Number.isInteger(start) || start < 0) return json(400, { errorMessages: ["Invalid nextPageToken."], errors: {} });
  const size = Math.min(Number(url.searchParams.get("maxResults") ?? 50), idsOnly ? 5000 : 100);
  const all = jiraIssues(url, 3);
  const page = all.slice(start, start + size).map((i) => (idsOnly ? { id: i.id } : i));
  const more = start + page.length < all.length;
  return json(200, { issues: page, ...(more ? { nextPageToken: Buffer.from(String(start + page.length)).toString("base64url") } : {}) });
}

function jira({ req, url, json }) {
  if (req.headers.authorization !== JIRA_AUTH) return json(401, { errorMessages: ["Unauthorized"] });
  const dc = url.pathname.startsWith("/jira-dc/");
  const path = url.pathname.replace(/^\/jira(-dc)?/, "");
  if (!dc && /^\/rest\/api\/[23]\/search$/.test(path)) return json(410, { errorMessages: [JIRA_REMOVED], errors: {} });
  if (!dc && /^\/rest\/api\/[23]\/search\/jql$/.test(path)) return jiraCloud(url, json);
  if (dc && path === "/rest/api/2/search") {
    const startAt = Number(url.searchParams.get("startAt") ?? 0);
    const max = Math.min(Number(url.searchParams.get("maxResults") ?? 50), DC_MAX_RESULTS);
    const all = jiraIssues(url, 5);
    return json(200, { startAt, maxResults: max, total: all.length, issues: all.slice(startAt, startAt + max) });
  }
  return json(404, { message: `null for uri: http://${req.headers.host}${url.pathname}`, "status-code": 404 });
}

// Airtable's list records (airtable.com/developers/web/api/list-records; support's "API record limits"):
// pages of up to 100 records (`pageSize` at most 100), an `offset` while more remain, `maxRecords`
// bounding the whole list. A table whose id holds "big" has 150 records, "huge" 601, any other 3.
// Rate limits (the API reference; n8n's Airtable notes): 5 requests a second per base, past that a 429 and
// every request to the base refused for 30 s, body as quoted in PipedreamHQ/pipedream#10130.
const AIRTABLE_INVALID = {
  type: "INVALID_REQUEST_UNKNOWN",
  message: "Invalid request: parameter validation failed. Check your request data.",
};
const AIRTABLE_RATE = { errors: [{ error: "RATE_LIMIT_REACHED", message: "Rate limit exceeded. Please try again later" }] };
const airtableBases = new Map();

/** True when this request is over the base's 5 a second (or the base is still in its 30 s penalty). */
function airtableRateLimited(base) {
  const now = Date.now();
  const b = airtableBases.get(base) ?? { times: [], blockedUntil: 0 };
  airtableBases.set(base, b);
  if (now < b.blockedUntil) return true;
  b.times = b.times.filter((t) => now - t < 1000);
  if (b.times.length >= 5) {
    b.blockedUntil = now + 30_000;
    return true;
  }
  b.times.push(now);
  return false;
}

function airtable({ req, url, body, json }) {
  if (req.headers.authorization !== "Bearer pat-airtable-stand-in") return json(401, { error: { type: "AUTHENTICATION_REQUIRED" } });
  const m = /^\/airtable\/v0\/([^/]+)\/([^/]+)\/listRecords$/.exec(url.pathname);
  if (!m || req.method !== "POST") return json(404, { error: "NOT_FOUND" });
  if (airtableRateLimited(m[1])) return json(429, AIRTABLE_RATE);
  const b = body ?? {};
  if (b.pageSize !== undefined && !(typeof b.pageSize === "number" && b.pageSize >= 1 && b.pageSize <= 100))
    return json(422, { error: AIRTABLE_INVALID });
  const rec = (n) => ({ id: `rec${n}`, createdTime: "2024-01-01T00:00:00.000Z", fields: { Name: `Owl ${n}`, Table: m[2] } });
  const size = m[2].includes("huge") ? 601 : m[2].includes("big") ? 150 : 3;
  const total = Math.min(size, b.maxRecords ?? Number.POSITIVE_INFINITY);
  const start = b.offset ? Number(/^itr[^/]*\/rec(\d+)$/.exec(b.offset)?.[1] ?? Number.NaN) - 1 : 0;
  if (!Number.isInteger(start)) return json(422, { error: AIRTABLE_INVALID });
  const end = Math.min(start + (b.pageSize ?? 100), total);
  const records = Array.from({ length: Math.max(0, end - start) }, (_, i) => rec(start + i + 1));
  return json(200, { records, ...(end < total ? { offset: `itrStandin/rec${end + 1}` } : {}) });
}

// Confluence Data Center's GET /rest/api/content (the Server/DC KB gives 50 with a body expansion):
// `limit` capped at 50 when expanding body, `size` what came back, `_links.next` while more remain.
// Confluence Cloud (developer.atlassian.com/cloud/confluence/rest/v2): v1 content deprecated by CHANGE-864
// and answered 410 GoneException (as the API gateway answers it, Spenhouet/confluence-markdown-exporter#207,
// markdown-confluence#796); v2 lists take `limit` 1–250 and page by the opaque `cursor` in `_links.next`
// (no `start`); Get pages in space lists `current` and `archived` unless `status` says; `body-format` one of
// PrimaryBodyRepresentation; users-bulk takes 1–250 accountIds. v2 errors are {errors: [{status, code, title}]}.
const CONFLUENCE_BASIC = `Basic ${Buffer.from("confluence@example.com:confluence-stand-in-token").toString("base64")}`;
const CONFLUENCE_GONE =
  "com.atlassian.confluence.api.service.exceptions.pagesmodes.GoneException: This deprecated endpoint has been removed.";
const V2_MAX_LIMIT = 250;
const storage = (n, space) =>
  `<h1>Owls ${n} in ${space}</h1><p>Owls hunt <strong>at night</strong>.</p><p></p>` +
  '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">js</ac:parameter>' +
  "<ac:plain-text-body><![CDATA[hoot();]]></ac:plain-text-body></ac:structured-macro>" +
  '<ac:structured-macro ac:name="attachments" />';
const spaceIds = new Map();
const spaceIdOf = (key) => {
  if (!spaceIds.has(key)) spaceIds.set(key, String(98_000 + spaceIds.size));
  return spaceIds.get(key);
};
const v2Error = (json, status, code, title) => json(status, { errors: [{ status, code, title, detail: null }] });

function confluenceDc({ req, url, json }) {
  const auth = req.headers.authorization;
  if (auth !== "Bearer pat-confluence-stand-in" && auth !== CONFLUENCE_BASIC) return json(401, { message: "Unauthorized" });
  if (url.pathname !== "/confluence-dc/rest/api/content") return json(404, { message: "Not found" });
  const space = url.searchParams.get("spaceKey") ?? "";
  const start = Number(url.searchParams.get("start") ?? 0);
  const expand = url.searchParams.get("expand") ?? "";
  const limit = Math.min(Number(url.searchParams.get("limit") ?? 25), expand.includes("body") ? 50 : 200);
  const page = (n) => ({
    id: `${n}00`,
    type: "page",
    status: "current",
    title: `Owls ${n}`,
    version: { number: n, when: "2024-03-01T00:00:00.000Z", by: { displayName: "Ada" } },
    body: { storage: { value: storage(n, space) } },
  });
  const total = space.includes("BIG") ? 60 : 3;
  const results = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => page(start + i + 1));
  const more = start + results.length < total;
  const q = (at) => new URLSearchParams({ spaceKey: space, limit: String(limit), start: String(at), expand }).toString();
  const _links = {
    base: `http://${req.headers.host}/confluence-dc`,
    context: "/confluence-dc",
    ...(more ? { next: `/rest/api/content?${q(start + results.length)}` } : {}),
  };
  return json(200, { results, start, limit, size: results.length, _links });
}

/** The query problems Cloud's v2 pages listing refuses (400), else undefined. */
function validateConfluenceV2Pages(url) {
  const format = url.searchParams.get("body-format");
  if (format !== null && !["storage", "atlas_doc_format"].includes(format)) return `Invalid value for body-format: ${format}`;
  for (const s of url.searchParams.getAll("status").flatMap((v) => v.split(",")))
    if (!["current", "archived", "deleted", "trashed"].includes(s)) return `Invalid value for status: ${s}`;
  const limit = url.searchParams.get("limit");
  if (limit !== null && !(Number.isInteger(Number(limit)) && Number(limit) >= 1)) return `Invalid value for limit: ${limit}`;
  return undefined;
}

function confluenceCloudPages(req, url, json, spaceId) {
  const bad = validateConfluenceV2Pages(url);
  if (bad) return v2Error(json, 400, "INVALID_REQUEST_PARAMETER", bad);
  const key = [...spaceIds].find(([, id]) => id === spaceId)?.[0];
  if (key === undefined) return v2Error(json, 404, "NOT_FOUND", "Not Found");
  const statuses = url.searchParams.getAll("status").flatMap((v) => v.split(","));
  const wanted = statuses.length ? statuses : ["current", "archived"];
  const format = url.searchParams.get("body-format");
  const all = Array.from({ length: key.includes("BIG") ? 260 : 3 }, (_, i) => i + 1)
    .map((n) => ({ n, status: key.includes("ARCH") && n === 2 ? "archived" : "current" }))
    .filter((p) => wanted.includes(p.status));
  const cursor = url.searchParams.get("cursor");
  const start = cursor
    ? Number(
        Buffer.from(cursor, "base64url")
          .toString()
          .replace(/^after:/, ""),
      )
    : 0;
  if (!Number.isInteger(start) || start < 0) return v2Error(json, 400, "INVALID_REQUEST_PARAMETER", "Invalid cursor");
  const limit = Math.min(Number(url.searchParams.get("limit") ?? 25), V2_MAX_LIMIT);
  const results = all.slice(start, start + limit).map(({ n, status }) => ({
    id: `${n}00`,
    status,
    title: `Owls ${n}`,
    spaceId,
    authorId: "acc-ada",
    createdAt: "2024-02-01T00:00:00.000Z",
    version: { number: n, createdAt: "2024-03-01T00:00:00.000Z", authorId: n % 2 ? "acc-ada" : "acc-bob", minorEdit: false },
    body: format === "storage" ? { storage: { value: storage(n, key), representation: "storage" } } : {},
    _links: { webui: `/spaces/${key}/pages/${n}00/Owls+${n}` },
  }));
  const end = start + results.length;
  const next = new URLSearchParams(url.searchParams);
  next.set("cursor", Buffer.from(`after:${end}`).toString("base64url"));
  const _links = {
    base: `http://${req.headers.host}/confluence`,
    ...(end < all.length ? { next: `/wiki${url.pathname.slice(11)}?${next}` } : {}),
  };
  return json(200, { results, _links });
}

function confluenceCloud({ req, url, body, json }) {
  if (req.headers.authorization !== CONFLUENCE_BASIC) return json(401, { code: 401, message: "Unauthorized" });
  const path = url.pathname.replace(/^\/confluence/, "");
  if (path.startsWith("/rest/api/content"))
    return json(410, { statusCode: 410, data: { authorized: true, valid: true, errors: [], successful: true }, message: CONFLUENCE_GONE });
  if (req.method === "GET" && path === "/api/v2/spaces") {
    const keys = url.searchParams.getAll("keys").flatMap((v) => v.split(","));
    const found = keys.filter((k) => !k.includes("NONE")).map((k) => ({ id: spaceIdOf(k), key: k, name: `Space ${k}`, type: "global" }));
    return json(200, { results: found, _links: { base: `http://${req.headers.host}/confluence` } });
  }
  const m = /^\/api\/v2\/spaces\/([^/]+)\/pages$/.exec(path);
  if (req.method === "GET" && m) return confluenceCloudPages(req, url, json, decodeURIComponent(m[1]));
  if (req.method === "POST" && path === "/api/v2/users-bulk") {
    const ids = body?.accountIds;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 250)
      return v2Error(json, 400, "INVALID_REQUEST_PARAMETER", "accountIds must hold 1 to 250 account ids");
    const names = { "acc-ada": "Ada", "acc-bob": "Bob" };
    return json(200, { results: ids.filter((id) => names[id]).map((accountId) => ({ accountId, displayName: names[accountId] })) });
  }
  return v2Error(json, 404, "NOT_FOUND", "Not Found");
}

export function startLoadersHostedStandin() {
  return serveStandin(async (ctx) => {
    if (ctx.url.pathname.startsWith("/firecrawl/")) return firecrawl(ctx);
    if (ctx.url.pathname.startsWith("/spider/")) return spider(ctx);
    if (ctx.url.pathname.startsWith("/notion/")) return notion(ctx);
    if (ctx.url.pathname.startsWith("/jira/") || ctx.url.pathname.startsWith("/jira-dc/")) return jira(ctx);
    if (ctx.url.pathname.startsWith("/airtable/")) return airtable(ctx);
    if (ctx.url.pathname.startsWith("/confluence/")) return confluenceCloud(ctx);
    if (ctx.url.pathname.startsWith("/confluence-dc/")) return confluenceDc(ctx);
    return ctx.json(404, { error: "unknown service" });
  });
}
