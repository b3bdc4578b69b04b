// braveSearchMCP: @brave/brave-search-mcp-server (2.0.80, the package and version Flowise 3.1.4
// starts) natively. Its six tools as it lists them (brave-search.tools.json: names, descriptions,
// input schemas), the inputs completed with the schema's defaults as the server's zod does, the same
// GETs to Brave's Search API ({BRAVE_SEARCH_BASE_URL}/res/v1/…, X-Subscription-Token) and the same
// content items back; a failing API is the tool's error text `<status> <reason>\n<body>` (no key).
import { fail } from "../../../../errors";
import { checkEndpoint } from "../../../../lib/outbound";
import { redact } from "../../../../lib/redact";
import { credentialOf } from "../../../../providers/config";
import { isObject, str } from "../../../core/inputs";
import type { RunContext } from "../../../core/ports";
import { ToolCallError, baseUrlOf, callService } from "../../service";
import type { NativeMcpServer, NativeMcpTool, NativeResult } from "./native";
import { textResult } from "./native";
import TOOLS from "./brave-search.tools.json";

const BRAVE = "https://api.search.brave.com";

type Obj = Record<string, unknown>;
type Params = Record<string, unknown>;

const PATHS = {
  images: "/res/v1/images/search",
  localDescriptions: "/res/v1/local/descriptions",
  news: "/res/v1/news/search",
  videos: "/res/v1/videos/search",
  web: "/res/v1/web/search",
  summarizer: "/res/v1/summarizer/search",
};
type Endpoint = keyof typeof PATHS;

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const https = (url: unknown) => {
  try {
    return new URL(String(url)).protocol === "https:";
  } catch {
    return false;
  }
};

/** The server's query string: query → q, ids and goggles repeated, result_filter joined (summarizer when summary). */
function queryOf(endpoint: Endpoint, params: Params): URLSearchParams {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (key === "ids" && endpoint === "localDescriptions") {
      if (Array.isArray(value)) for (const id of value) q.append(key, String(id));
      else if (typeof value === "string") q.set(key, value);
    } else if (key === "result_filter") {
      if (params.summary === true) q.set(key, "summarizer");
      else if (Array.isArray(value) && value.length) q.set(key, value.join(","));
    } else if (key === "goggles") {
      if (typeof value === "string") q.set(key, value);
      else if (Array.isArray(value)) for (const url of value.filter(https)) q.append(key, String(url));
    } else if (value !== undefined && value !== null) q.set(key === "query" ? "q" : key, String(value));
  }
  return q;
}

type Api = (endpoint: Endpoint, params: Params) => Promise<Obj>;

function braveApi(key: string, ctx: RunContext): Api {
  const base = baseUrlOf(ctx.runtime.providers.BRAVE_SEARCH_BASE_URL, BRAVE);
  return async (endpoint, params) => {
    const url = `${base}${PATHS[endpoint]}?${queryOf(endpoint, params)}`;
    const headers = { Accept: "application/json", "X-Subscription-Token": key };
    const res = await callService({ service: "Brave Search", field: "BRAVE_SEARCH_BASE_URL", url, init: { headers }, secrets: [key] }, ctx);
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const detail = body === undefined ? res.text : JSON.stringify(body, null, 2);
      throw new ToolCallError(redact(`${res.status} ${REASONS[res.status] ?? ""}\n${detail}`, [key]));
    }
    if (!isObject(body)) throw new ToolCallError("Brave Search answered something that is not a JSON object");
    return body;
  };
}

