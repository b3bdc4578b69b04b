// exaSearch (credential exaSearchApi: exaSearchApiKey): POST {EXA_BASE_URL}/search with x-api-key and
// the body exa-js's searchAndContents sends (query, contents {text: true}, the node's options);
// the answer is Exa's JSON, as LangChain's ExaSearchResults returns it.
import { bool, num, str } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { intWithin, queryTool } from "./query-tool";

const DESCRIPTION = "A wrapper around Exa Search. Input should be an Exa-optimized query. Output is a JSON array of the query results";

const domains = (v: unknown) =>
  str(v)
    ?.split(",")
    .map((d) => d.trim())
    .filter(Boolean);

/** The request body from the node's inputs, unset options left out. */
export function exaBody(query: string, inputs: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    query,
    contents: { text: true },
    // Exa refuses numResults over 100 (its API reference: "x <= 100").
    numResults: intWithin(num(inputs.numResults), 1, 100),
    type: str(inputs.type),
    useAutoprompt: bool(inputs.useAutoprompt) || undefined,
    category: str(inputs.category),
    includeDomains: domains(inputs.includeDomains),
    excludeDomains: domains(inputs.excludeDomains),
    startCrawlDate: str(inputs.startCrawlDate),
    endCrawlDate: str(inputs.endCrawlDate),
    startPublishedDate: str(inputs.startPublishedDate),
    endPublishedDate: str(inputs.endPublishedDate),
  };
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
}

export async function exaSearchTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "exa_search_results_json",
    description: str(inputs.description) ?? DESCRIPTION,
    argument: "an Exa-optimized search query",
    inputs,
    run: async (input) => {
      const [key] = await credentialField(ctx, inputs, "exaSearchApi", ["exaSearchApiKey"], label);
      const url = `${baseUrlOf(ctx.runtime.providers.EXA_BASE_URL, "https://api.exa.ai")}/search`;
      const init = {
        method: "POST",
        headers: { "x-api-key": key, "Content-Type": "application/json" },
        body: JSON.stringify(exaBody(input, inputs)),
      };
      return JSON.stringify(await callServiceJson({ service: "Exa", field: "EXA_BASE_URL", url, init, secrets: [key] }, ctx));
    },
  });
}
