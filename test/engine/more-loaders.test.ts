// Document loaders beyond files and pages: apiLoader (GET/POST a URL under the outbound policy), the
// web search loaders serpApi and braveSearchApiLoader (the search tools' services and base URL vars,
// test/standin/services.mjs), customDocumentLoader (JavaScript in the sandbox, through a saved chatflow)
// and vectorStoreToDocument; the document store wizard lists the hosted ones and previews them.
import { describe, expect, inject, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { workLimits } from "../../src/lib/limits";
import { loadDocuments } from "../../src/providers/loaders/registry";
import { json } from "../helpers";
import { newStore } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";
import { credential, makeCtx, marker, runFlow, runtimeWith } from "./helpers";

const services = () => inject("servicesUrl");
const SERP_KEY = "serp-key-0123456789";
const BRAVE_KEY = "brave-key-0123456789";
const hosted = () => inject("loadersHostedUrl");
const credentials: Record<string, Record<string, unknown>> = {
  serp: { serpApiKey: SERP_KEY },
  brave: { braveApiKey: BRAVE_KEY },
  searchapi: { searchApiKey: "searchapi-key-0123" },
  spider: { spiderApiKey: "sk-spider-stand-in" },
  notion: { notionIntegrationToken: "secret-notion-stand-in" },
  jira: { username: "jira@example.com", accessToken: "jira-stand-in-token" },
  jiraBad: { username: "jira@example.com", accessToken: "jira-wrong-token-77" },
  airtable: { accessToken: "pat-airtable-stand-in" },
  confluence: { personalAccessToken: "pat-confluence-stand-in" },
  confluenceCloud: { username: "confluence@example.com", accessToken: "confluence-stand-in-token" },
  get fire() {
    return { firecrawlApiToken: "fc-stand-in-key", firecrawlApiUrl: `${hosted()}/firecrawl` };
  },
  get fireBad() {
    return { firecrawlApiToken: "fc-wrong-key-99", firecrawlApiUrl: `${hosted()}/firecrawl` };
  },
};

const load = (name: string, config: Record<string, unknown>, outbound: Record<string, string> = { OUTBOUND_ALLOW: "127.0.0.1" }) =>
  loadDocuments(name, {
    config,
    files: [],
    outbound,
    maxBytes: 1 << 20,
    limits: workLimits({}),
    getCredential: async (id) => credentials[id] ?? {},
    services: {
      SERPAPI_BASE_URL: `${services()}/serpapi`,
      BRAVE_SEARCH_BASE_URL: `${services()}/brave`,
      SEARCHAPI_BASE_URL: `${services()}/searchapi`,
      SPIDER_BASE_URL: `${hosted()}/spider`,
      NOTION_BASE_URL: `${hosted()}/notion`,
      AIRTABLE_BASE_URL: `${hosted()}/airtable`,
      ENVIRONMENT: "test",
    },
  });
const err = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
type Received = {
  service: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
};
const received = async (m: string, service: string): Promise<Received[]> =>
  (await fetch(`${services()}/requests?service=${service}&contains=${m}`)).json();

describe("apiLoader", () => {
  it("GET: the JSON answer pretty-printed as one document with {url}, the headers sent", async () => {
    const m = marker();
    const url = `${services()}/echo/items?tag=${m}`;
    const docs = await load("apiLoader", { method: "GET", url, headers: JSON.stringify({ "X-Tag": m }), metadata: '{"team":"a"}' });
    expect(docs).toHaveLength(1);
    expect(docs[0].metadata).toEqual({ url, team: "a" });
    const body = JSON.parse(docs[0].pageContent);
    expect(body).toMatchObject({ method: "GET", path: `/echo/items?tag=${m}`, headers: { "x-tag": m } });
    expect(docs[0].pageContent).toContain('\n  "method": "GET"');
  });

  it("POST: the JSON body sent as JSON; omitMetadataKeys drops url", async () => {
    const m = marker();
    const docs = await load("apiLoader", { method: "POST", url: `${services()}/echo/add`, body: { tag: m }, omitMetadataKeys: "url" });
    expect(docs[0].metadata).toEqual({});
    expect(JSON.parse(docs[0].pageContent)).toMatchObject({ method: "POST", body: { tag: m } });
    const [req] = await received(m, "echo");
    expect(req).toMatchObject({ method: "POST", path: "/echo/add" });
    expect(req.headers["content-type"]).toBe("application/json");
  });

  it("a private or loopback URL not allowed is refused (400); a failing API is a 502 naming it; bad JSON input a 400", async () => {
    expect(await err(load("apiLoader", { url: "http://10.0.0.7/data" }, {}))).toMatchObject({ status: 400 });
    expect(await err(load("apiLoader", { url: `${services()}/echo/x` }, {}))).toMatchObject({ status: 400 });
    const missing = await err(load("apiLoader", { url: `${services()}/nothing-here` }));
    expect(missing).toMatchObject({ status: 502, message: expect.stringContaining("answered 404") });
    expect(await err(load("apiLoader", { url: `${services()}/echo/x`, headers: "{not json" }))).toMatchObject({ status: 400 });
    expect(await err(load("apiLoader", {}))).toMatchObject({ status: 400, message: "apiLoader needs a url" });
  });
});

describe("serpApi and braveSearchApiLoader", () => {
  it("serpApi: one document per result as LangChain's SerpAPILoader gives them, the key as api_key", async () => {
    const m = marker();
    const docs = await load("serpApi", { query: `owls ${m}`, credential: "serp" });
    expect(docs).toEqual([
      expect.objectContaining({
        pageContent: JSON.stringify({ title: "t", snippet: `serp snippet for owls ${m}` }),
        metadata: { source: "SerpAPI", responseType: "organic_results" },
      }),
    ]);
    const [req] = await received(m, "serpapi");
    expect(req).toMatchObject({ path: "/serpapi/search", query: { api_key: SERP_KEY, q: `owls ${m}` } });
  });

  it("braveSearchApiLoader: the snippets with {title, link}, the key as X-Subscription-Token", async () => {
    const m = marker();
    const docs = await load("braveSearchApiLoader", { query: `bees ${m}`, credential: "brave", omitMetadataKeys: "link" });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([[`brave snippet for bees ${m}`, { title: `Brave on bees ${m}` }]]);
    const [req] = await received(m, "brave");
    expect(req.headers["x-subscription-token"]).toBe(BRAVE_KEY);
  });

  it("without a credential 400; a failing service 502 naming it; the key never in a message", async () => {
    expect(await err(load("serpApi", { query: "x" }))).toMatchObject({ status: 400, message: expect.stringContaining("serpApiKey") });
    const failed = await err(load("serpApi", { query: "[fail]", credential: "serp" }));
    expect(failed).toMatchObject({ status: 502, message: expect.stringContaining("SerpAPI answered 500") });
    const echoed = await err(load("braveSearchApiLoader", { query: "[echo-key]", credential: "brave" }));
    expect(echoed.status).toBe(502);
    expect(echoed.message).toContain("Brave Search answered 401");
    expect(echoed.message).not.toContain(BRAVE_KEY);
    // The deployment's base URL is under the endpoint rule: a private address is refused.
    const refused = await loadDocuments("serpApi", {
      config: { query: "x", credential: "serp" },
      files: [],
      outbound: {},
      maxBytes: 1 << 20,
      limits: workLimits({}),
      getCredential: async (id) => credentials[id] ?? {},
      services: { SERPAPI_BASE_URL: "http://10.1.2.3/serp" },
    }).catch((e: { status: number; message: string }) => e);
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining("SERPAPI_BASE_URL") });
    expect(JSON.stringify(refused)).not.toContain(SERP_KEY);
  });
});

