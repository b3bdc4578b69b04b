// braveSearchAPI (credential braveSearchApi: braveApiKey): GET {BRAVE_SEARCH_BASE_URL}/res/v1/web/search?q=…
// with X-Subscription-Token, answered as LangChain's BraveSearch tool does: a JSON array of
// {title, link, snippet} from web.results.
import { isObject } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { SEARCH_DESCRIPTION, list, queryTool } from "./query-tool";

export async function braveSearchTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "brave-search",
    description: SEARCH_DESCRIPTION,
    inputs,
    run: async (input) => {
      const [key] = await credentialField(ctx, inputs, "braveSearchApi", ["braveApiKey"], label);
      const base = baseUrlOf(ctx.runtime.providers.BRAVE_SEARCH_BASE_URL, "https://api.search.brave.com");
      const url = `${base}/res/v1/web/search?${new URLSearchParams({ q: input })}`;
      const init = { headers: { "X-Subscription-Token": key, Accept: "application/json" } };
      const res = await callServiceJson({ service: "Brave Search", field: "BRAVE_SEARCH_BASE_URL", url, init, secrets: [key] }, ctx);
      const results = list(isObject(res.web) ? res.web.results : undefined);
      return JSON.stringify(results.map((r) => ({ title: r.title ?? "", link: r.url ?? "", snippet: r.description ?? "" })));
    },
  });
}
