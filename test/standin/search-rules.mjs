// What the web search services refuse (the stand-ins of services.mjs and search-more.mjs ask it before
// answering): each validate…() answers [status, body] when the service would refuse the request, in the
// service's own status and error shape (body: JSON, or text for Wolfram|Alpha), else nothing. Each rule
// names where it is from; a parameter our code never sends is checked only if sent. None of these services
// pages a tool's search (one request, one answer), so there is no cursor to follow here.

const isInt = (v) => Number.isInteger(v);
const intIn = (v, lo, hi) => isInt(v) && v >= lo && v <= hi;
/** A query-string integer (digits only, as the services parse them), else NaN. */
const qsInt = (v) => (typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : Number.NaN);
const blank = (v) => typeof v !== "string" || !v.trim();
const bearer = (req) => /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? "")?.[1];

// Tavily (docs.tavily.com API reference, POST /search; the OpenAPI spec mirrored by tryAGI/Tavily): the
// key as `Authorization: Bearer` (the spec's only security scheme; `api_key` in the body is not
// documented), max_results 0–20, chunks_per_source 1–3, the enums below, ≤ 300 / ≤ 150 domains; errors
// {detail: {error}} (401 "Unauthorized: missing or invalid API key."). A query over 400 characters is
// 400 "Query is too long. Max query length is 400 characters." (quoted in assafelovic/gpt-researcher#1263).
const TAVILY_ENUMS = {
  topic: ["general", "news", "finance"],
  search_depth: ["basic", "advanced", "fast", "ultra-fast"],
  time_range: ["day", "week", "month", "year", "d", "w", "m", "y"],
};
export function validateTavily(req, body) {
  const fail = (status, error) => [status, { detail: { error } }];
  if (!bearer(req)) return fail(401, "Unauthorized: missing or invalid API key.");
  const b = body && typeof body === "object" ? body : {};
  if (blank(b.query)) return fail(400, "Query is missing.");
  if (b.query.length > 400) return fail(400, "Query is too long. Max query length is 400 characters.");
  if (b.max_results !== undefined && !intIn(b.max_results, 0, 20)) return fail(400, "max_results must be between 0 and 20.");
  if (b.chunks_per_source !== undefined && !intIn(b.chunks_per_source, 1, 3))
    return fail(400, "chunks_per_source must be between 1 and 3.");
  for (const [field, allowed] of Object.entries(TAVILY_ENUMS))
    if (b[field] !== undefined && !allowed.includes(b[field]))
      return fail(400, `Invalid ${field}. Must be one of: ${allowed.map((a) => `'${a}'`).join(", ")}.`);
  // days: "Required range: x >= 0" (help.tavily.com, filtering by date).
  if (b.days !== undefined && !(isInt(b.days) && b.days >= 0)) return fail(400, "days must be an integer >= 0.");
  if (Array.isArray(b.include_domains) && b.include_domains.length > 300) return fail(400, "Maximum 300 include_domains.");
  if (Array.isArray(b.exclude_domains) && b.exclude_domains.length > 150) return fail(400, "Maximum 150 exclude_domains.");
}

