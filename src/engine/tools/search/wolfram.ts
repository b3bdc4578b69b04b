// wolframAlpha (credential wolframAlphaAppId: wolframAlphaAppId): GET
// {WOLFRAM_ALPHA_BASE_URL}/api/v1/llm-api?appid=…&input=… (Wolfram|Alpha's LLM API), whose text
// answer the model reads, as LangChain's WolframAlphaTool returns it.
import { redact } from "../../../lib/redact";
import type { ToolDeps } from "../types";
import { ToolCallError, baseUrlOf, callService, credentialField } from "../service";
import { queryTool } from "./query-tool";

export async function wolframAlphaTool(inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  return queryTool({
    name: "wolfram_alpha",
    description:
      "A wrapper around Wolfram Alpha. Useful for when you need to answer questions about Math, Science, Technology, " +
      "Culture, Society and Everyday Life. Input should be a search query.",
    inputs,
    run: async (input) => {
      const [appid] = await credentialField(ctx, inputs, "wolframAlphaAppId", ["wolframAlphaAppId"], label);
      const base = baseUrlOf(ctx.runtime.providers.WOLFRAM_ALPHA_BASE_URL, "https://www.wolframalpha.com");
      const url = `${base}/api/v1/llm-api?${new URLSearchParams({ appid, input })}`;
      const res = await callService({ service: "WolframAlpha", field: "WOLFRAM_ALPHA_BASE_URL", url, secrets: [appid] }, ctx);
      if (!res.ok) throw new ToolCallError(redact(`WolframAlpha answered ${res.status}: ${res.text.slice(0, 300)}`, [appid]));
      return res.text;
    },
  });
}