describe("searchApi", () => {
  it("one document per result, metadata {source: SearchApi, responseType}; engine, key and customParameters sent", async () => {
    const m = marker();
    const docs = await load("searchApi", { query: `moles ${m}`, credential: "searchapi", customParameters: '{"gl":"de"}' });
    expect(docs.map((d) => JSON.parse(d.pageContent).snippet)).toEqual([`searchapi snippet for moles ${m}`, "second snippet"]);
    expect(docs[0].metadata).toEqual({ source: "SearchApi", responseType: "organic_results" });
    const [req] = await received(m, "searchapi");
    expect(req).toMatchObject({ path: "/searchapi/api/v1/search", query: { engine: "google", api_key: "searchapi-key-0123", gl: "de" } });
  });
});

type HostedReceived = { method: string; path: string; headers: Record<string, string>; body: Record<string, unknown> };
const hostedReceived = async (part: string): Promise<HostedReceived[]> =>
  ((await (await fetch(`${hosted()}/requests`)).json()) as HostedReceived[]).filter(
    (r) => r.path.includes(part) || JSON.stringify(r.body ?? {}).includes(part),
  );

describe("fireCrawl", () => {
  it("scrape: the page's markdown with its metadata; the token as Bearer, Flowise's body", async () => {
    const m = marker();
    const url = `https://docs.example.com/${m}`;
    const docs = await load("fireCrawl", { crawlerType: "scrape", url, includeTags: "article, main", credential: "fire" });
    expect(docs.map((d) => [d.pageContent, d.metadata])).toEqual([
      [`# Scraped\n\n${url}`, { title: "Scraped page", sourceURL: url, source: url, statusCode: 200 }],
    ]);
    const [req] = await hostedReceived(m);
    expect(req).toMatchObject({ method: "POST", path: "/firecrawl/v1/scrape" });
    expect(req.headers.authorization).toBe("Bearer fc-stand-in-key");
    expect(req.body).toEqual({
      url,
      formats: ["markdown"],
      onlyMainContent: true,
      includeTags: ["article", "main"],
      integration: "flowise",
    });
  });

  it("crawl: starts a job, polls it until completed; its body as FireCrawl's strict schema takes it", async () => {
    const m = marker();
    const url = `https://docs.example.com/${m}`;
    const docs = await load("fireCrawl", { crawlerType: "crawl", url, limit: "5", credential: "fire" });
    expect(docs.map((d) => d.metadata.source)).toEqual([`${url}/p1`, `${url}/p2`, `${url}/p3`]);
    expect(docs[0]).toMatchObject({ pageContent: `# Page 1\n\nCrawled from ${url}`, metadata: { title: "Page 1", language: "en" } });
    const paths = (await hostedReceived(m)).map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(["POST /firecrawl/v1/crawl", `GET /firecrawl/v1/crawl/job-${m}`, `GET /firecrawl/v1/crawl/job-${m}`]);
    expect((await hostedReceived(m))[0].body).toEqual({ url, limit: 5, integration: "flowise" });
  });

  it("crawl: every `next` page, asked of firecrawlApiUrl (FireCrawl names its own host, without our path)", async () => {
    // FireCrawl answers 100 documents a page with `next: <its host>/v1/crawl/ID?skip=100`; followed as
    // written it missed firecrawlApiUrl's path (a proxy's prefix here) and the load failed.
    const m = `big-${marker()}`;
    const url = `https://docs.example.com/${m}`;
    const docs = await load("fireCrawl", { crawlerType: "crawl", url, limit: "150", credential: "fire" });
    expect(docs).toHaveLength(150);
    expect(docs[149].metadata.source).toBe(`${url}/p150`);
    const paths = (await hostedReceived(`job-${m}`)).map((r) => r.path);
    expect(paths.at(-1)).toBe(`/firecrawl/v1/crawl/job-${m}?skip=100`);
  });

  it("search: the results' descriptions with {title, source}; a failed crawl, a refused token and extract are errors", async () => {
    const m = marker();
    const docs = await load("fireCrawl", { crawlerType: "search", searchQuery: `owls ${m}`, searchLimit: 1, credential: "fire" });
    expect(docs.map((d) => [d.pageContent, d.metadata.title, d.metadata.source])).toEqual([
      [`About owls ${m}`, `Found owls ${m}`, "https://example.com/found"],
    ]);
    expect(await err(load("fireCrawl", { url: `https://x.example/${m}-broken`, credential: "fire" }))).toMatchObject({
      status: 502,
      message: expect.stringContaining("failed"),
    });
    const refused = await err(load("fireCrawl", { crawlerType: "scrape", url: "https://x.example/", credential: "fireBad" }));
    expect(refused).toMatchObject({ status: 502, message: expect.stringContaining("FireCrawl answered 401") });
    expect(refused.message).not.toContain("fc-wrong-key-99");
    expect(await err(load("fireCrawl", { crawlerType: "extract", url: "https://x.example/", credential: "fire" }))).toMatchObject({
      status: 400,
    });
    expect(await err(load("fireCrawl", { crawlerType: "scrape", url: "https://x.example/" }))).toMatchObject({ status: 400 });
  });

  it("search: a searchLimit over FireCrawl's 100 is sent as 100, a fractional timeout whole (FireCrawl refuses both: 400)", async () => {
    const m = marker();
    const docs = await load("fireCrawl", {
      crawlerType: "search",
      searchQuery: `moles ${m}`,
      searchLimit: "500",
      searchTimeout: "1500.5",
      credential: "fire",
    });
    expect(docs).toHaveLength(2);
    const [req] = await hostedReceived(`moles ${m}`);
    expect(req.body).toEqual({ query: `moles ${m}`, limit: 100, timeout: 1501, integration: "flowise" });
  });
});

