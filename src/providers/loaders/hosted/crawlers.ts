// Hosted crawlers as document loaders:
//   fireCrawl (credential fireCrawlApi: firecrawlApiToken, firecrawlApiUrl — default https://api.firecrawl.dev,
//     under the endpoint rule): crawlerType `scrape` POST /v1/scrape; `crawl` POST /v1/crawl, then
//     GET /v1/crawl/{id} every 2 s until completed (then its `next` pages, asked of our URL for the job);
//     `search` POST /v1/search. Documents as Flowise's FireCrawlLoader makes them: the markdown, the
//     page's metadata with source/title/description/language/statusCode. `extract` is not offered.
//   spiderDocumentLoaders (credential spiderApi: spiderApiKey): POST {SPIDER_BASE_URL}/v1/crawl, mode
//     `scrape` (limit 1) or `crawl` (limit), `params` merged, markdown asked for; one document per
//     page, metadata {source: url} plus `additional_metadata` (the registry applies it).
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedJson, serviceBase } from "./call";

const POLL_MS = 2_000;
const CRAWL_DEADLINE_MS = 5 * 60_000;
/** FireCrawl's most results a search (its `limit` is 1–100). */
const SEARCH_MAX_RESULTS = 100;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const list = (v: unknown) =>
  text(v)
    ? text(v)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

async function credential(input: LoaderInput): Promise<Record<string, unknown>> {
  return input.getCredential ? await credentialOf(input.config, { getCredential: input.getCredential }).catch(() => ({})) : {};
}

function pageDocument(page: unknown, url: string): Document {
  const p = isObject(page) ? page : {};
  const meta = isObject(p.metadata) ? p.metadata : {};
  const content = text(p.markdown) || text(p.html) || text(p.rawHtml);
  const metadata = defined({
    ...meta,
    source: meta.sourceURL ?? url,
    title: meta.title,
    description: meta.description,
    language: meta.language,
    statusCode: meta.statusCode,
  });
  return new Document({ pageContent: content, metadata });
}

async function loadFireCrawl(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const cred = await credential(input);
  const key = text(cred.firecrawlApiToken);
  if (!key) throw fail("INVALID_INPUT", "fireCrawl needs a fireCrawlApi credential with firecrawlApiToken");
  const api = serviceBase(cred.firecrawlApiUrl, "https://api.firecrawl.dev");
  const field = "fireCrawlApi credential firecrawlApiUrl";
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${key}` };
  const call = (path: string, body?: Record<string, unknown>, url = `${api}${path}`) =>
    hostedJson(input, {
      service: "FireCrawl",
      field,
      url,
      init: body ? { method: "POST", headers, body: JSON.stringify({ ...body, integration: "flowise" }) } : { headers },
      secrets: [key],
    }).then((r) => (isObject(r) ? r : {}));
  const mode = text(config.crawlerType) || "crawl";
  const url = text(config.url);
  if (mode === "search") {
    const query = text(config.searchQuery);
    if (!query) throw fail("INVALID_INPUT", "fireCrawl: Search query is required for search mode");
    // FireCrawl refuses (400) a search limit outside 1–100 and a timeout that is not a positive whole number.
    const limit = Math.min(Math.max(Number.parseInt(String(config.searchLimit ?? ""), 10) || 5, 1), SEARCH_MAX_RESULTS);
    const timeout = Math.round(Number(config.searchTimeout)) || undefined;
    const res = await call("/v1/search", {
      query,
      limit,
      ...defined({ lang: text(config.searchLang) || undefined, country: text(config.searchCountry) || undefined }),
      ...defined({ timeout: timeout && timeout > 0 ? timeout : undefined }),
    });
    if (res.success === false) throw fail("UPSTREAM_FAILED", `FireCrawl: the search failed: ${text(res.warning) || "unknown error"}`);
    const data = Array.isArray(res.data) ? res.data.filter(isObject) : [];
    return data.map((r) =>
      pageDocument({ markdown: r.description, metadata: { title: r.title, sourceURL: r.url, description: r.description } }, url),
    );
  }
  if (mode !== "scrape" && mode !== "crawl")
    throw fail("INVALID_INPUT", `fireCrawl crawlerType "${mode}" is not supported here (scrape, crawl or search)`);
  if (!url) throw fail("INVALID_INPUT", `fireCrawl: URL is required for ${mode} mode`);
  if (mode === "scrape") {
    const body = { url, formats: ["markdown"], onlyMainContent: true, ...defined({ includeTags: list(config.includeTags) }) };
    const res = await call("/v1/scrape", { ...body, ...defined({ excludeTags: list(config.excludeTags) }) });
    if (res.success === false) throw fail("UPSTREAM_FAILED", `FireCrawl: could not scrape ${url}: ${text(res.error)}`);
    return [pageDocument(res.data, url)];
  }
  const limit = Number.parseInt(String(config.limit ?? ""), 10) || 1000;
  const started = await call("/v1/crawl", {
    url,
    limit,
    ...defined({ includePaths: list(config.includePaths), excludePaths: list(config.excludePaths) }),
  });
  if (started.success === false) throw fail("UPSTREAM_FAILED", `FireCrawl: could not start crawling ${url}: ${text(started.error)}`);
  const id = text(started.id);
  if (!id) return [pageDocument(started.data, url)];
  const deadline = Date.now() + CRAWL_DEADLINE_MS;
  let status = await call(`/v1/crawl/${encodeURIComponent(id)}`);
  while (status.status === "scraping") {
    if (Date.now() + POLL_MS > deadline)
      throw fail("TIMEOUT", `FireCrawl did not finish crawling ${url} within ${CRAWL_DEADLINE_MS / 60_000} min`);
    await new Promise((r) => setTimeout(r, POLL_MS));
    status = await call(`/v1/crawl/${encodeURIComponent(id)}`);
  }
  if (status.status === "failed") throw fail("UPSTREAM_FAILED", `FireCrawl: the crawl of ${url} failed`);
  if (status.status !== "completed") throw fail("UPSTREAM_FAILED", `FireCrawl: unknown crawl status ${JSON.stringify(status.status)}`);
  const pages: unknown[] = Array.isArray(status.data) ? [...status.data] : [];
  // A crawl's results come 100 (or 10 MB) at a time, each answer's `next` naming the rest
  // (…/v1/crawl/{id}?skip=N) until none. FireCrawl builds it from its own host and scheme, which behind
  // a proxy or a path prefix is not our firecrawlApiUrl: its query is asked of our URL for the job
  // (the key never goes elsewhere), and every page is read — the chunk limit bounds them.
  const jobUrl = `${api}/v1/crawl/${encodeURIComponent(id)}`;
  for (let next = text(status.next); next; next = text(status.next)) {
    if (pages.length > input.limits.chunks) break;
    status = await call("", undefined, `${jobUrl}${new URL(next, api).search}`);
    if (!Array.isArray(status.data) || !status.data.length) break; // nothing more, whatever `next` says
    pages.push(...status.data);
  }
  if (pages.length > input.limits.chunks) throw overLimit(input.limits, "chunks", `FireCrawl's crawl of ${url}`, pages.length);
  return pages.map((p) => pageDocument(p, url));
}