const results = (section: unknown): Obj[] => (isObject(section) && Array.isArray(section.results) ? section.results.filter(isObject) : []);
const lines = (items: unknown[]): NativeResult => ({ content: items.map((i) => ({ type: "text", text: JSON.stringify(i) })) });
const pick = (o: Obj, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const WEB = ["url", "title", "description", "extra_snippets"];

async function webSearch(api: Api, params: Params): Promise<NativeResult> {
  const { web, faq, discussions, news, videos, summarizer } = await api("web", params);
  const out: NativeResult = { content: [] };
  if (isObject(summarizer)) out.content.push({ type: "text", text: `Summarizer key: ${summarizer.key}` });
  if (!results(web).length) return { content: [...out.content, { type: "text", text: "No web results found" }], isError: true };
  const flag = (s: unknown) => ({ mutated_by_goggles: isObject(s) ? s.mutated_by_goggles : undefined });
  const items = [
    ...results(web).map((r) => pick(r, WEB)),
    ...results(faq).map((r) => pick(r, ["question", "answer", "title", "url"])),
    ...results(discussions).map((r) => ({ ...flag(discussions), ...pick(r, ["url", "data"]) })),
    ...results(news).map((r) => ({
      ...flag(news),
      ...pick(r, ["source", "breaking", "is_live", "age", "url", "title", "description", "extra_snippets"]),
    })),
    ...results(videos).map((r) => {
      const v = isObject(r.video) ? r.video : {};
      return {
        ...flag(videos),
        ...pick(r, ["url", "title", "description", "age"]),
        thumbnail_url: isObject(r.thumbnail) ? r.thumbnail.src : undefined,
        duration: v.duration,
        view_count: v.views,
        creator: v.creator,
        publisher: v.publisher,
        tags: v.tags,
      };
    }),
  ];
  return { content: [...out.content, ...lines(items).content] };
}

/** Opening hours as the server shows them: today first, then each day's spans joined. */
function hours(opening: unknown): Obj | undefined {
  if (!isObject(opening)) return undefined;
  const span = (p: unknown) => (isObject(p) ? `${p.opens}-${p.closes}` : "");
  const today = Array.isArray(opening.current_day) ? opening.current_day : [];
  const days: [string, string[]][] = [];
  if (isObject(today[0])) days.push([`today (${String(today[0].full_name).toLowerCase()})`, today.map(span)]);
  for (const parts of Array.isArray(opening.days) ? opening.days : []) {
    for (const p of Array.isArray(parts) ? parts : [parts]) {
      if (!isObject(p)) continue;
      const name = String(p.full_name).toLowerCase();
      const found = days.find(([n]) => n === name);
      found ? found[1].push(span(p)) : days.push([name, [span(p)]]);
    }
  }
  return Object.fromEntries(days.map(([n, h]) => [n, h.join(", ")]));
}

const NO_LOCATIONS = "No location data was returned.";

async function localSearch(api: Api, params: Params): Promise<NativeResult> {
  const filter = Array.isArray(params.result_filter) ? params.result_filter : [];
  const { locations, web } = await api("web", { ...params, result_filter: [...filter, "web", "locations"] });
  const pois = results(locations);
  const ids = pois.map((p) => p.id).slice(0, 20);
  if (!ids.length) {
    if (!results(web).length) return textResult(`${NO_LOCATIONS} User's plan does not support local search, or the query may be unclear.`);
    const note =
      `${NO_LOCATIONS} Either the user's plan does not support local search, or the API was unable to find locations ` +
      "for the provided query. Falling back to general web search.";
    return { content: [{ type: "text", text: note }, ...lines(results(web).map((r) => pick(r, WEB))).content] };
  }
  const descriptions = results(await api("localDescriptions", { ids }));
  return lines(
    pois.map((poi) => {
      const rating = isObject(poi.rating) ? poi.rating : {};
      return {
        name: poi.title,
        price_range: poi.price_range,
        phone: isObject(poi.contact) ? poi.contact.telephone : undefined,
        rating: rating.ratingValue,
        hours: hours(poi.opening_hours),
        rating_count: rating.reviewCount,
        description: descriptions.find((d) => d.id === poi.id)?.description,
        address: isObject(poi.postal_address) ? poi.postal_address.displayAddress : undefined,
      };
    }),
  );
}

const news = async (api: Api, params: Params) =>
  lines(
    results(await api("news", params)).map((r) => ({
      ...pick(r, ["url", "title", "age", "page_age"]),
      breaking: r.breaking ?? false,
      ...pick(r, ["description", "extra_snippets"]),
      thumbnail: isObject(r.thumbnail) ? r.thumbnail.src : undefined,
    })),
  );

const videos = async (api: Api, params: Params) =>
  lines(
    results(await api("videos", params)).map((r) => ({
      ...pick(r, ["url", "title", "description"]),
      duration: isObject(r.video) ? r.video.duration : undefined,
      thumbnail_url: isObject(r.thumbnail) ? r.thumbnail.src : undefined,
    })),
  );

const posInt = (v: unknown) => Number.isInteger(v) && (v as number) > 0;

/** The server's image items: those with a title, URLs, fetch time, confidence and a sized picture. */
async function images(api: Api, params: Params): Promise<NativeResult> {
  const answer = await api("images", params);
  const items = results(answer).flatMap((r) => {
    const p = isObject(r.properties) ? r.properties : {};
    const ok = typeof r.title === "string" && https(r.url) && typeof r.page_fetched === "string" && typeof r.confidence === "string";
    if (!ok || !https(p.url) || !posInt(p.width) || !posInt(p.height)) return [];
    return [{ ...pick(r, ["title", "url", "page_fetched", "confidence"]), properties: pick(p, ["url", "width", "height"]) }];
  });
  const extra = isObject(answer.extra) ? answer.extra : {};
  const payload = { type: "object", items, count: items.length, might_be_offensive: extra.might_be_offensive };
  return { content: [{ type: "text", text: JSON.stringify(payload) }] };
}

const SUMMARY_FAILED: NativeResult = textResult("Unable to retrieve a Summarizer summary.", true);

/** Polls the summarizer (20 attempts, 50 ms after a failure) until its status is complete. */
async function summarizer(api: Api, params: Params): Promise<NativeResult> {
  for (let attempt = 0; attempt < 20; attempt++) {
    let answer: Obj | undefined;
    try {
      answer = await api("summarizer", params);
    } catch (err) {
      if (!(err instanceof ToolCallError)) throw err;
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    if (answer.status !== "complete") continue;
    const parts = Array.isArray(answer.summary) ? answer.summary.filter(isObject) : [];
    if (!parts.length) return SUMMARY_FAILED;
    const text = parts.map((p) =>
      p.type === "token" ? String(p.data) : p.type === "inline_reference" ? ` (${isObject(p.data) ? p.data.url : undefined})` : "",
    );
    return textResult(text.join(""));
  }
  return SUMMARY_FAILED;
}

const RUN: Record<string, (api: Api, params: Params) => Promise<NativeResult>> = {
  brave_web_search: webSearch,
  brave_local_search: localSearch,
  brave_video_search: videos,
  brave_image_search: images,
  brave_news_search: news,
  brave_summarizer: summarizer,
};

/** The arguments as the server's zod gives them to the tool: the schema's properties, in order, with their defaults. */
function withDefaults(tool: NativeMcpTool, args: Params): Params {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
  return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, args[k] ?? p.default]));
}

export const braveSearchServer: NativeMcpServer = {
  node: "braveSearchMCP",
  tools: TOOLS as NativeMcpTool[],
  async open(inputs, { ctx, label }) {
    const cred = await credentialOf(inputs, { getCredential: ctx.getCredential });
    const key = str(cred.braveApiKey) ?? str(inputs.braveApiKey);
    if (!key) throw fail("MISSING_CREDENTIAL", `${label} needs a braveSearchApi credential with braveApiKey`);
    // the deployment's host checked now: a refused one is a 400 before any call
    checkEndpoint(baseUrlOf(ctx.runtime.providers.BRAVE_SEARCH_BASE_URL, BRAVE), "BRAVE_SEARCH_BASE_URL", ctx.runtime.providers);
    const api = braveApi(key, ctx);
    return async (name, args) => {
      const tool = braveSearchServer.tools.find((t) => t.name === name)!;
      try {
        return await RUN[name](api, withDefaults(tool, args));
      } catch (err) {
        if (err instanceof ToolCallError) return textResult(err.message, true);
        throw err;
      }
    };
  },
};
