// What Flowise's microsoftOutlook and microsoftTeams tool nodes share: Microsoft Graph v1.0
// (MICROSOFT_GRAPH_BASE_URL, else https://graph.microsoft.com/v1.0) called with the credential's
// OAuth2 access token (engine/tools/oauth2), a node's Type choosing which multiOptions input lists
// its actions, each action one structured tool with Flowise's name, description and arguments.
//
// Flowise's per-action node inputs (calendarIdGetCalendar, teamIdListChannels, …) are meant to fix
// an argument (its tools spread them over the model's arguments) but never do: their names are not
// the arguments'. Here a filled one does: it wins over the model's value, and the argument becomes
// optional in the schema the model sees.
import type { z } from "zod";
import { fail } from "../../../errors";
import { checkEndpoint } from "../../../lib/outbound";
import { bool, num, str } from "../../core/inputs";
import { type Action, type OAuth2Api, actionTools, apiCall, chosenActions, oauth2CredentialId, serviceUrl } from "../oauth2/api";
import { ToolCallError } from "../service";
import type { BuiltTool, ToolDeps } from "../types";

export const GRAPH_URL = "https://graph.microsoft.com/v1.0";
const FIELD = "MICROSOFT_GRAPH_BASE_URL";

// biome-ignore lint/suspicious/noExplicitAny: the arguments are the action's zod schema's, checked by the tool.
export type Args = Record<string, any>;

/** One of Flowise's actions: its option in the node's multiOptions input, and the tool it makes. */
export interface GraphAction {
  /** The option's name in the actions input: listCalendars, sendMessage… */
  option: string;
  /** The tool's name and description, as the model sees them. */
  name: string;
  description: string;
  schema: z.ZodObject<z.ZodRawShape>;
  /** Node inputs that fix an argument when filled: argument → input name. */
  inputs?: Record<string, string>;
  /** For failures: "listing calendars" → "Error listing calendars: …" (Flowise's words). */
  doing: string;
  run(args: Args, api: OAuth2Api): Promise<unknown>;
}

/** A node: its credential type and, per value of its Type input, the actions input and its actions. */
export interface GraphNode {
  node: string;
  credentialName: string;
  typeInput: string;
  groups: Record<string, { input: string; actions: GraphAction[] }>;
}

/** A path segment from an argument, encoded (an id never reaches another path). */
export const seg = (value: unknown): string => encodeURIComponent(String(value ?? ""));

/** Comma-separated addresses as Graph's recipients (Flowise's parseEmailAddresses). Empty parts ("a@x.com, ") are
 * dropped: sendMail refuses a recipient without an address (ErrorInvalidRecipients). */
export const recipients = (list: string): Array<{ emailAddress: { address: string; name: string } }> =>
  list
    .split(",")
    .map((email) => email.trim())
    .filter(Boolean)
    .map((email) => ({ emailAddress: { address: email, name: email } }));

/** An OData string literal: a quote inside is doubled, else it ends the literal and Graph refuses the $filter. */
export const odataString = (value: unknown): string => `'${String(value ?? "").replace(/'/g, "''")}'`;

/** How many items the model (or node) asked for: a whole number ≥ 1, else none (the action's default). */
export const wanted = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;

type Page = { value?: unknown[]; "@odata.nextLink"?: unknown; [key: string]: unknown };
/** Pages one list call follows at most (a model asking for a million items gets a bounded answer). */
const MAX_PAGES = 20;

/**
 * Up to `max` items of a Graph collection: $top is at most `pageCap` (the resource's documented maximum: a larger
 * one is a 400), then @odata.nextLink (it carries the query) until `max` items or the last page. A short page is
 * not the last one (Teams' message lists return fewer than $top): only a missing nextLink is. No `max`: Graph's
 * first page as it came (Flowise's call without $top). Answers the first page with every item read in `value`.
 */