async function loadSpider(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const key = text((await credential(input)).spiderApiKey);
  if (!key) throw fail("INVALID_INPUT", "spiderDocumentLoaders needs a spiderApi credential with spiderApiKey");
  const url = text(config.url);
  if (!url) throw fail("INVALID_INPUT", "spiderDocumentLoaders needs a url");
  const mode = text(config.mode) || "scrape";
  if (mode !== "scrape" && mode !== "crawl") throw fail("INVALID_INPUT", `spiderDocumentLoaders mode "${mode}": expected crawl or scrape`);
  let params: unknown = config.params ?? {};
  if (typeof params === "string") {
    try {
      params = params.trim() ? JSON.parse(params) : {};
    } catch {
      throw fail("INVALID_INPUT", "spiderDocumentLoaders params must be a JSON object");
    }
  }
  if (!isObject(params)) throw fail("INVALID_INPUT", "spiderDocumentLoaders params must be a JSON object");
  const limit = mode === "scrape" ? 1 : Number(config.limit ?? 25) || 25;
  const body = mode === "scrape" ? { url, limit, ...params } : { url, ...params, limit };
  const api = serviceBase(input.services?.SPIDER_BASE_URL, "https://api.spider.cloud");
  const init = {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
    body: JSON.stringify({ ...body, return_format: "markdown" }),
  };
  const res = await hostedJson(input, { service: "Spider", field: "SPIDER_BASE_URL", url: `${api}/v1/crawl`, init, secrets: [key] });
  const pages = Array.isArray(res) ? res.filter(isObject) : [];
  if (mode === "scrape" && !pages[0]?.status) throw fail("UPSTREAM_FAILED", `Spider: could not scrape ${url}`);
  return pages.map((p) => new Document({ pageContent: typeof p.content === "string" ? p.content : "", metadata: { source: p.url } }));
}

export const crawlerLoaders: LoaderDefinition[] = [
  { name: "fireCrawl", label: "FireCrawl", load: loadFireCrawl },
  { name: "spiderDocumentLoaders", label: "Spider Document Loaders", load: loadSpider },
];