describe("spiderDocumentLoaders", () => {
  it("scrape and crawl through POST /v1/crawl with markdown asked for; additional_metadata and params applied", async () => {
    const m = marker();
    const url = `https://site.example/${m}`;
    const scraped = await load("spiderDocumentLoaders", {
      mode: "scrape",
      url,
      credential: "spider",
      additional_metadata: '{"team":"web"}',
      params: '{"depth":2}',
    });
    expect(scraped.map((d) => [d.pageContent, d.metadata])).toEqual([[`Spider page 1 of ${url}`, { source: `${url}/s1`, team: "web" }]]);
    const crawled = await load("spiderDocumentLoaders", { mode: "crawl", url: `${url}/c`, limit: 2, credential: "spider" });
    expect(crawled.map((d) => d.metadata.source)).toEqual([`${url}/c/s1`, `${url}/c/s2`]);
    const reqs = await hostedReceived(m);
    expect(reqs.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      ["/spider/v1/crawl", "Bearer sk-spider-stand-in", { url, limit: 1, depth: 2, return_format: "markdown" }],
      ["/spider/v1/crawl", "Bearer sk-spider-stand-in", { url: `${url}/c`, limit: 2, return_format: "markdown" }],
    ]);
    expect(await err(load("spiderDocumentLoaders", { url, credential: "nobody" }))).toMatchObject({ status: 400 });
  });
});