export async function listPages(
  api: OAuth2Api,
  path: string,
  max: number | undefined,
  { pageCap = Number.POSITIVE_INFINITY, query = {} }: { pageCap?: number; query?: Record<string, string | undefined> } = {},
): Promise<Page> {
  const first = (await apiCall(api, { path, query: { ...query, $top: max ? Math.min(max, pageCap) : undefined } })) as Page;
  if (!max) return first;
  const value = [...(first.value ?? [])];
  let next = first["@odata.nextLink"];
  for (let pages = 1; value.length < max && typeof next === "string" && pages < MAX_PAGES; pages++) {
    // The token goes only to our Graph base URL, never to a link elsewhere.
    if (!next.startsWith(`${api.baseUrl}/`)) break;
    const page = (await apiCall(api, { path: next.slice(api.baseUrl.length) })) as Page;
    value.push(...(page.value ?? []));
    next = page["@odata.nextLink"];
  }
  const { "@odata.nextLink": _next, ...rest } = first;
  return { ...rest, value: value.slice(0, max) };
}

/** A user as Graph binds a conversation member. */
export const memberOf = (userId: string) => ({
  "@odata.type": "#microsoft.graph.aadUserConversationMember",
  "user@odata.bind": `${GRAPH_URL}/users(${odataString(userId)})`,
});

const NUMBERS = new Set(["maxResults"]);
const BOOLEANS = new Set(["isRead"]);

/** The node inputs an action's arguments take from, read as the argument's type; unfilled ones left out. */
function fixedArgs(action: GraphAction, inputs: Record<string, unknown>): Args {
  const fixed: Args = {};
  for (const [arg, input] of Object.entries(action.inputs ?? {})) {
    const raw = inputs[input];
    if (raw === undefined || raw === null || raw === "") continue;
    const value = NUMBERS.has(arg) ? num(raw) : BOOLEANS.has(arg) ? bool(raw) : str(raw);
    if (value !== undefined) fixed[arg] = value;
  }
  return fixed;
}

/** The action as a tool's Action: fixed arguments optional for the model and applied over its own. */
function bound(action: GraphAction, inputs: Record<string, unknown>): Action {
  const fixed = fixedArgs(action, inputs);
  const mask = Object.fromEntries(Object.keys(fixed).map((k) => [k, true as const]));
  return {
    name: action.name,
    description: action.description,
    schema: Object.keys(mask).length ? action.schema.partial(mask) : action.schema,
    run: async (args, api) => {
      try {
        return await action.run({ ...args, ...fixed }, api);
      } catch (err) {
        if (err instanceof ToolCallError) throw new ToolCallError(`Error ${action.doing}: ${err.message}`);
        throw err;
      }
    },
  };
}

/** The node's chosen actions as tools; a missing Type, no action or an unknown one is a 400. */
export function graphTools(spec: GraphNode, inputs: Record<string, unknown>, { ctx, label }: ToolDeps): BuiltTool {
  const credentialId = oauth2CredentialId(inputs, spec.credentialName, label);
  const types = Object.keys(spec.groups);
  const type = str(inputs[spec.typeInput]);
  const group = type ? spec.groups[type] : undefined;
  if (!group) throw fail("INVALID_FLOW", `${label}: set ${spec.typeInput} to one of ${types.join(", ")} (got ${type ?? "nothing"})`);
  const known = group.actions.map((a) => a.option);
  const chosen = chosenActions(inputs[group.input]);
  if (!chosen.length) throw fail("INVALID_FLOW", `${label}: choose at least one action in ${group.input} (${known.join(", ")})`);
  const unknown = chosen.filter((c) => !known.includes(c));
  if (unknown.length)
    throw fail("INVALID_FLOW", `${label}: ${group.input} has unknown actions ${unknown.join(", ")} (known: ${known.join(", ")})`);
  const baseUrl = serviceUrl(ctx.runtime.providers.MICROSOFT_GRAPH_BASE_URL, GRAPH_URL);
  checkEndpoint(baseUrl, FIELD, ctx.runtime.providers);
  const api: OAuth2Api = { ctx, credentialId, service: "Microsoft Graph", baseUrl, field: FIELD };
  // Flowise's order (its own list), not the order the options were picked in.
  const actions = group.actions.filter((a) => chosen.includes(a.option)).map((a) => bound(a, inputs));
  return actionTools(
    actions,
    actions.map((a) => a.name),
    api,
  );
}

/** Flowise's check before a Teams call: the arguments an action cannot do without. */
export function need(args: Args, names: string[], message: string): void {
  if (names.some((n) => !args[n])) throw new ToolCallError(message);
}
