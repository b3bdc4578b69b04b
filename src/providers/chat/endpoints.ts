// Where the chat model nodes send their calls: configured base URLs checked (http(s) only) and
// joined to the API's path; for the OpenAI-compatible nodes the whole endpoint — the URL, the auth
// header and a provider name for error messages, from Flowise's inputs and credential fields, and
// which of those the URL came from (the outbound policy's refusal names it: openAICompatibleModel).
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { firstSet } from "../config";
import type { ProviderVar } from "../../env";
import type { ProviderEnv } from "../types";
import type { WireDialect } from "./openai-dialect";

/** Where a call goes: the full chat completions URL, the headers (auth), a name for error messages, where the URL came from. */
export interface ChatEndpoint {
  url: string;
  headers: Record<string, string>;
  provider: string;
  /** The input, credential field or var the URL came from ("chatOpenAI basepath"). */
  field: string;
  /** The service's own rules for a conversation, where it has some OpenAI does not (openai-family.ts). */
  dialect?: WireDialect;
}

/** A configured base URL, checked (http(s) only, 400 otherwise), without trailing slashes. */
export function httpUrl(base: string, what: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw fail("INVALID_FLOW", `${what} is not a valid URL: ${base}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw fail("INVALID_FLOW", `${what} must be an http(s) URL: ${base}`);
  return base.replace(/\/+$/, "");
}

/**
 * `base` (checked) + `version/rest`, or + `rest` when the base already ends with the version
 * ("https://api.anthropic.com" and "https://api.anthropic.com/v1" both work).
 */
export function apiUrl(base: string, version: string, rest: string, what: string): string {
  const trimmed = httpUrl(base, what);
  const joined = new URL(trimmed).pathname.replace(/\/+$/, "").endsWith(`/${version}`) ? trimmed : `${trimmed}/${version}`;
  return rest ? `${joined}/${rest}` : joined;
}

/** Checks a configured base URL and joins a path to it (unless it already ends with /chat/completions). */
function joinUrl(base: string, path: string, what: string): string {
  const trimmed = httpUrl(base, what);
  return /\/chat\/completions$/.test(new URL(base).pathname) ? trimmed : `${trimmed}/${path}`;
}

/** A bare host (no path) gets `/v1`: how Mistral's and Ollama's base URLs are usually written. */
function withV1(base: string): string {
  try {
    const url = new URL(base);
    if (url.pathname === "/" || url.pathname === "") return `${base.replace(/\/+$/, "")}/v1`;
  } catch {
    // joinUrl reports it
  }
  return base;
}

/** Any OpenAI-compatible base URL with an optional bearer key. */
export function bearerEndpoint(base: string, key: string | undefined, provider: string, what: string): ChatEndpoint {
  return { url: joinUrl(base, "chat/completions", what), headers: key ? { Authorization: `Bearer ${key}` } : {}, provider, field: what };
}

/** A hosted OpenAI-compatible service, as its Flowise node reads it (openai-family.ts `hosted`). */
export interface HostedApi {
  /** Its name in error messages. */
  provider: string;
  /** The credential field holding the key (Flowise's name: the node reads it). */
  key: string;
  /** The node's base URL input, when Flowise's node has one. */
  input?: string;
  /** An input value Flowise's node fills in by default that is no URL (SambaNova's misspelt "htps://…"): read as unset. */
  brokenDefault?: string;
  /** The deployment var that moves the service (tests point it at a stand-in). */
  envVar?: ProviderVar;
  /** The public API; without one the input is required. */
  base?: string;
}

/** The node's base URL input, else its var, else the public API (a 400 when there is none); bearer key. */
export function hostedEndpoint(
  node: string,
  api: HostedApi,
  inputs: Record<string, unknown>,
  credential: Record<string, unknown>,
  env: ProviderEnv,
): ChatEndpoint {
  const input = api.input ? str(inputs[api.input]) : undefined;
  const fromInput: [unknown, string] = [input === api.brokenDefault ? undefined : input, `${node} ${api.input}`];
  const fromVar: [unknown, string] = [api.envVar && env[api.envVar], api.envVar ?? ""];
  const base = firstSet(fromInput, fromVar) ?? (api.base ? { value: api.base, field: `${node} endpoint` } : undefined);
  if (!base) throw fail("INVALID_FLOW", `${node} needs its ${api.input} input: the URL of the ${api.provider} server`);
  return bearerEndpoint(base.value, str(credential[api.key]), api.provider, base.field);
}

/** chatOpenAI: `basepath` input, else the credential's basePath, else OPENAI_BASE_URL, else OpenAI. */
export function openAIEndpoint(
  inputs: Record<string, unknown>,
  credential: Record<string, unknown>,
  env: ProviderEnv,
  node = "chatOpenAI",
): ChatEndpoint {
  const base = firstSet(
    [inputs.basepath, `${node} basepath`],
    [credential.basePath, "openAIApi credential basePath"],
    [env.OPENAI_BASE_URL, "OPENAI_BASE_URL"],
  ) ?? {
    value: "https://api.openai.com/v1",
    field: `${node} endpoint`,
  };
  const key = str(credential.openAIApiKey) ?? str(env.OPENAI_API_KEY);
  return {
    url: joinUrl(base.value, "chat/completions", base.field),
    headers: key ? { Authorization: `Bearer ${key}` } : {},
    provider: "OpenAI-compatible endpoint",
    field: base.field,
  };
}

/** Where an Azure OpenAI deployment's calls go: its base (…/openai/deployments/<deployment>), the field it came from, version, key. */
export interface AzureDeployment {
  base: string;
  field: string;
  version: string;
  key?: string;
}

/**
 * An Azure OpenAI deployment as `node` reads it (azureChatOpenAI, azureOpenAIEmbeddings): the
 * `basepath` input (Azure's "…/openai/deployments" base, the deployment appended), else the
 * credential's azureOpenAIBasePath, else https://<instance>.openai.azure.com/openai/deployments.
 */
export function azureDeployment(inputs: Record<string, unknown>, credential: Record<string, unknown>, node: string): AzureDeployment {
  const deployment = str(credential.azureOpenAIApiDeploymentName) ?? str(inputs.deploymentName) ?? str(inputs.modelName);
  const version = str(credential.azureOpenAIApiVersion) ?? str(inputs.azureOpenAIApiVersion) ?? "2024-10-21";
  const instance = str(credential.azureOpenAIApiInstanceName);
  const basepath = firstSet(
    [inputs.basepath, `${node} basepath`],
    [credential.azureOpenAIBasePath, "azureOpenAIApi credential azureOpenAIBasePath"],
  );
  if (!deployment)
    throw fail("MISSING_CREDENTIAL", `${node} needs a deployment name (credential azureOpenAIApiDeploymentName or modelName)`);
  const key = str(credential.azureOpenAIApiKey);
  if (basepath)
    return { base: `${basepath.value.replace(/\/+$/, "")}/${encodeURIComponent(deployment)}`, field: basepath.field, version, key };
  if (!instance)
    throw fail("MISSING_CREDENTIAL", `${node} needs an azureOpenAIApi credential with azureOpenAIApiInstanceName, or a basepath input`);
  return {
    base: `https://${encodeURIComponent(instance)}.openai.azure.com/openai/deployments/${encodeURIComponent(deployment)}`,
    field: "azureOpenAIApi credential azureOpenAIApiInstanceName",
    version,
    key,
  };
}

