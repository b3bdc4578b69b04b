// Flowise's `composio` tool, natively: the REST calls composio-core 0.5's LangchainToolSet makes to
// Composio's backend ({COMPOSIO_BASE_URL}, the key as X-API-KEY). Building: the app
// (GET /api/v1/apps/{app}); unless it needs no auth, the chosen connected account, which must be
// ACTIVE (GET /api/v1/connectedAccounts/{id}); the chosen actions with their JSON parameter schemas
// (GET /api/v2/actions?actions=A,B), each one structured tool named as the action. A call is
// POST /api/v2/actions/{action}/execute {connectedAccountId, appName, input}, answering Composio's
// result ({data, error, successful}) as JSON text, as the SDK's tools do. The canvas's pickers
// (listApps, listActions, listConnections) answer as Flowise's node does.
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";
import { fail } from "../../errors";
import { checkEndpoint } from "../../lib/outbound";
import { credentialOf } from "../../providers/config";
import { isObject, str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { MAX_DESCRIPTION } from "./mcp/custom-mcp";
import { toolName } from "./names";
import { chosenActions } from "./oauth2/api";
import { ToolCallError, baseUrlOf, callServiceJson } from "./service";
import type { ToolDeps } from "./types";

const COMPOSIO = "https://backend.composio.dev";
const FIELD = "COMPOSIO_BASE_URL";

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
const items = (body: Json): Json[] => (Array.isArray(body.items) ? body.items.filter(isObject) : []);
const option = (label: string, name: string, description: string): ComposioOption => ({ label, name, description });

/** One call to Composio's API: its JSON object, or a ToolCallError with Composio's message (never the key). */
function request(api: Api, path: string, body?: unknown): Promise<Json> {
  const headers: Record<string, string> = { "X-API-KEY": api.key, "X-SOURCE": "js_sdk", "X-RUNTIME": "langchain" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const init = { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const call = { service: "Composio", field: FIELD, url: `${baseUrl(api.ctx)}${path}`, init, secrets: [api.key] };
  return callServiceJson(call, api.ctx as RunContext);
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

const getApp = (api: Api, app: string) => request(api, `/api/v1/apps/${enc(app.toLowerCase())}`);
const actionsOf = async (api: Api, filter: "apps" | "actions", value: string) =>
  items(await request(api, `/api/v2/actions?${filter}=${enc(value)}`));

function actionTool(action: Json, api: Api, connectedAccountId: string | undefined): StructuredToolInterface {
  const name = String(action.name);
  const appName = str(action.appKey) ?? str(action.appName)?.toLowerCase();
  const parameters = isObject(action.parameters) ? action.parameters : {};
  return new DynamicStructuredTool({
    name: toolName(name),
    description: (str(action.description) ?? name).slice(0, MAX_DESCRIPTION),
    schema: { properties: {}, ...parameters, type: "object" },
    func: async (input: Json) => {
      const body = { ...(connectedAccountId ? { connectedAccountId } : {}), appName, input, allowTracing: false };
      return JSON.stringify(await request(api, `/api/v2/actions/${enc(name)}/execute`, body));
    },
  });
}

export async function composioTools(inputs: Json, { ctx, label }: ToolDeps): Promise<StructuredToolInterface[]> {
  const api = await apiOf(inputs, ctx);
  if (!api) throw fail("MISSING_CREDENTIAL", `${label}: API Key Required: connect a composioApi credential with the Composio API key`);
  const appName = str(inputs.appName);
  if (!appName) throw fail("INVALID_FLOW", `${label}: App name is required. Please select an app.`);
  const actions = chosenActions(inputs.actions);
  if (!actions.length) throw fail("INVALID_FLOW", `${label}: select the actions to use (Actions to Use)`);
  try {
    let connectedAccountId: string | undefined;
    if ((await getApp(api, appName)).no_auth !== true) {
      connectedAccountId = str(inputs.connectedAccountId);
      if (!connectedAccountId) throw fail("INVALID_FLOW", `${label}: Please select a connected account for ${appName}`);
      const account = await request(api, `/api/v1/connectedAccounts/${enc(connectedAccountId)}`);
      if (account.status !== "ACTIVE")
        throw fail(
          "INVALID_FLOW",
          `${label}: Selected connection is no longer active for ${appName}. ` +
            "Please select a different connection or reconnect on app.composio.dev",
        );
    }
    return (await actionsOf(api, "actions", actions.join(","))).map((a) => actionTool(a, api, connectedAccountId));
  } catch (err) {
    throw runError(err, label);
  }
}

const byName = (a: Json, b: Json) => String(a.name).localeCompare(String(b.name));
const named = (list: Json[]) =>
  list.sort(byName).map((x) => option(String(x.name).toUpperCase(), String(x.name), str(x.description) ?? String(x.name)));

/** The canvas's pickers: Flowise's options and hints; Composio failing lists its message (apps, actions) or is a 502. */
export async function composioOptions(method: string, inputs: Json, ctx: Ctx): Promise<ComposioOption[]> {
  const api = await apiOf(inputs, ctx);
  if (!api) return [option("API Key Required", "placeholder", "Enter Composio API key in the credential field")];
  if (method === "listApps")
    return request(api, "/api/v1/apps?additionalFields=auth_schemes").then(
      (body) => named(items(body)),
      (err) => failed(err, "Apps", "apps"),
    );
  const app = str(inputs.appName);
  const what = method === "listActions" ? "actions" : "connections";
  if (!app) return [option("Select an App first", "placeholder", `Select an app from the dropdown to view available ${what}`)];
  if (method === "listActions") return actionsOf(api, "apps", app).then(named, (err) => failed(err, "Actions", "actions"));
  try {
    if ((await getApp(api, app)).no_auth === true)
      return [option("No connection needed", "No connection needed", "This app does not require authentication")];
    const accounts = items(await request(api, `/api/v1/connectedAccounts?appNames=${enc(app.toLowerCase())}`));
    const active = accounts.filter((c) => c.status === "ACTIVE");
    if (!active.length) return [option("No connections available", "", "Please connect the app on app.composio.dev first")];
    const created = (c: Json) => `Created: ${new Date(String(c.createdAt)).toLocaleDateString("en-US")}`;
    return active.map((c) => option(str(c.clientUniqueUserId) ?? String(c.id), String(c.id), created(c)));
  } catch (err) {
    throw runError(err, "Composio");
  }
}

function failed(err: unknown, what: string, lower: string): ComposioOption[] {
  if (!(err instanceof ToolCallError)) throw err;
  return [option(`Error Loading ${what}`, "error", `Failed to load ${lower}. Please check your API key and try again (${err.message})`)];
}
