// Flowise's MCP presets that reach a remote server: each maps its inputs and credential to the
// {url, headers} of customMCP's client, then lists, filters by `mcpActions` and calls tools as
// customMCP does. Vendor hosts have a `*_BASE_URL` var (the endpoint rule); URLs typed in the node
// go under the request rule, as customMCP's. supergatewayMCP's `--sse`/`--streamableHttp` URL is
// reached directly (Flowise runs `npx supergateway` as a local bridge; Workers cannot start one).
// githubMCP is GitHub's hosted server (Flowise 3.1.4 starts no process for it); slackMCP is Slack's
// hosted server with a slackOAuth2 credential, and server-slack run natively with a slackApi one.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ApiError, fail } from "../../../errors";
import { toBase64 } from "../../../lib/crypto";
import { type EndpointPolicy, type OutboundEnv, checkEndpoint } from "../../../lib/outbound";
import type { ProviderEnv } from "../../../providers/types";
import { str } from "../../core/inputs";
import type { CredentialReader, RunContext } from "../../core/ports";
import { toolName } from "../names";
import { ToolCallError, baseUrlOf, callServiceJson } from "../service";
import type { ToolDefinition } from "../types";
import type { McpServerAddress } from "./client";
import { NO_PROCESSES, asRunError, listMcpServerTools, mcpActionsOf, mcpTools, withVars } from "./custom-mcp";
import { type NativeMcpServer, nativeMcpActions, nativeMcpTools } from "./native/native";
import { slackBotServer } from "./native/slack";

/** What resolving a preset needs: the deployment's vars, the credential reader, the run's variables. */
export interface PresetDeps {
  providers: ProviderEnv;
  outbound: OutboundEnv;
  getCredential: CredentialReader;
  vars: Record<string, string>;
  label: string;
  signal?: AbortSignal;
  /** The canvas's listActions (Pipedream: a user id only known at run time is a preview user). */
  listing?: boolean;
}

interface PresetServer extends McpServerAddress {
  endpoint?: EndpointPolicy;
  format?: (text: string) => string | undefined;
  /** Tools run in the Worker instead of the server at `url` (slackMCP with a bot token). */
  native?: NativeMcpServer;
}

type Cred = Record<string, unknown>;
type Preset = (inputs: Record<string, unknown>, cred: Cred, deps: PresetDeps) => Promise<PresetServer>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A vendor's host: its var, else the public one, checked under the endpoint rule now (400 before any call). */
type VendorVar =
  | "PIPEDREAM_BASE_URL"
  | "PIPEDREAM_MCP_BASE_URL"
  | "BROWSERLESS_MCP_BASE_URL"
  | "GITHUB_MCP_BASE_URL"
  | "SLACK_MCP_BASE_URL";

function vendorUrl(deps: PresetDeps, field: VendorVar | "SLACK_API_BASE_URL", host: string) {
  const url = baseUrlOf(deps.providers[field], host);
  return { url, endpoint: checkEndpoint(url, field, deps.providers) };
}

function need(value: unknown, what: string, label: string): string {
  const v = str(value);
  if (!v) throw fail("MISSING_CREDENTIAL", `${label} needs ${what}`);
  return v;
}