// Exa (exa.ai/docs/reference/search): the key as `x-api-key` or `Authorization: Bearer`; `query` required;
// numResults "x <= 100"; for the company and people categories startPublishedDate, endPublishedDate,
// startCrawlDate, endCrawlDate, includeText, excludeText and excludeDomains "will result in a 400 error", and
// people's includeDomains only takes LinkedIn. Errors {requestId, error, tag} (as exa-js reads them).
const EXA_CATEGORY_UNSUPPORTED = [
  "startPublishedDate",
  "endPublishedDate",
  "startCrawlDate",
  "endCrawlDate",
  "includeText",
  "excludeText",
  "excludeDomains",
];
export function validateExa(req, body) {
  const fail = (status, error, tag) => [status, { requestId: "standin", error, tag }];
  if (!req.headers["x-api-key"] && !bearer(req)) return fail(401, "Missing API key", "INVALID_API_KEY");
  const b = body && typeof body === "object" ? body : {};
  if (blank(b.query)) return fail(400, "query is required", "INVALID_REQUEST_BODY");
  if (b.numResults !== undefined && !(isInt(b.numResults) && b.numResults <= 100))
    return fail(400, `numResults must be an integer <= 100, got ${b.numResults}`, "INVALID_REQUEST_BODY");
  if (b.category === "company" || b.category === "people") {
    const unsupported = EXA_CATEGORY_UNSUPPORTED.find((f) => b[f] !== undefined);
    if (unsupported) return fail(400, `${unsupported} is not supported for the ${b.category} category`, "INVALID_REQUEST_BODY");
    if (b.category === "people" && (b.includeDomains ?? []).some((d) => !/(^|\.)linkedin\.com$/.test(d)))
      return fail(400, "includeDomains only accepts LinkedIn domains for the people category", "INVALID_REQUEST_BODY");
  }
}

// Brave Web Search (api-dashboard.search.brave.com, GET /res/v1/web/search): `X-Subscription-Token`
// required; q not empty, at most 400 characters and 50 words; count 1–20; offset 0–9. Errors
// {type: "ErrorResponse", error: {id, status, code, detail, meta}} with 422 (codes VALIDATION and
// SUBSCRIPTION_TOKEN_INVALID, as quoted in egoist/chatwise-releases#936 and nearai/ironclaw#2780).
export function validateBrave(req, url) {
  const fail = (code, detail, meta = {}) => [
    422,
    { type: "ErrorResponse", error: { id: "standin", status: 422, code, detail, meta }, time: Math.floor(Date.now() / 1000) },
  ];
  if (!req.headers["x-subscription-token"]) return fail("SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.");
  const invalid = (loc, msg) => fail("VALIDATION", "Unable to validate request parameter(s)", { errors: [{ loc: ["query", loc], msg }] });
  const q = url.searchParams.get("q") ?? "";
  if (!q.trim()) return invalid("q", "Query can not be empty");
  if (q.length > 400 || q.trim().split(/\s+/).length > 50) return invalid("q", "Maximum of 400 characters and 50 words in the query");
  const count = url.searchParams.get("count");
  if (count !== null && !intIn(qsInt(count), 1, 20)) return invalid("count", "Input should be less than or equal to 20");
  const offset = url.searchParams.get("offset");
  if (offset !== null && !intIn(qsInt(offset), 0, 9)) return invalid("offset", "Input should be less than or equal to 9");
}

