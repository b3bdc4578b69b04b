// serpAPI (credential serpApi: serpApiKey): GET {SERPAPI_BASE_URL}/search?q=…&api_key=…, answered
// the way LangChain's SerpAPI tool reads it: the answer box, sports, shopping, knowledge graph, then
// the first organic snippet.
import { isObject, nonBlank } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { NO_RESULT, SEARCH_DESCRIPTION, list, queryTool } from "./query-tool";

function serpAnswer(res: Record<string, unknown>): string {
  const box = Array.isArray(res.answer_box_list) ? res.answer_box_list[0] : res.answer_box;
  if (isObject(box)) {
    const found =
      nonBlank(box.result) ??
      nonBlank(box.answer) ??
      nonBlank(box.snippet) ??
      (Array.isArray(box.snippet_highlighted_words) ? box.snippet_highlighted_words.join(",") : undefined);
    if (found) return found;
  }
  const sports = isObject(res.sports_results) ? res.sports_results.game_spotlight : undefined;
  if (sports) return typeof sports === "string" ? sports : JSON.stringify(sports);
  const shopping = list(res.shopping_results);
  if (nonBlank(shopping[0]?.title))
    return shopping
      .slice(0, 3)
      .map((r) => `${r.title} ${r.price ?? ""}`.trim())
      .join("\n");
  const graph = isObject(res.knowledge_graph) ? nonBlank(res.knowledge_graph.description) : undefined;
  if (graph) return graph;
  for (const key of ["organic_results", "news_results", "jobs_results", "questions_and_answers"]) {
    const snippet = nonBlank(list(res[key])[0]?.snippet);
    if (snippet) return snippet;
  }
  return NO_RESULT;
}

export async function serpApiTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "search",
    description: SEARCH_DESCRIPTION,
    inputs,
    run: async (input) => {
      const [key] = await credentialField(ctx, inputs, "serpApi", ["serpApiKey"], label);
      const base = baseUrlOf(ctx.runtime.providers.SERPAPI_BASE_URL, "https://serpapi.com");
      const url = `${base}/search?${new URLSearchParams({ engine: "google", q: input, api_key: key })}`;
      return serpAnswer(await callServiceJson({ service: "SerpAPI", field: "SERPAPI_BASE_URL", url, secrets: [key] }, ctx));
    },
  });
}