describe("notionPage and notionDB", () => {
  it("a page: its blocks (every page of them, children indented) as markdown, its child page a document of its own", async () => {
    const m = marker();
    const docs = await load("notionPage", { pageId: `${m}-root`, credential: "notion", omitMetadataKeys: "archived" });
    expect(docs.map((d) => d.metadata.notionId)).toEqual([`${m}-root`, `${m}-root-child`]);
    expect(docs[0].pageContent).toBe(
      [
        "# Owls",
        "Owls **hunt**[ at night](https://owls.example)",
        "- Barn owl\n    nested detail",
        "```js\nhoot()\n```",
        "- [x] Count owls",
      ].join("\n\n"),
    );
    expect(docs[1].pageContent).toBe(`Body of ${m}-root-child`);
    expect(docs[0].metadata).toEqual({
      object: "page",
      url: `https://www.notion.so/${m}-root`,
      notionId: `${m}-root`,
      properties: { Name: `Title of ${m}-root`, _title: `Title of ${m}-root`, Tags: '["owls", "night"]' },
    });
    const reqs = await hostedReceived(m);
    expect(reqs.map((r) => r.path)).toContain(`/notion/v1/blocks/${m}-root/children?page_size=100&start_cursor=c2`);
    expect(
      reqs.every((r) => r.headers.authorization === "Bearer secret-notion-stand-in" && r.headers["notion-version"] === "2025-09-03"),
    ).toBe(true);
  });

  it("a database: its data source's rows (both pages of the query) as documents with their properties", async () => {
    const m = marker();
    const docs = await load("notionDB", { databaseId: `${m}-db`, credential: "notion" });
    expect(docs.map((d) => [d.pageContent, d.metadata.properties._title])).toEqual(
      [1, 2, 3].map((n) => [`Body of ${m}-db-ds1-row${n}`, `Title of ${m}-db-ds1-row${n}`]),
    );
    const queries = (await hostedReceived(`${m}-db-ds1/query`)).map((r) => [r.path, r.body]);
    expect(queries).toEqual([
      [`/notion/v1/data_sources/${m}-db-ds1/query`, { page_size: 50 }],
      [`/notion/v1/data_sources/${m}-db-ds1/query`, { page_size: 50, start_cursor: "r2" }],
    ]);
  });

  it("a database with two data sources (2022-06-28 answers it 400): every source's rows, Notion-Version 2025-09-03", async () => {
    const m = marker();
    const docs = await load("notionDB", { databaseId: `${m}-multi`, credential: "notion" });
    const rows = (ds: string) => [1, 2, 3].map((n) => `Body of ${m}-multi-${ds}-row${n}`);
    expect(docs.map((d) => d.pageContent)).toEqual([...rows("ds1"), ...rows("ds2")]);
    const reqs = await hostedReceived(`${m}-multi`);
    expect(reqs[0]).toMatchObject({ method: "GET", path: `/notion/v1/databases/${m}-multi` });
    expect(reqs.some((r) => r.path.includes("/v1/databases/") && r.path.endsWith("/query"))).toBe(false);
    expect(reqs.every((r) => r.headers["notion-version"] === "2025-09-03")).toBe(true);
  });

  it("a page's child database with two data sources: the page and both sources' rows; a wiki's nested source read too", async () => {
    const m = marker();
    const docs = await load("notionPage", { pageId: `${m}-withdb`, credential: "notion" });
    const db = `${m}-withdb-multi-cdb`;
    expect(docs.map((d) => d.metadata.notionId)).toEqual([
      `${m}-withdb`,
      ...["ds1", "ds2"].flatMap((ds) => [1, 2, 3].map((n) => `${db}-${ds}-row${n}`)),
    ]);
    const wiki = await load("notionDB", { databaseId: `${m}-wiki`, credential: "notion" });
    expect(wiki.map((d) => d.metadata.notionId)).toEqual(
      [`${m}-wiki-ds1`, `${m}-wiki-ds1-nested`].flatMap((ds) => [1, 2, 3].map((n) => `${ds}-row${n}`)),
    );
  });

  it("a 429 waits the Retry-After Notion names, then the load goes on (it failed at the first 429)", async () => {
    const m = marker();
    const started = Date.now();
    const docs = await load("notionPage", { pageId: `${m}-busy`, credential: "notion" });
    expect(docs.map((d) => d.pageContent)).toEqual([`Body of ${m}-busy`]);
    const pageCalls = (await hostedReceived(`/v1/pages/${m}-busy`)).length;
    expect(pageCalls).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("an id Notion does not share is a 502 with its message; a wrong token's never shown; no credential a 400", async () => {
    const missing = await err(load("notionPage", { pageId: "missing-page", credential: "notion" }));
    expect(missing).toMatchObject({ status: 502, message: expect.stringContaining("Notion answered 404: Could not find page") });
    expect(await err(load("notionDB", { databaseId: "x" }))).toMatchObject({ status: 400 });
  });
});

describe("jira", () => {
  it("a project's issues through /search/jql, following nextPageToken, as LangChain's converter writes them; Basic auth", async () => {
    // Jira Cloud removed /rest/api/2/search (410), which LangChain's loader and ours called.
    const m = marker();
    const host = `${hosted()}/jira`;
    const key = `K${m}`;
    const docs = await load("jira", { host, projectKey: key, limitPerRequest: 2, createdAfter: "2024-01-15", credential: "jira" });
    expect(docs.map((d) => d.metadata)).toEqual([1, 2, 3].map((n) => ({ id: `100${n}`, title: `Owl issue ${n}`, host, projectKey: key })));
    expect(docs[0].pageContent).toBe(
      [
        `Issue: ${key}-1 (ID 1001) - Owl issue 1 (${host}/browse/${key}-1)`,
        `Project: Owls (${key}, ID 10)`,
        "Status: Open",
        "Priority: High",
        "Type: Bug",
        "Creator: Ada",
        "Labels: night",
        "Created: 2024-02-01T10:00:00.000+0000",
        "Updated: 2024-02-02T10:00:00.000+0000",
        "Assignee: Unassigned",
        `Description: Issue 1 of ${key}`,
        "",
      ].join("\n"),
    );
    expect(docs[1].pageContent).toContain("Assignee: Bob\n");
    const reqs = await hostedReceived(key);
    expect(reqs.map((r) => new URL(r.path, "http://x").pathname)).toEqual(["/jira/rest/api/2/search/jql", "/jira/rest/api/2/search/jql"]);
    const query = reqs.map((r) => new URL(r.path, "http://x").searchParams);
    expect(query.map((q) => [q.get("jql"), q.get("maxResults"), q.get("fields")])).toEqual([
      [`project=${key} AND created>=2024-01-15`, "2", "*navigable"],
      [`project=${key} AND created>=2024-01-15`, "2", "*navigable"],
    ]);
    expect(query[0].get("nextPageToken")).toBeNull();
    expect(query[1].get("nextPageToken")).toBeTruthy();
  });

  it("a server without /search/jql (Data Center) is read through /search, startAt moving by what came back", async () => {
    // The server caps maxResults at 2: startAt += limitPerRequest (4) skipped issues 3 and 4.
    const m = marker();
    const key = `D${m}`;
    const docs = await load("jira", { host: `${hosted()}/jira-dc`, projectKey: key, limitPerRequest: 4, credential: "jira" });
    expect(docs.map((d) => d.metadata.title)).toEqual([1, 2, 3, 4, 5].map((n) => `Owl issue ${n}`));
    const starts = (await hostedReceived(key)).map((r) => new URL(r.path, "http://x").searchParams.get("startAt"));
    expect(starts).toEqual([null, "0", "2", "4"]);
  });

  it("a refused token is a 502 that never shows it; the host is a request URL (OUTBOUND_ALLOW); no credential a 400", async () => {
    const refused = await err(load("jira", { host: `${hosted()}/jira`, projectKey: "X", credential: "jiraBad" }));
    expect(refused).toMatchObject({ status: 502, message: expect.stringContaining("Jira answered 401") });
    expect(refused.message).not.toContain("jira-wrong-token-77");
    expect(await err(load("jira", { host: `${hosted()}/jira`, projectKey: "X", credential: "jira" }, {}))).toMatchObject({ status: 400 });
    expect(await err(load("jira", { host: `${hosted()}/jira`, projectKey: "X" }))).toMatchObject({ status: 400 });
  });
});

describe("airtable", () => {
  it("every record, 100 a page following offset, as pretty JSON with its url; or up to `limit` with maxRecords", async () => {
    const m = marker();
    const table = `tblbig${m}`;
    const all = await load("airtable", { baseId: "appB", tableId: table, viewId: "viwV", fields: "Name, Table", credential: "airtable" });
    expect(all).toHaveLength(150);
    expect(all[149].metadata.url).toBe(`https://api.airtable.com/v0/appB/${table}/rec150`);
    expect(all[0].pageContent).toBe(JSON.stringify({ Name: "Owl 1", Table: table }, null, 2));
    const reqs = await hostedReceived(table);
    expect(reqs.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      [`/airtable/v0/appB/${table}/listRecords`, "Bearer pat-airtable-stand-in", { view: "viwV", fields: ["Name", "Table"] }],
      [
        `/airtable/v0/appB/${table}/listRecords`,
        "Bearer pat-airtable-stand-in",
        { view: "viwV", fields: ["Name", "Table"], offset: expect.any(String) },
      ],
    ]);
    const limited = await load("airtable", { baseId: "appB", tableId: `tbl${m}L`, returnAll: false, limit: 1, credential: "airtable" });
    expect(limited.map((d) => JSON.parse(d.pageContent).Name)).toEqual(["Owl 1"]);
    expect((await hostedReceived(`tbl${m}L`)).map((r) => r.body)).toEqual([{ maxRecords: 1 }]);
    const over = await load("airtable", { baseId: "appB", tableId: `tblbig${m}M`, returnAll: false, limit: 120, credential: "airtable" });
    expect(over).toHaveLength(120);
    expect(await err(load("airtable", { baseId: "appB", tableId: table }))).toMatchObject({ status: 400 });
  });

  it("a 601-record table's 7 pages are asked at most 5 a second (Airtable's 6th within a second is a 429 for 30 s)", async () => {
    const m = marker();
    const docs = await load("airtable", { baseId: `app${m}`, tableId: `tblhuge${m}`, credential: "airtable" });
    expect(docs).toHaveLength(601);
    expect(docs[600].metadata.url).toBe(`https://api.airtable.com/v0/app${m}/tblhuge${m}/rec601`);
    const reqs = await hostedReceived(`tblhuge${m}`);
    expect(reqs).toHaveLength(7);
  });
});

describe("confluence", () => {
  const cloudAuth = `Basic ${btoa("confluence@example.com:confluence-stand-in-token")}`;
  /** The id the Cloud stand-in gave a space key (as GET /api/v2/spaces?keys= answers it). */
  const spaceId = async (key: string) =>
    (
      (await (await fetch(`${hosted()}/confluence/api/v2/spaces?keys=${key}`, { headers: { Authorization: cloudAuth } })).json()) as {
        results: Array<{ id: string }>;
      }
    ).results[0].id;
  const pageCalls = async (id: string) =>
    (await hostedReceived(`/confluence/api/v2/spaces/${id}/pages`)).map((r) => new URL(r.path, "http://x").searchParams);

  it("Data Center: a space's pages, `limit` at a time until an empty answer; storage HTML as text with code kept", async () => {
    const m = marker();
    const baseUrl = `${hosted()}/confluence-dc`;
    const docs = await load("confluence", { baseUrl, spaceKey: `S${m}`, limit: 2, credential: "confluence" });
    expect(docs.map((d) => d.metadata)).toEqual(
      [1, 2, 3].map((n) => ({
        id: `${n}00`,
        status: "current",
        title: `Owls ${n}`,
        type: "page",
        url: `${baseUrl}/spaces/S${m}/pages/${n}00`,
        version: n,
        updated_by: "Ada",
        updated_at: "2024-03-01T00:00:00.000Z",
      })),
    );
    expect(docs[0].pageContent).toBe(`Owls 1 in S${m}\nOwls hunt at night.\n\`\`\`js\nhoot();\n\`\`\`\n[ATTACHMENT]`);
    const reqs = await hostedReceived(`S${m}`);
    expect(reqs.map((r) => new URL(r.path, "http://x").searchParams.get("start"))).toEqual(["0", "2", "3"]);
    // A personal access token names Data Center: no v2 call is tried.
    expect(reqs.every((r) => r.path.startsWith("/confluence-dc/rest/api/content?"))).toBe(true);
    expect(reqs[0].headers.authorization).toBe("Bearer pat-confluence-stand-in");
    expect(await err(load("confluence", { baseUrl, spaceKey: "S" }))).toMatchObject({ status: 400 });
  });

  it("Data Center: a limit over what it returns with a body expansion (50): start moves by `size`, nothing skipped", async () => {
    const m = marker();
    const docs = await load("confluence", {
      baseUrl: `${hosted()}/confluence-dc`,
      spaceKey: `BIG${m}`,
      limit: 100,
      credential: "confluence",
    });
    expect(docs.map((d) => d.metadata.title)).toEqual(Array.from({ length: 60 }, (_, i) => `Owls ${i + 1}`));
    const starts = (await hostedReceived(`BIG${m}`)).map((r) => new URL(r.path, "http://x").searchParams.get("start"));
    expect(starts).toEqual(["0", "50", "60"]);
  });

  it("Cloud: v2 (v1 content answers 410), the cursor of `_links.next` followed; documents as v1 gave them", async () => {
    // Cloud deprecated GET /wiki/rest/api/content (CHANGE-864), which LangChain's loader and ours called.
    const m = marker();
    const baseUrl = `${hosted()}/confluence`;
    const docs = await load("confluence", { baseUrl, spaceKey: `S${m}`, limit: 2, credential: "confluenceCloud" });
    expect(docs.map((d) => d.metadata)).toEqual(
      [1, 2, 3].map((n) => ({
        id: `${n}00`,
        status: "current",
        title: `Owls ${n}`,
        type: "page",
        url: `${baseUrl}/spaces/S${m}/pages/${n}00`,
        version: n,
        updated_by: n % 2 ? "Ada" : "Bob",
        updated_at: "2024-03-01T00:00:00.000Z",
      })),
    );
    expect(docs[2].pageContent).toBe(`Owls 3 in S${m}\nOwls hunt at night.\n\`\`\`js\nhoot();\n\`\`\`\n[ATTACHMENT]`);
    const calls = await pageCalls(await spaceId(`S${m}`));
    expect(calls.map((q) => [q.get("body-format"), q.get("status"), q.get("limit"), q.has("cursor")])).toEqual([
      ["storage", "current", "2", false],
      ["storage", "current", "2", true],
    ]);
    expect((await hostedReceived(`S${m}`)).every((r) => !r.path.includes("/rest/api/"))).toBe(true);
  });

  it("Cloud: a limit over v2's 250 is sent as 250 and every page is read; archived pages stay out as in v1", async () => {
    const m = marker();
    const baseUrl = `${hosted()}/confluence`;
    const docs = await load("confluence", { baseUrl, spaceKey: `BIG${m}`, limit: 300, credential: "confluenceCloud" });
    expect(docs.map((d) => d.metadata.title)).toEqual(Array.from({ length: 260 }, (_, i) => `Owls ${i + 1}`));
    expect((await pageCalls(await spaceId(`BIG${m}`))).map((q) => q.get("limit"))).toEqual(["250", "250"]);
    const arch = await load("confluence", { baseUrl, spaceKey: `ARCH${m}`, credential: "confluenceCloud" });
    expect(arch.map((d) => d.metadata.id)).toEqual(["100", "300"]);
    expect(await err(load("confluence", { baseUrl, spaceKey: `NONE${m}`, credential: "confluenceCloud" }))).toMatchObject({
      status: 502,
      message: expect.stringContaining(`no space NONE${m}`),
    });
  });

  it("a username + token on a server without v2 (Data Center answers 404) reads v1", async () => {
    const m = marker();
    const baseUrl = `${hosted()}/confluence-dc`;
    const docs = await load("confluence", { baseUrl, spaceKey: `S${m}`, credential: "confluenceCloud" });
    expect(docs.map((d) => d.metadata.title)).toEqual(["Owls 1", "Owls 2", "Owls 3"]);
    const paths = (await hostedReceived(`S${m}`)).map((r) => r.path.split("?")[0]);
    expect(paths).toEqual(["/confluence-dc/api/v2/spaces", "/confluence-dc/rest/api/content", "/confluence-dc/rest/api/content"]);
  });
});

describe("the document store wizard", () => {
  it("lists the hosted loaders (not the node-only ones) and previews serpApi through its credential", async () => {
    const names = ((await json("GET", "/document-store/components/loaders")) as Array<{ name: string }>).map((n) => n.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "apiLoader",
        "serpApi",
        "braveSearchApiLoader",
        "searchApi",
        "fireCrawl",
        "spiderDocumentLoaders",
        "notionPage",
        "notionDB",
      ]),
    );
    expect(names).not.toContain("vectorStoreToDocument");
    expect(names).not.toContain("customDocumentLoader");
    const restore = setVars({ SERPAPI_BASE_URL: `${services()}/serpapi` });
    try {
      const store = await newStore("search results");
      const cred = await credential("serpApi", { serpApiKey: SERP_KEY });
      const m = marker();
      const preview = await json("POST", "/document-store/loader/preview", {
        body: {
          storeId: store.id,
          loaderId: "serpApi",
          loaderName: "Owl search",
          loaderConfig: { query: `owls ${m}`, credential: cred, textSplitter: "", metadata: "", omitMetadataKeys: "" },
          previewChunkCount: 5,
        },
      });
      expect(preview.chunks).toEqual([
        {
          pageContent: expect.stringContaining(`serp snippet for owls ${m}`),
          metadata: expect.objectContaining({ source: "SerpAPI", responseType: "organic_results" }),
        },
      ]);
      expect((await received(m, "serpapi")).length).toBe(1);
    } finally {
      restore();
    }
  });
});