// Google Custom Search JSON API (developers.google.com/custom-search/v1/reference/rest/v1/cse/list): key,
// cx and q required; num 1–10; start ≥ 1 and never past the 100th result (start + num - 1 ≤ 100: start=92
// with num=10 is 400 "Invalid Value", whosebug.com question 3130568); safe "active" or "off". Google's
// error shape {error: {code, message, errors: [{message, domain, reason}], status}}.
export function validateGoogleCse(url) {
  const fail = (code, status, message, reason) => [
    code,
    { error: { code, message, errors: [{ message, domain: "global", reason }], status } },
  ];
  const p = url.searchParams;
  if (!p.get("key")) return fail(403, "PERMISSION_DENIED", "The request is missing a valid API key.", "forbidden");
  if (!p.get("cx") && !p.get("cref")) return fail(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", "badRequest");
  if (!p.get("q")) return fail(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", "badRequest");
  const invalid = () => fail(400, "INVALID_ARGUMENT", "Invalid Value", "invalid");
  const num = p.has("num") ? qsInt(p.get("num")) : 10;
  const start = p.has("start") ? qsInt(p.get("start")) : 1;
  if (!intIn(num, 1, 10) || !(isInt(start) && start >= 1) || start + num - 1 > 100) return invalid();
  if (p.has("safe") && !["active", "off"].includes(p.get("safe"))) return invalid();
}

// Serper (google.serper.dev): the key as `X-API-KEY`, else 403 {message: "Unauthorized.", statusCode: 403}
// (quoted in crewAIInc/crewAI#633); `q` required.
export function validateSerper(req, body) {
  if (!req.headers["x-api-key"]) return [403, { message: "Unauthorized.", statusCode: 403 }];
  if (blank(body?.q)) return [400, { message: "Missing query parameter", statusCode: 400 }];
}

// SerpAPI (serpapi.com/search-api): `api_key` required; `engine` defaults to google, whose `q` is required:
// 400 {error: "Missing query `q` parameter."} (quoted in serpapi/google-search-results-python#33).
export function validateSerpApi(url) {
  const p = url.searchParams;
  if (!p.get("api_key")) return [401, { error: "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key" }];
  if ((p.get("engine") ?? "google") === "google" && !p.get("q")) return [400, { error: "Missing query `q` parameter." }];
}

// SearchApi (searchapi.io/docs/google): `engine` required; the key as `api_key` or `Authorization: Bearer`;
// the google engine's `q` required. Errors {error}.
export function validateSearchApi(req, url) {
  const p = url.searchParams;
  if (!p.get("api_key") && !bearer(req)) return [401, { error: "Invalid API key." }];
  if (!p.get("engine")) return [400, { error: "Missing required parameter: engine" }];
  if (p.get("engine") === "google" && !p.get("q")) return [400, { error: "Missing required parameter: q" }];
}

// SearXNG (searx/webapp.py and searx/webadapter.py): no q → 400 {error: "No query"}; pageno digits ≥ 1,
// safesearch 0–2, time_range day/week/month/year, language a code (xx, xxx, xx-XX) or auto, else 400
// {error: "Invalid value X for parameter NAME"} (SearxParameterException). GET and POST parameters merge.
export function validateSearxng(url) {
  const p = url.searchParams;
  const invalid = (name) => [400, { error: `Invalid value ${p.get(name)} for parameter ${name}` }];
  if (!p.get("q")) return [400, { error: "No query" }];
  if (p.has("pageno") && !(/^\d+$/.test(p.get("pageno")) && Number(p.get("pageno")) >= 1)) return invalid("pageno");
  if (p.has("safesearch") && !intIn(qsInt(p.get("safesearch")), 0, 2)) return invalid("safesearch");
  if (p.has("time_range") && !["", "None", "day", "week", "month", "year"].includes(p.get("time_range"))) return invalid("time_range");
  if (p.has("language") && p.get("language") !== "auto" && !/^[a-z]{2,3}(-[a-zA-Z]{2})?$/.test(p.get("language")))
    return invalid("language");
}

// Wolfram|Alpha LLM API (GET /api/v1/llm-api): `appid` and `input` required; a missing or wrong appid is a
// 403 (text, as the other Wolfram|Alpha APIs word it).
export function validateWolfram(url) {
  const p = url.searchParams;
  if (!p.get("appid")) return [403, "Error 2: Appid missing"];
  if (!p.get("input") && !p.get("i")) return [400, "Error: No input. Please specify the input using the 'input' or 'i' query parameters."];
}

/** The refusal of a search service for this request, or undefined (also for services not listed here). */
export function searchRefusal(service, req, url, body) {
  switch (service) {
    case "tavily":
      return validateTavily(req, body);
    case "exa":
      return validateExa(req, body);
    case "brave":
      return validateBrave(req, url);
    case "google":
      return validateGoogleCse(url);
    case "serper":
      return validateSerper(req, body);
    case "serpapi":
      return validateSerpApi(url);
    case "searchapi":
      return validateSearchApi(req, url);
    case "searxng":
      return validateSearxng(url);
    case "wolfram":
      return validateWolfram(url);
  }
}

/** Sends a refusal: JSON, or text/plain for a string body. */
export function sendRefusal(res, [status, body]) {
  const text = typeof body === "string";
  res.writeHead(status, { "content-type": text ? "text/plain; charset=utf-8" : "application/json" });
  res.end(text ? body : JSON.stringify(body));
}
