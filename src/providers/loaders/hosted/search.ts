// Web search results as documents, over the same services and deployment vars as the search tools
// (src/engine/tools/search/):
//   serpApi (credential serpApi: serpApiKey): GET {SERPAPI_BASE_URL}/search?api_key&q, one document per
//     result of answer_box, sports_results, shopping_results, knowledge_graph and organic_results (the
//     result as JSON; metadata {source: "SerpAPI", responseType}), as LangChain's SerpAPILoader.
//   searchApi (credential searchApi: searchApiKey): GET {SEARCHAPI_BASE_URL}/api/v1/search?engine=google&api_key&q
//     and customParameters, one document per result of answer_box, shopping_results, knowledge_graph,
//     organic_results (as JSON), transcripts joined into one; metadata {source: "SearchApi", responseType}.
//   braveSearchApiLoader (credential braveSearchApi: braveApiKey): GET {BRAVE_SEARCH_BASE_URL}/res/v1/web/search?q
//     with X-Subscription-Token, one document per web result: its snippet, metadata {title, link}.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedJson, serviceBase } from "./call";

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

async function keyOf(input: LoaderInput, loader: string, credential: string, field: string): Promise<string> {
  const data = input.getCredential ? await credentialOf(input.config, { getCredential: input.getCredential }).catch(() => ({})) : {};
  const key = (data as Record<string, unknown>)[field];
  if (typeof key !== "string" || !key.trim()) throw fail("INVALID_INPUT", `${loader} needs a ${credential} credential with ${field}`);
  return key.trim();
}

function queryOf(input: LoaderInput, loader: string): string {
  const q = typeof input.config.query === "string" ? input.config.query.trim() : "";
  if (!q) throw fail("INVALID_INPUT", `${loader} needs a query`);
  return q;
}

const SERP_TYPES = ["answer_box", "sports_results", "shopping_results", "knowledge_graph", "organic_results"];

async function loadSerpApi(input: LoaderInput): Promise<Document[]> {
  const q = queryOf(input, "serpApi");
  const key = await keyOf(input, "serpApi", "serpApi", "serpApiKey");
  const base = serviceBase(input.services?.SERPAPI_BASE_URL, "https://serpapi.com");
  const url = `${base}/search?${new URLSearchParams({ api_key: key, q })}`;
  const data = await hostedJson(input, { service: "SerpAPI", field: "SERPAPI_BASE_URL", url, secrets: [key] });
  if (!isObject(data)) throw fail("UPSTREAM_FAILED", "SerpAPI answered something that is not a JSON object");
  if (typeof data.error === "string") throw fail("UPSTREAM_FAILED", `SerpAPI: ${data.error.replaceAll(key, "[redacted]")}`);
  const docs: Document[] = [];
  for (const responseType of SERP_TYPES) {
    if (!(responseType in data)) continue;
    const value = data[responseType];
    for (const result of Array.isArray(value) ? value : [value])
      docs.push(new Document({ pageContent: JSON.stringify(result), metadata: { source: "SerpAPI", responseType } }));
  }
  return docs;
}

const SEARCHAPI_TYPES = ["answer_box", "shopping_results", "knowledge_graph", "organic_results", "transcripts"];

function customParameters(value: unknown): Record<string, string> {
  let v = value;
  if (typeof v === "string") {
    if (!v.trim()) return {};
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_INPUT", "searchApi customParameters must be a JSON object");
    }
  }
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw fail("INVALID_INPUT", "searchApi customParameters must be a JSON object");
  const out: Record<string, string> = {};
  for (const [k, p] of Object.entries(v)) if (p !== undefined && p !== null && k !== "apiKey") out[k] = String(p);
  return out;
}

async function loadSearchApi(input: LoaderInput): Promise<Document[]> {
  const q = queryOf(input, "searchApi");
  const key = await keyOf(input, "searchApi", "searchApi", "searchApiKey");
  const base = serviceBase(input.services?.SEARCHAPI_BASE_URL, "https://www.searchapi.io");
  const params = new URLSearchParams({ engine: "google", api_key: key, q, ...customParameters(input.config.customParameters) });
  params.set("api_key", key);
  const url = `${base}/api/v1/search?${params}`;
  const data = await hostedJson(input, { service: "SearchApi", field: "SEARCHAPI_BASE_URL", url, secrets: [key] });
  if (!isObject(data)) throw fail("UPSTREAM_FAILED", "SearchApi answered something that is not a JSON object");
  if (typeof data.error === "string") throw fail("UPSTREAM_FAILED", `SearchApi: ${data.error.replaceAll(key, "[redacted]")}`);
  const docs: Document[] = [];
  for (const responseType of SEARCHAPI_TYPES) {
    if (!(responseType in data)) continue;
    const value = data[responseType];
    const results = Array.isArray(value) ? value : [value];
    const metadata = { source: "SearchApi", responseType };
    if (responseType === "transcripts")
      docs.push(new Document({ pageContent: results.map((r) => (isObject(r) ? String(r.text ?? "") : "")).join("\n"), metadata }));
    else for (const result of results) docs.push(new Document({ pageContent: JSON.stringify(result), metadata: { ...metadata } }));
  }
  return docs;
}

async function loadBrave(input: LoaderInput): Promise<Document[]> {
  const q = queryOf(input, "braveSearchApiLoader");
  const key = await keyOf(input, "braveSearchApiLoader", "braveSearchApi", "braveApiKey");
  const base = serviceBase(input.services?.BRAVE_SEARCH_BASE_URL, "https://api.search.brave.com");
  const url = `${base}/res/v1/web/search?${new URLSearchParams({ q })}`;
  const init = { headers: { "X-Subscription-Token": key, Accept: "application/json" } };
  const data = await hostedJson(input, { service: "Brave Search", field: "BRAVE_SEARCH_BASE_URL", url, init, secrets: [key] });
  const results = isObject(data) && isObject(data.web) && Array.isArray(data.web.results) ? data.web.results : [];
  return results.filter(isObject).map(
    (r) =>
      new Document({
        pageContent: typeof r.description === "string" ? r.description : "",
        metadata: { title: r.title ?? "", link: r.url ?? "" },
      }),
  );
}

export const searchLoaders: LoaderDefinition[] = [
  { name: "serpApi", label: "SerpApi For Web Search", load: loadSerpApi },
  { name: "searchApi", label: "SearchApi For Web Search", load: loadSearchApi },
  { name: "braveSearchApiLoader", label: "BraveSearch API Document Loader", load: loadBrave },
];
