// searchAPI (credential searchApi: searchApiKey): GET {SEARCHAPI_BASE_URL}/api/v1/search?engine=google
// &api_key=…&q=…, read as LangChain's SearchApi tool reads it: answer box, knowledge graph, the
// organic snippets, then jobs, videos and images.
import { isObject, nonBlank } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { ToolCallError, baseUrlOf, callServiceJson, credentialField } from "../service";
import { NO_RESULT, SEARCH_DESCRIPTION, list, queryTool } from "./query-tool";

function searchApiAnswer(res: Record<string, unknown>): string {
  if (res.error) throw new ToolCallError(`Failed to load search results from SearchApi due to: ${res.error}`);
  const box = isObject(res.answer_box) ? res.answer_box : undefined;
  const found =
    nonBlank(box?.answer) ??
    nonBlank(box?.snippet) ??
    (isObject(res.knowledge_graph) ? nonBlank(res.knowledge_graph.description) : undefined);
  if (found) return found;
  if (res.organic_results)
    return list(res.organic_results)
      .filter((r) => r.snippet)
      .map((r) => r.snippet)
      .join("\n");
  if (res.jobs)
    return list(res.jobs)
      .slice(0, 1)
      .filter((r) => r.description)
      .map((r) => r.description)
      .join("\n");
  if (res.videos)
    return list(res.videos)
      .filter((r) => r.title && r.link)
      .map((r) => `Title: "${r.title}" Link: ${r.link}`)
      .join("\n");
  if (res.images)
    return list(res.images)
      .slice(0, 15)
      .filter((r) => r.title && isObject(r.original) && r.original.link)
      .map((r) => `Title: "${r.title}" Link: ${(r.original as Record<string, unknown>).link}`)
      .join("\n");
  return NO_RESULT;
}

export async function searchApiTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "search",
    description: SEARCH_DESCRIPTION,
    inputs,
    run: async (input) => {
      const [key] = await credentialField(ctx, inputs, "searchApi", ["searchApiKey"], label);
      const base = baseUrlOf(ctx.runtime.providers.SEARCHAPI_BASE_URL, "https://www.searchapi.io");
      const url = `${base}/api/v1/search?${new URLSearchParams({ engine: "google", api_key: key, q: input })}`;
      const res = await callServiceJson({ service: "SearchApi", field: "SEARCHAPI_BASE_URL", url, secrets: [key] }, ctx);
      return searchApiAnswer(res);
    },
  });
}
