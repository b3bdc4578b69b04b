// serper (credential serperApi: serperApiKey): POST {SERPER_BASE_URL}/search {q} with X-API-KEY,
// read as LangChain's Serper tool reads it: answer box, knowledge graph, first organic snippet.
import { isObject, nonBlank } from "../../core/inputs";
import type { ToolDeps } from "../types";
import { baseUrlOf, callServiceJson, credentialField } from "../service";
import { NO_RESULT, SEARCH_DESCRIPTION, list, queryTool } from "./query-tool";

function serperAnswer(res: Record<string, unknown>): string {
  const box = isObject(res.answerBox) ? res.answerBox : undefined;
  const found =
    nonBlank(box?.answer) ??
    nonBlank(box?.snippet) ??
    (Array.isArray(box?.snippetHighlighted) ? box.snippetHighlighted.join(",") : undefined) ??
    (isObject(res.sportsResults) ? nonBlank(res.sportsResults.game_spotlight) : undefined) ??
    (isObject(res.knowledgeGraph) ? nonBlank(res.knowledgeGraph.description) : undefined) ??
    nonBlank(list(res.organic)[0]?.snippet);
  return found ?? NO_RESULT;
}

export async function serperTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "search",
    description: SEARCH_DESCRIPTION,
    inputs,
    run: async (input) => {
      const [key] = await credentialField(ctx, inputs, "serperApi", ["serperApiKey"], label);
      const url = `${baseUrlOf(ctx.runtime.providers.SERPER_BASE_URL, "https://google.serper.dev")}/search`;
      const init = {
        method: "POST",
        headers: { "X-API-KEY": key, "Content-Type": "application/json" },
        body: JSON.stringify({ q: input }),
      };
      return serperAnswer(await callServiceJson({ service: "Serper", field: "SERPER_BASE_URL", url, init, secrets: [key] }, ctx));
    },
  });
}
