// googleCustomSearch (credential googleCustomSearchApi: googleCustomSearchApiKey, googleCustomSearchApiId):
// GET {GOOGLE_CUSTOM_SEARCH_BASE_URL}/customsearch/v1?key=…&cx=…&q=…, answered as LangChain's tool
// does: a JSON array of {title, link, snippet}.
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { list, queryTool } from "./query-tool";

export async function googleCustomSearchTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "google-custom-search",
    description:
      "a custom search engine. useful for when you need to answer questions about current events. input should be " +
      "a search query. outputs a JSON array of results.",
    inputs,
    run: async (input) => {
      const [key, cx] = await credentialField(
        ctx,
        inputs,
        "googleCustomSearchApi",
        ["googleCustomSearchApiKey", "googleCustomSearchApiId"],
        label,
      );
      const base = baseUrlOf(ctx.runtime.providers.GOOGLE_CUSTOM_SEARCH_BASE_URL, "https://www.googleapis.com");
      const url = `${base}/customsearch/v1?${new URLSearchParams({ key, cx, q: input })}`;
      const res = await callServiceJson(
        { service: "Google Custom Search", field: "GOOGLE_CUSTOM_SEARCH_BASE_URL", url, secrets: [key, cx] },
        ctx,
      );
      const items = list(res.items).map((r) => ({ title: r.title ?? "", link: r.link ?? "", snippet: r.snippet ?? "" }));
      return JSON.stringify(items);
    },
  });
}