/** A node as Flowise's editor saves it. */
const nodeOf = (id: string, name: string, label: string, inputs: Record<string, unknown>, output?: string): FlowNode =>
  ({
    id,
    position: { x: 0, y: 0 },
    type: "customNode",
    data: { id, label, name, category: name === "customFunction" ? "Utilities" : "Document Loaders", inputs, outputs: { output } },
  }) as unknown as FlowNode;

/** customDocumentLoader_0 (the code, output) read by a Custom JS Function that answers with what it got. */
function loaderFlow(code: string, output: "document" | "text", vars: Record<string, unknown> = {}): string {
  const loader = nodeOf(
    "customDocumentLoader_0",
    "customDocumentLoader",
    "Custom Document Loader",
    { functionInputVariables: JSON.stringify(vars), javascriptFunction: code },
    output,
  );
  const reader = nodeOf(
    "customFunction_0",
    "customFunction",
    "Custom JS Function",
    {
      functionInputVariables: { docs: "{{customDocumentLoader_0.data.instance}}" },
      javascriptFunction:
        "return typeof $docs === 'string' ? 'text:' + $docs : $docs.map((d) => d.pageContent + '|' + d.metadata.n).join(';');",
    },
    "EndingNode",
  );
  const edge = {
    id: "e",
    source: loader.id,
    target: reader.id,
    sourceHandle: `${loader.id}-output-${output}-Document|json`,
    targetHandle: `${reader.id}-input-functionInputVariables-json`,
  };
  return JSON.stringify({ nodes: [loader, reader], edges: [edge] });
}

