// searXNG (no credential; the node's apiBase is the user's SearXNG instance, under the outbound
// policy's request rule): POST {apiBase}/search?q=…&format=json with the node's options in
// SearXNG's parameter names, answered as Flowise's SearxngSearch tool does: the first results as
// comma-joined {title, link, snippet} JSON objects, else the first answer, infobox or suggestions.
import { isObject, num, str } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { ToolCallError, baseUrlOf, callServiceJson } from "../service";
import { intWithin, list, queryTool } from "./query-tool";
import { toolName } from "../names";

const DESCRIPTION =
  "A meta search engine. Useful for when you need to answer questions about current events. Input should be a search " +
  "query. Output is a JSON array of the query results";
const NUM_RESULTS = 10;

function headersOf(value: unknown): Record<string, string> {
  if (value === undefined || value === null || value === "") return {};
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new ToolCallError("SearXNG headers must be a JSON object");
    }
  }
  if (!isObject(parsed)) throw new ToolCallError("SearXNG headers must be a JSON object");
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

/** The query string: Flowise's defaults (page 1, image proxy, safe search 0) and the node's options. */
function paramsOf(q: string, inputs: Record<string, unknown>): URLSearchParams {
  const params: Record<string, string | number | boolean | undefined> = {
    q,
    // SearXNG answers 400 for a pageno that is not a whole number ≥ 1 or a safesearch outside 0–2
    // (searx/webadapter.py): 0 is page 1, 5 its strictest filter.
    pageno: intWithin(num(inputs.pageno), 1, Number.MAX_SAFE_INTEGER) ?? 1,
    image_proxy: true,
    safesearch: intWithin(num(inputs.safesearch), 0, 2) ?? 0,
    format: "json",
    categories: str(inputs.categories),
    engines: str(inputs.engines),
    language: str(inputs.language),
    time_range: str(inputs.time_range),
  };
  return new URLSearchParams(
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
}

function searxAnswer(res: Record<string, unknown>): string {
  const results = list(res.results);
  const answers = Array.isArray(res.answers) ? res.answers : [];
  const infoboxes = list(res.infoboxes);
  const suggestions = Array.isArray(res.suggestions) ? res.suggestions : [];
  if (results.length)
    return results
      .slice(0, NUM_RESULTS)
      .map((r) => JSON.stringify({ title: r.title || "", link: r.url || "", snippet: r.content || "" }))
      .join(",");
  if (answers.length) return typeof answers[0] === "string" ? answers[0] : JSON.stringify(answers[0]);
  if (infoboxes.length) return String(infoboxes[0].content ?? "");
  if (suggestions.length) return `Suggestions: ${suggestions.map((s) => `${s}, `).join("")}`;
  return "No good results found.";
}

export async function searxngTool(inputs: Record<string, unknown>, { ctx }: ToolDeps) {
  return queryTool({
    name: toolName(str(inputs.toolName) ?? "searxng-search"),
    description: str(inputs.toolDescription) ?? DESCRIPTION,
    inputs,
    run: async (input) => {
      const base = baseUrlOf(str(inputs.apiBase), "http://localhost:8080");
      const url = `${base}/search?${paramsOf(input, inputs)}`;
      const init = { method: "POST", headers: { "content-type": "application/json", ...headersOf(inputs.headers) } };
      return searxAnswer(await callServiceJson({ service: "SearXNG", url, init, policy: ctx.runtime.outbound }, ctx));
    },
  });
}
