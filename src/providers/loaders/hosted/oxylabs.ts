// oxylabs (credential oxylabsApi: username, password — Basic auth): POST {OXYLABS_BASE_URL}/v1/queries
// (Oxylabs' Realtime API) with Flowise's body — source, query as `url` for `universal` else `query`,
// geo_location, render "html", parse, user_agent_type, markdown when not parsed; empty values left
// out — one document per result (its content, JSON when parsed), no metadata, as Flowise makes them; a result
// whose target answered 4xx/5xx fails the load.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { toBase64 } from "../../../lib/crypto";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedJson, serviceBase } from "./call";

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const bool = (v: unknown) => v === true || v === "true";

async function loadOxylabs(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const query = str(config.query);
  if (!query) throw fail("INVALID_INPUT", "oxylabs needs a query: a website URL (source universal) or search keywords");
  const cred = (input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {}) as Record<
    string,
    unknown
  >;
  const username = str(cred.username);
  const password = typeof cred.password === "string" ? cred.password : "";
  if (!username || !password) throw fail("INVALID_INPUT", "oxylabs needs an oxylabsApi credential with username and password");
  const source = str(config.source) || "universal";
  const parse = config.parse === undefined || config.parse === "" ? undefined : bool(config.parse);
  const params: Record<string, unknown> = {
    source,
    geo_location: str(config.geo_location) || undefined,
    render: bool(config.render) ? "html" : undefined,
    parse,
    user_agent_type: str(config.user_agent_type) || undefined,
    markdown: !parse,
    ...(source === "universal" ? { url: query } : { query }),
  };
  const body = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  const base = serviceBase(input.services?.OXYLABS_BASE_URL, "https://realtime.oxylabs.io");
  const answer = await hostedJson(input, {
    service: "Oxylabs",
    field: "OXYLABS_BASE_URL",
    url: `${base}/v1/queries`,
    init: {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "x-oxylabs-sdk": "oxylabs-integration-flowise/1.0.0 (1.0.0; 64bit)",
        Authorization: `Basic ${toBase64(new TextEncoder().encode(`${username}:${password}`))}`,
      },
      body: JSON.stringify(body),
    },
    secrets: [password],
  });
  const results = (answer as { results?: unknown }).results;
  if (!Array.isArray(results)) throw fail("UPSTREAM_FAILED", "Oxylabs answered without results");
  if (results.length > input.limits.chunks) throw fail("UPSTREAM_FAILED", `Oxylabs answered ${results.length} results: too many`);
  // A target that answered 4xx/5xx comes back as a result with that status_code and empty content (a 404 for an
  // ASIN that does not exist): a failed load, not an empty document to embed.
  const failed = results
    .map((r) => (r as { status_code?: unknown })?.status_code)
    .find((c) => typeof c === "number" && c >= 400 && c < 600);
  if (failed !== undefined) throw fail("UPSTREAM_FAILED", `Oxylabs could not fetch ${query.slice(0, 200)}: the target answered ${failed}`);
  return results.map((r) => {
    const content = (r as { content?: unknown })?.content;
    return new Document({ pageContent: typeof content === "string" ? content : JSON.stringify(content ?? null), metadata: {} });
  });
}

export const oxylabsLoader: LoaderDefinition = { name: "oxylabs", label: "Oxylabs", load: loadOxylabs };