describe("customDocumentLoader", () => {
  const CODE = "return [1, 2].map((n) => ({ pageContent: `${$prefix} ${n} for ${$input}`, metadata: { n } }));";

  it("runs its JavaScript in the sandbox: documents, or their text, with $input and its variables", async () => {
    const docs = await runFlow(loaderFlow(CODE, "document", { prefix: "Doc" }), makeCtx("ada"));
    expect(docs.text).toBe("Doc 1 for ada|1;Doc 2 for ada|2");
    const text = await runFlow(loaderFlow(CODE, "text", { prefix: "T" }), makeCtx("bob"));
    expect(text.text).toBe("text:T 1 for bob\nT 2 for bob");
    const str = await runFlow(loaderFlow("return 'plain ' + $input;", "text"), makeCtx("cy"));
    expect(str.text).toBe("text:plain cy");
  });

  it("a throw, a wrong shape and a runaway loop are 400s naming the node", async () => {
    const run = (code: string, runtime = runtimeWith()) => err(runFlow(loaderFlow(code, "document"), makeCtx("x", { runtime })));
    expect(await run("throw new Error('no docs today');")).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Custom Document Loader \(customDocumentLoader_0\): .*no docs today/),
    });
    expect(await run("return [{ text: 'x' }];")).toMatchObject({
      status: 400,
      message: expect.stringContaining("must return an array of document objects containing pageContent and metadata"),
    });
    expect(await run("while (true) {}", runtimeWith({ TOOL_TIMEOUT_MS: "300" }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Custom Document Loader \(customDocumentLoader_0\): The function .*time limit of 300 ms/),
    });
  });
});

