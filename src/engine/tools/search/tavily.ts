// tavilyAPI (credential tavilyApi: tavilyApiKey): POST {TAVILY_BASE_URL}/search with a bearer key and
// the node's options in Tavily's names (topic, search_depth, max_results, …); the answer is
// Tavily's JSON (answer, results: title, url, content), as LangChain's TavilySearch returns it.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { bool, num, str } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { intWithin } from "./query-tool";

const domains = (v: unknown) =>
  str(v)
    ?.split(",")
    .map((d) => d.trim())
    .filter(Boolean);

/** The request body from the node's inputs (Flowise names → Tavily's), unset options left out. */
function tavilyBody(query: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    query,
    topic: str(inputs.topic) ?? "general",
    search_depth: str(inputs.searchDepth) ?? "basic",
    // Tavily refuses max_results outside 0–20 and chunks_per_source outside 1–3 (its API reference).
    max_results: intWithin(num(inputs.maxResults) ?? 5, 0, 20),
    chunks_per_source: intWithin(num(inputs.chunksPerSource), 1, 3),
    time_range: str(inputs.timeRange),
    days: num(inputs.days),
    include_answer: bool(inputs.includeAnswer) || undefined,
    include_raw_content: bool(inputs.includeRawContent) || undefined,
    include_images: bool(inputs.includeImages) || undefined,
    include_image_descriptions: bool(inputs.includeImageDescriptions) || undefined,
    include_domains: domains(inputs.includeDomains),
    exclude_domains: domains(inputs.excludeDomains),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

export async function tavilyTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return new DynamicStructuredTool({
    name: "tavily_search",
    description:
      "A search engine optimized for comprehensive, accurate, and trusted results. Useful for when you need to " +
      "answer questions about current events. Input should be a search query.",
    schema: z.object({ query: z.string().describe("Search query to look up") }),
    func: async ({ query }) => {
      const [key] = await credentialField(ctx, inputs, "tavilyApi", ["tavilyApiKey"], label);
      const url = `${baseUrlOf(ctx.runtime.providers.TAVILY_BASE_URL, "https://api.tavily.com")}/search`;
      const init = {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify(tavilyBody(query, inputs)),
      };
      const res = await callServiceJson({ service: "Tavily", field: "TAVILY_BASE_URL", url, init, secrets: [key] }, ctx);
      const results = Array.isArray(res.results) ? res.results : [];
      if (!results.length && !res.answer) return "No search results found. Try a different query.";
      return JSON.stringify(res);
    },
  });
}