const CONNECT_URL = /https:\/\/pipedream\.com\/_static\/connect\.html\?[^\s"')]+/;
const SLUGS = /^[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?(?:,\s*[a-z0-9](?:[a-z0-9_-]{0,98}[a-z0-9])?)*$/;

/** Pipedream Connect: a client-credentials token, then its remote MCP server with the project, user and app headers. */
const pipedream: Preset = async (inputs, cred, deps) => {
  const { label } = deps;
  const appSlug = str(inputs.appSlug);
  if (!appSlug) throw fail("INVALID_FLOW", `${label}: App Slug is required (e.g. slack, or slack,notion)`);
  if (!SLUGS.test(appSlug)) throw fail("INVALID_FLOW", `${label}: App Slug must be lowercase letters, digits, - and _ (comma-separated)`);
  let user = String(withVars(str(inputs.externalUserId) ?? "", deps.vars));
  if (user.includes("{{")) {
    if (!deps.listing) throw fail("INVALID_FLOW", `${label}: the variables in User ID are not resolved (${user.slice(0, 100)})`);
    user = "flowise_preview_user"; // Flowise's stand-in while listing: {{$flow.*}} is only known in a run
  }
  user = user.replace(/<[^>]*>/g, "").trim();
  if (!/^[a-zA-Z0-9._@+-]{1,250}$/.test(user))
    throw fail("INVALID_FLOW", `${label}: User ID is required, with letters, digits, . _ @ + - only`);
  const projectId = need(cred.projectId, "a pipedreamOAuthApi credential with projectId", label);
  const clientId = need(cred.clientId, "a pipedreamOAuthApi credential with clientId", label);
  const clientSecret = need(cred.clientSecret, "a pipedreamOAuthApi credential with clientSecret", label);
  const scope = str(cred.oauthScopes);
  const api = vendorUrl(deps, "PIPEDREAM_BASE_URL", "https://api.pipedream.com");
  const mcp = vendorUrl(deps, "PIPEDREAM_MCP_BASE_URL", "https://remote.mcp.pipedream.net");
  const body = { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) };
  const ctx = { signal: deps.signal, runtime: { providers: deps.providers } } as unknown as RunContext;
  const token = await callServiceJson(
    {
      service: "Pipedream",
      url: `${api.url}/v1/oauth/token`,
      field: "PIPEDREAM_BASE_URL",
      secrets: [clientSecret],
      init: { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    },
    ctx,
  ).catch((err: unknown) => {
    throw err instanceof ToolCallError
      ? new ApiError("UPSTREAM_FAILED", `${label}: Pipedream OAuth token request failed: ${err.message}`)
      : err;
  });
  const accessToken = str(token.access_token);
  if (!accessToken) throw new ApiError("UPSTREAM_FAILED", `${label}: Pipedream's token answer has no access_token`);
  const headers = {
    ...bearer(accessToken),
    "x-pd-project-id": projectId,
    "x-pd-environment": str(inputs.environment) ?? "development",
    "x-pd-external-user-id": user,
    "x-pd-app-slug": appSlug,
    "x-pd-tool-mode": str(inputs.toolMode) ?? "tools-only",
  };
  const format = (text: string) => {
    const link = text.match(CONNECT_URL)?.[0];
    if (!link) return undefined;
    return [
      "ACTION_REQUIRED: Account connection needed.",
      "",
      "The user must connect their account before this action can be executed.",
      "Direct them to open the following URL in their browser:",
      "",
      `[Connect URL](${link})`,
      "",
      "Once the user has connected their account, retry the original request.",
    ].join("\n");
  };
  return { url: mcp.url, endpoint: mcp.endpoint, headers, format };
};

/** Browserless's hosted MCP server, the API token as a bearer. */
const browserless: Preset = async (_inputs, cred, deps) => {
  const token = need(cred.browserlessApiToken, "a browserlessApi credential with browserlessApiToken", deps.label);
  const { url, endpoint } = vendorUrl(deps, "BROWSERLESS_MCP_BASE_URL", "https://mcp.browserless.io");
  return { url: `${url}/mcp`, endpoint, headers: bearer(token) };
};

/** GitHub Enterprise's server for its URL, as Flowise derives it: https://octocorp.ghe.com → https://copilot-api.octocorp.ghe.com/mcp. */
export function enterpriseMcpUrl(enterpriseUrl: string): string {
  const trimmed = enterpriseUrl.trim().replace(/\/+$/, "");
  try {
    const parsed = new URL(trimmed);
    parsed.hostname = `copilot-api.${parsed.hostname}`;
    parsed.pathname = "/mcp";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return `${trimmed}/mcp`;
  }
}

/** GitHub's hosted MCP server (or a GitHub Enterprise one: its URL is the user's, under the request rule), the token as a bearer. */
const github: Preset = async (inputs, cred, deps) => {
  const token = need(cred.accessToken, "a githubApi credential with accessToken (Missing Github Access Token)", deps.label);
  const enterprise = str(inputs.githubEnterpriseUrl);
  if (enterprise) return { url: enterpriseMcpUrl(enterprise), headers: bearer(token) };
  // Used as it is: the public server's address ends in a slash.
  const url = str(deps.providers.GITHUB_MCP_BASE_URL) ?? "https://api.githubcopilot.com/mcp/";
  return { url, endpoint: checkEndpoint(url, "GITHUB_MCP_BASE_URL", deps.providers), headers: bearer(token) };
};

/** Slack: a user OAuth2 token → Slack's hosted MCP server; a bot token with a team id → server-slack's tools natively. */
const slack: Preset = async (_inputs, cred, deps) => {
  const token = str(cred.access_token) ?? str(cred.accessToken);
  if (token) return { ...vendorUrl(deps, "SLACK_MCP_BASE_URL", "https://mcp.slack.com/mcp"), headers: bearer(token) };
  const botToken = str(cred.botToken);
  const teamId = str(cred.teamId);
  if (!botToken || !teamId)
    throw fail(
      "MISSING_CREDENTIAL",
      `${deps.label}: Missing Slack credentials. Provide either an OAuth2 access token (slackOAuth2) ` +
        "or a Bot Token with Team ID (slackApi)",
    );
  const api = vendorUrl(deps, "SLACK_API_BASE_URL", "https://slack.com/api");
  return {
    url: api.url,
    endpoint: api.endpoint,
    headers: {},
    native: slackBotServer({ api: api.url, field: "SLACK_API_BASE_URL", botToken, teamId }),
  };
};

/** A Teradata MCP server at `mcpUrl`: the node's Bearer Token, else the credential's token, else TD2 user and password (Basic). */
const teradata: Preset = async (inputs, cred, deps) => {
  const url = str(inputs.mcpUrl) ?? "http://teradata-mcp-server:8001/mcp";
  const token = str(inputs.bearerToken) ?? str(cred.token);
  if (token) return { url, headers: bearer(token) };
  const user = str(cred.tdUsername);
  const password = str(cred.tdPassword);
  if (!user || !password)
    throw fail("MISSING_CREDENTIAL", `${deps.label} needs a Bearer Token, or a teradataBearerToken or teradataTD2Auth credential`);
  return { url, headers: { Authorization: `Basic ${toBase64(new TextEncoder().encode(`${user}:${password}`))}` } };
};

/** Shell-like words: quotes group and are removed. */
const words = (text: string): string[] => [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);

/** supergateway's arguments: `--sse URL` or `--streamableHttp URL`, `--header "k: v"` (repeated), `--oauth2Bearer tok`. */
const supergateway: Preset = async (inputs, _cred, deps) => {
  const args = words(String(withVars(str(inputs.arguments) ?? "", deps.vars)));
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--stdio")
      throw fail(
        "INVALID_FLOW",
        `${deps.label}: --stdio starts a local process: ${NO_PROCESSES}. Use --sse or --streamableHttp with a URL`,
      );
    if (flag === "--sse" || flag === "--streamableHttp") url = value;
    else if (flag === "--oauth2Bearer" && value) Object.assign(headers, bearer(value));
    else if (flag === "--header" && value?.includes(":"))
      headers[value.slice(0, value.indexOf(":")).trim()] = value.slice(value.indexOf(":") + 1).trim();
    if (flag.startsWith("--") && value !== undefined && !value.startsWith("--")) i++;
  }
  if (!url) throw fail("INVALID_FLOW", `${deps.label}: Arguments need --sse "https://…" or --streamableHttp "https://…/mcp"`);
  return { url, headers };
};

const PRESETS: Record<string, Preset> = {
  pipedreamMCP: pipedream,
  browserlessMCP: browserless,
  teradataMCP: teradata,
  supergatewayMCP: supergateway,
  githubMCP: github,
  slackMCP: slack,
};

export const MCP_PRESET_NAMES = Object.keys(PRESETS);

/** The preset's server: its inputs and credential read, URLs checked (a malformed one is a 400). */
async function presetServer(name: string, inputs: Record<string, unknown>, deps: PresetDeps): Promise<PresetServer> {
  const id = str(inputs.credential) ?? str(inputs.FLOWISE_CREDENTIAL_ID);
  let cred = id ? await deps.getCredential(id) : {};
  // An OAuth2 credential's token, refreshed when it expires within 5 minutes (Flowise's refreshOAuth2Token).
  if (id && name === "slackMCP" && str(cred.access_token)) cred = await deps.getCredential(id, { oauth2: true });
  const server = await PRESETS[name](inputs, cred, deps);
  try {
    const url = new URL(server.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
  } catch {
    throw fail("INVALID_FLOW", `${deps.label}: the MCP server url ${server.url.slice(0, 200)} is not an absolute http(s) URL`);
  }
  return server;
}

async function listed(server: PresetServer, deps: PresetDeps) {
  if (server.native) return server.native.tools;
  const session = { policy: deps.outbound, endpoint: server.endpoint, signal: deps.signal };
  return listMcpServerTools(server, session).catch((err: unknown) => {
    throw asRunError(err, deps.label);
  });
}

/**
 * The canvas's Available Actions: the server's tools, sorted, labels upper-case; a node not set up
 * yet or a server failing is Flowise's single `error` option, its description the reason.
 */
export async function listPresetActions(name: string, inputs: Record<string, unknown>, deps: PresetDeps) {
  if (name === "pipedreamMCP" && (!str(inputs.appSlug) || !str(inputs.externalUserId)))
    return [
      { label: "Please fill in App Slug and User ID first", name: "placeholder", description: "Configure the fields above, then refresh" },
    ];
  let tools: Awaited<ReturnType<typeof listed>>;
  try {
    const server = await presetServer(name, inputs, { ...deps, listing: true });
    if (server.native) return nativeMcpActions(server.native);
    tools = await listed(server, deps);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return [{ label: "No Available Actions", name: "error", description: err.message }];
  }
  return tools
    .map((t) => ({ label: t.name.toUpperCase(), name: t.name, description: (t.description || t.name).slice(0, 1024) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export const mcpPresetTools: ToolDefinition[] = MCP_PRESET_NAMES.map((name) => ({
  name,
  build: async (inputs, { ctx, label }): Promise<StructuredToolInterface[]> => {
    const deps = {
      providers: ctx.runtime.providers,
      outbound: ctx.runtime.outbound,
      getCredential: ctx.getCredential,
      vars: ctx.vars,
      label,
    };
    const server = await presetServer(name, inputs, { ...deps, signal: ctx.signal });
    if (server.native) return nativeMcpTools(server.native, inputs, { ctx, label });
    const wanted = new Set(mcpActionsOf(inputs.mcpActions));
    const chosen = (await listed(server, { ...deps, signal: ctx.signal })).filter(
      (t) => wanted.has(t.name) || wanted.has(toolName(t.name)),
    );
    return mcpTools({ url: server.url, headers: server.headers }, chosen, { ctx }, { endpoint: server.endpoint, format: server.format });
  },
}));