describe("vectorStoreToDocument", () => {
  const hits = [
    [{ pageContent: "Owls hunt at night.", metadata: { id: 1 } }, 0.9],
    [{ pageContent: "Moles dig.", metadata: { id: 2 } }, 0.4],
  ];
  const store = (seen: Array<[string, number]>) => ({
    k: 3,
    similaritySearch: async () => [],
    similaritySearchWithScore: async (q: string, k: number) => {
      seen.push([q, k]);
      return hits;
    },
  });
  const build = (inputs: Record<string, unknown>, output: string) =>
    registry.get("vectorStoreToDocument")!.build({
      node: nodeOf("vectorStoreToDocument_0", "vectorStoreToDocument", "VectorStore To Document", {}, output),
      inputs,
      ctx: makeCtx("what hunts?"),
      output,
    } as never);

  it("searches the store with its query (else the question) and its top K; minScore % leaves hits out", async () => {
    const seen: Array<[string, number]> = [];
    const docs = (await build({ vectorStore: store(seen), minScore: 50 }, "document")) as Array<{ pageContent: string }>;
    expect(docs.map((d) => d.pageContent)).toEqual(["Owls hunt at night."]);
    expect(await build({ vectorStore: store(seen), query: "moles" }, "text")).toBe("Owls hunt at night.\nMoles dig.\n");
    expect(seen).toEqual([
      ["what hunts?", 3],
      ["moles", 3],
    ]);
    expect(await err(build({}, "document") as Promise<unknown>)).toMatchObject({ status: 400 });
  });
});
