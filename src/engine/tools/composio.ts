// Flowise's `composio` tool, natively, over Composio's API v3 ({COMPOSIO_BASE_URL}/api/v3, the key as
// x-api-key): v1/v2 (the paths composio-core 0.5 calls) are discontinued and answer 410. Building: the
// toolkit (GET /toolkits/{app}: no auth when one of its auth_config_details is NO_AUTH, as Composio's SDK
// reads it); unless so, the chosen connected account, which must be ACTIVE (GET /connected_accounts/{id});
// the chosen tools with their JSON schemas at the toolkit's latest version (GET /tools?tool_slugs=A,B),
// each one structured tool named as its slug (v2 action names are v3 tool slugs, so saved flows keep
// working). A call is POST /tools/execute/{slug} {connected_account_id, arguments, version}: a successful
// answer is {data, error, successful} as JSON text (as the SDK's LangChain tools answer), an unsuccessful
// one is Composio's error as the tool's error. The canvas's pickers answer as Flowise's node does.
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../errors";
import { checkEndpoint } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { credentialOf } from "../../providers/config";
import { isObject, str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { MAX_DESCRIPTION } from "./mcp/custom-mcp";
import { toolName } from "./names";
import { chosenActions } from "./oauth2/api";
import { ToolCallError, baseUrlOf, callService } from "./service";
import type { ToolDeps } from "./types";

const COMPOSIO = "https://backend.composio.dev";
const FIELD = "COMPOSIO_BASE_URL";
/** Pages followed on one list (cursor paging); the lists asked with `limit` fit in one or two. */
const MAX_PAGES = 50;
/** A v1 connected account id; v3 names accounts `ca_…` (nano ids). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Json = Record<string, unknown>;
type Ctx = Pick<RunContext, "signal" | "runtime" | "getCredential">;
interface Api {
  key: string;
  ctx: Ctx;
}
export interface ComposioOption {
  label: string;
  name: string;
  description: string;
}

const enc = encodeURIComponent;
const baseUrl = (ctx: Ctx) => baseUrlOf(ctx.runtime.providers.COMPOSIO_BASE_URL, COMPOSIO);
const option = (label: string, name: string, description: string): ComposioOption => ({ label, name, description });

/** One call to Composio's API v3: its JSON object, or a ToolCallError with Composio's message and fix (never the key). */
async function request(api: Api, path: string, body?: unknown): Promise<Json> {
  const headers: Record<string, string> = { "x-api-key": api.key };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const init = { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const call = { service: "Composio", field: FIELD, url: `${baseUrl(api.ctx)}/api/v3${path}`, init, secrets: [api.key] };
  const res = await callService(call, api.ctx);
  let answer: unknown;
  try {
    answer = JSON.parse(res.text);
  } catch {
    answer = undefined;
  }
  if (!res.ok) {
    // v3 errors are {error: {message, status, request_id, suggested_fix}}
    const e = isObject(answer) && isObject(answer.error) ? answer.error : {};
    const fix = str(e.suggested_fix) ? ` (suggested fix: ${str(e.suggested_fix)})` : "";
    const detail = str(e.message) ?? res.text.slice(0, 300);
    throw new ToolCallError(redact(`Composio answered ${res.status}${detail ? `: ${detail}` : ""}${fix}`, [api.key]));
  }
  if (!isObject(answer)) throw new ToolCallError("Composio answered something that is not a JSON object");
  return answer;
}

/** Every item of a v3 list, following `next_cursor` (a page is not the last one because it is short). */
async function listAll(api: Api, path: string): Promise<Json[]> {
  const all: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = await request(api, cursor ? `${path}&cursor=${enc(cursor)}` : path);
    if (Array.isArray(body.items)) all.push(...body.items.filter(isObject));
    cursor = str(body.next_cursor);
    if (!cursor) break;
  }
  return all;
}

/** Before the first call, Composio failing refuses the run: 504 when silent, else 502 with its message. */
const runError = (err: unknown, label: string): unknown =>
  err instanceof ToolCallError
    ? fail(/ did not answer within /.test(err.message) ? "TIMEOUT" : "UPSTREAM_FAILED", `${label}: ${err.message}`)
    : err;

/** The credential's key, the deployment's host checked (a refused one is a 400 before any call). */
async function apiOf(inputs: Json, ctx: Ctx): Promise<Api | undefined> {
  const key = str((await credentialOf(inputs, ctx)).composioApi);
  if (!key) return undefined;
  checkEndpoint(baseUrl(ctx), FIELD, ctx.runtime.providers);
  return { key, ctx };
}

/** Whether the toolkit (Flowise's app) needs no connected account. */
async function noAuth(api: Api, app: string): Promise<boolean> {
  const toolkit = await request(api, `/toolkits/${enc(app.toLowerCase())}`);
  const details = Array.isArray(toolkit.auth_config_details) ? toolkit.auth_config_details.filter(isObject) : [];
  return details.some((d) => d.mode === "NO_AUTH");
}

// Without toolkit_versions Composio lists (and without `version` executes) a toolkit's oldest version.
const toolsOf = (api: Api, filter: "toolkit_slug" | "tool_slugs", value: string) =>
  listAll(api, `/tools?${filter}=${enc(value)}&toolkit_versions=latest${filter === "toolkit_slug" ? "&limit=1000" : ""}`);

function composioTool(tool: Json, api: Api, connectedAccountId: string | undefined): StructuredToolInterface {
  const slug = String(tool.slug);
  const parameters = isObject(tool.input_parameters) ? tool.input_parameters : {};
  // The version the schema was read at, so the call matches it (execute without one runs 00000000_00).
  const version = str(tool.version) ?? "latest";
  return new DynamicStructuredTool({
    name: toolName(slug),
    description: (str(tool.description) ?? str(tool.name) ?? slug).slice(0, MAX_DESCRIPTION),
    schema: { properties: {}, ...parameters, type: "object" },
    func: async (args: Json) => {
      const body = { ...(connectedAccountId ? { connected_account_id: connectedAccountId } : {}), arguments: args, version };
      const answer = await request(api, `/tools/execute/${enc(slug)}`, body);
      if (answer.successful !== true)
        throw new ToolCallError(str(answer.error) ?? `${slug} did not succeed: ${JSON.stringify(answer.data)}`);
      return JSON.stringify({ data: answer.data, error: answer.error ?? null, successful: true });
    },
  });
}

/** The chosen connected account, ACTIVE and of the app: its v3 id. */
async function activeAccount(api: Api, id: string | undefined, app: string, label: string): Promise<string> {
  if (!id) throw fail("INVALID_FLOW", `${label}: Please select a connected account for ${app}`);
  let account: Json;
  try {
    account = await request(api, `/connected_accounts/${enc(id)}`);
  } catch (err) {
    if (err instanceof ToolCallError && UUID.test(id) && /answered (400|404)/.test(err.message))
      throw fail(
        "INVALID_FLOW",
        `${label}: the connected account ${id} is a Composio API v1 id (a UUID); API v3 names accounts ca_…: ` +
          "choose the account again in Connected Account",
      );
    throw err;
  }
  const toolkit = isObject(account.toolkit) ? str(account.toolkit.slug) : undefined;
  if (toolkit && toolkit !== app.toLowerCase())
    throw fail("INVALID_FLOW", `${label}: the connected account ${id} is for ${toolkit}, not ${app}: choose an account of ${app}`);
  if (account.status !== "ACTIVE")
    throw fail(
      "INVALID_FLOW",
      `${label}: Selected connection is no longer active for ${app}. ` +
        "Please select a different connection or reconnect on app.composio.dev",
    );
  return str(account.id) ?? id;
}

export async function composioTools(inputs: Json, { ctx, label }: ToolDeps): Promise<StructuredToolInterface[]> {
  const api = await apiOf(inputs, ctx);
  if (!api) throw fail("MISSING_CREDENTIAL", `${label}: API Key Required: connect a composioApi credential with the Composio API key`);
  const appName = str(inputs.appName);
  if (!appName) throw fail("INVALID_FLOW", `${label}: App name is required. Please select an app.`);
  const actions = chosenActions(inputs.actions);
  if (!actions.length) throw fail("INVALID_FLOW", `${label}: select the actions to use (Actions to Use)`);
  try {
    const account = (await noAuth(api, appName)) ? undefined : await activeAccount(api, str(inputs.connectedAccountId), appName, label);
    return (await toolsOf(api, "tool_slugs", actions.join(","))).map((t) => composioTool(t, api, account));
  } catch (err) {
    throw runError(err, label);
  }
}

const bySlug = (a: Json, b: Json) => String(a.slug).localeCompare(String(b.slug));
const described = (x: Json) => str(x.description) ?? (isObject(x.meta) ? str(x.meta.description) : undefined) ?? String(x.slug);
const named = (list: Json[], label: (slug: string) => string) =>
  list.sort(bySlug).map((x) => option(label(String(x.slug)), String(x.slug), described(x)));

/** The canvas's pickers: Flowise's options and hints; Composio failing lists its message (apps, actions) or is a 502. */
export async function composioOptions(method: string, inputs: Json, ctx: Ctx): Promise<ComposioOption[]> {
  const api = await apiOf(inputs, ctx);
  if (!api) return [option("API Key Required", "placeholder", "Enter Composio API key in the credential field")];
  if (method === "listApps")
    return listAll(api, "/toolkits?limit=1000").then(
      (list) => named(list, (slug) => slug.toUpperCase()),
      (err) => failed(err, "Apps", "apps"),
    );
  const app = str(inputs.appName);
  const what = method === "listActions" ? "actions" : "connections";
  if (!app) return [option("Select an App first", "placeholder", `Select an app from the dropdown to view available ${what}`)];
  if (method === "listActions")
    return toolsOf(api, "toolkit_slug", app.toLowerCase()).then(
      (list) => named(list, (slug) => slug),
      (err) => failed(err, "Actions", "actions"),
    );
  try {
    if (await noAuth(api, app)) return [option("No connection needed", "No connection needed", "This app does not require authentication")];
    const accounts = await listAll(api, `/connected_accounts?toolkit_slugs=${enc(app.toLowerCase())}&statuses=ACTIVE`);
    const active = accounts.filter((c) => c.status === "ACTIVE");
    if (!active.length) return [option("No connections available", "", "Please connect the app on app.composio.dev first")];
    const created = (c: Json) => `Created: ${new Date(String(c.created_at)).toLocaleDateString("en-US")}`;
    return active.map((c) => option(str(c.user_id) ?? String(c.id), String(c.id), created(c)));
  } catch (err) {
    throw runError(err, "Composio");
  }
}

function failed(err: unknown, what: string, lower: string): ComposioOption[] {
  if (!(err instanceof ToolCallError)) throw err;
  return [option(`Error Loading ${what}`, "error", `Failed to load ${lower}. Please check your API key and try again (${err.message})`)];
}
