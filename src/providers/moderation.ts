// inputModerationOpenAI's check: OpenAI's moderation API (POST <base>/moderations {input}, what the
// node's OpenAIModerationChain sends: no model, so OpenAI's default moderation model) answering
// {results: [{flagged, categories, …}]}. Base URL: the openAIApi credential's basePath, else
// OPENAI_BASE_URL, else OpenAI. Under the outbound policy; failures 502 with OpenAI's message (the
// key scrubbed), timeouts 504, one retry on a network failure or 5xx.
import { fail } from "../errors";
import { str } from "../lib/inputs";
import { type EndpointPolicy, checkEndpoint } from "../lib/outbound";
import { redactError } from "../lib/redact";
import { DEFAULT_TIMEOUT_MS, callWithRetry } from "../lib/run-control";
import { httpUrl } from "./chat/endpoints";
import { postJson, readJson } from "./chat/http";
import { credentialOf, firstSet } from "./config";
import type { ProviderDeps } from "./types";

const PROVIDER = "OpenAI moderation";

export interface OpenAIModeration {
  url: string;
  /** Whether OpenAI flags `input`. */
  flagged(input: string): Promise<boolean>;
}

/** The node's moderation endpoint from its credential and the deployment's vars; a 400 naming what is missing or refused. */
export async function openAIModeration(config: Record<string, unknown>, deps: ProviderDeps, node: string): Promise<OpenAIModeration> {
  const credential = await credentialOf(config, deps);
  const apiKey = str(credential.openAIApiKey) ?? str(deps.env.OPENAI_API_KEY);
  if (!apiKey) throw fail("MISSING_CREDENTIAL", `${node} needs an openAIApi credential: OpenAI API key not found`);
  const base = firstSet([credential.basePath, "openAIApi credential basePath"], [deps.env.OPENAI_BASE_URL, "OPENAI_BASE_URL"]) ?? {
    value: "https://api.openai.com/v1",
    field: `${node} endpoint`,
  };
  const url = `${httpUrl(base.value, base.field)}/moderations`; // an OpenAI base ends with /v1, as for chat and embeddings
  const policy: EndpointPolicy = checkEndpoint(url, base.field, deps.env);
  const rules = {
    timeoutMs: DEFAULT_TIMEOUT_MS,
    signal: deps.signal,
    provider: PROVIDER,
    scrub: (err: Error) => redactError(err, [apiKey]),
  };
  return {
    url,
    flagged: (input) =>
      callWithRetry(rules, async (deadline) => {
        const req = { url, headers: { Authorization: `Bearer ${apiKey}` }, body: { input } };
        const json = await readJson<{ results?: Array<{ flagged?: unknown }> }>(
          await postJson(req, deadline, PROVIDER, policy),
          deadline,
          PROVIDER,
        );
        const first = json?.results?.[0];
        if (!first || typeof first.flagged !== "boolean") throw fail("MODEL_FAILED", `${PROVIDER} answered without a result`);
        return first.flagged;
      }),
  };
}