/** azureChatOpenAI: the deployment's /chat/completions (azureDeployment). Key in header `api-key`. */
export function azureEndpoint(inputs: Record<string, unknown>, credential: Record<string, unknown>): ChatEndpoint {
  const { base, field, version, key } = azureDeployment(inputs, credential, "azureChatOpenAI");
  return {
    url: `${joinUrl(base, "chat/completions", field)}?api-version=${encodeURIComponent(version)}`,
    headers: key ? { "api-key": key } : {},
    provider: "Azure OpenAI",
    field,
  };
}

/** chatMistralAI: `overrideEndpoint` input, else https://api.mistral.ai/v1. */
export function mistralEndpoint(inputs: Record<string, unknown>, credential: Record<string, unknown>): ChatEndpoint {
  const base = withV1(str(inputs.overrideEndpoint) ?? "https://api.mistral.ai/v1");
  const key = str(credential.mistralAIAPIKey);
  return {
    url: joinUrl(base, "chat/completions", "chatMistralAI overrideEndpoint"),
    headers: key ? { Authorization: `Bearer ${key}` } : {},
    provider: "Mistral AI",
    field: "chatMistralAI overrideEndpoint",
  };
}

/** chatOllama: `baseUrl` input (default http://127.0.0.1:11434), through Ollama's OpenAI-compatible /v1 API. */
export function ollamaEndpoint(inputs: Record<string, unknown>): ChatEndpoint {
  const base = withV1(str(inputs.baseUrl) ?? "http://127.0.0.1:11434");
  return { url: joinUrl(base, "chat/completions", "chatOllama baseUrl"), headers: {}, provider: "Ollama", field: "chatOllama baseUrl" };
}
