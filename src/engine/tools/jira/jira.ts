// Flowise's jiraTool: a Jira site (jiraHost, under the outbound policy's request rule) with a jiraApi
// credential (username + accessToken: Jira Cloud, API v3) or a jiraApiBearerToken one (a personal
// access token: Server/Data Center, API v2); jiraType picks which actions input (issueActions,
// commentActions, userActions) lists its operations, each one structured tool (actions.ts).
//
// Flowise's per-action node inputs (issueSummary, jqlQuery, commentText, userQuery, …) are meant to
// fix an argument (its tools spread them over the model's arguments) but mostly do not: only the
// ones named like an argument (projectKey, issueType, issueKey, assigneeAccountId, transitionId,
// commentId) ever did. Here every filled one does: it wins over the model's value, and the argument
// becomes optional in the schema the model sees. Workers cannot trust a custom certificate
// authority, so enableSSL with a caFile (Flowise's Server/DC option) is refused.
import { fail } from "../../../errors";
import { assertOutboundAllowed } from "../../../lib/outbound";
import { credentialOf } from "../../../providers/config";
import { bool, num, str } from "../../core/inputs";
import { type Action, type OAuth2Api, actionTools, chosenActions } from "../oauth2/api";
import { ToolCallError } from "../service";
import type { BuiltTool, ToolDeps } from "../types";
import { type Args, JIRA_GROUPS, type JiraAction } from "./actions";
import { type JiraCall, jiraAuth, jiraClient } from "./client";

const NUMBERS = new Set(["maxResults"]);

/** The node inputs an action's arguments take from; unfilled ones left out. */
function fixedArgs(action: JiraAction, inputs: Record<string, unknown>): Args {
  const fixed: Args = {};
  for (const [arg, input] of Object.entries(action.inputs ?? {})) {
    const raw = inputs[input];
    if (raw === undefined || raw === null || raw === "") continue;
    const value = NUMBERS.has(arg) ? num(raw) : str(raw);
    if (value !== undefined) fixed[arg] = value;
  }
  return fixed;
}

/** The action as a tool's Action: fixed arguments optional for the model and applied over its own. */
function bound(action: JiraAction, inputs: Record<string, unknown>, jira: JiraCall): Action {
  const fixed = fixedArgs(action, inputs);
  const mask = Object.fromEntries(Object.keys(fixed).map((k) => [k, true as const]));
  return {
    name: action.name,
    description: action.description,
    schema: Object.keys(mask).length ? action.schema.partial(mask) : action.schema,
    run: async (args) => {
      try {
        const text = await action.run({ ...args, ...fixed }, jira);
        return text.trim() ? text : (action.done ?? text);
      } catch (err) {
        if (err instanceof ToolCallError) throw new ToolCallError(`Error ${action.doing}: ${err.message}`);
        throw err;
      }
    },
  };
}

export async function jiraTools(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<BuiltTool> {
  const rawHost = str(inputs.jiraHost);
  if (!rawHost) throw fail("INVALID_FLOW", `${label}: set Host (jiraHost), e.g. https://example.atlassian.net`);
  const host = assertOutboundAllowed(rawHost, ctx.runtime.outbound).toString().replace(/\/+$/, "");
  if (bool(inputs.enableSSL) && str(inputs.caFile))
    throw fail(
      "INVALID_FLOW",
      `${label}: a custom SSL certificate (caFile) cannot be trusted on Workers; use a host with a public certificate`,
    );
  const types = Object.keys(JIRA_GROUPS);
  const type = str(inputs.jiraType);
  const group = type ? JIRA_GROUPS[type] : undefined;
  if (!group) throw fail("INVALID_FLOW", `${label}: set jiraType to one of ${types.join(", ")} (got ${type ?? "nothing"})`);
  const known = group.actions.map((a) => a.option);
  const chosen = chosenActions(inputs[group.input]);
  if (!chosen.length) throw fail("INVALID_FLOW", `${label}: choose at least one action in ${group.input} (${known.join(", ")})`);
  const unknown = chosen.filter((c) => !known.includes(c));
  if (unknown.length)
    throw fail("INVALID_FLOW", `${label}: ${group.input} has unknown actions ${unknown.join(", ")} (known: ${known.join(", ")})`);
  const credential = await credentialOf(inputs, { getCredential: ctx.getCredential });
  const auth = jiraAuth(credential);
  if (!auth)
    throw fail(
      "MISSING_CREDENTIAL",
      `${label} needs a jiraApi credential (username and accessToken) or a jiraApiBearerToken credential (bearerToken)`,
    );
  const jira = jiraClient(host, auth, ctx);
  // Flowise's order (its own list), not the order the options were picked in.
  const actions = group.actions.filter((a) => chosen.includes(a.option)).map((a) => bound(a, inputs, jira));
  const api: OAuth2Api = { ctx, credentialId: str(inputs.credential) ?? "", service: "Jira", baseUrl: host, field: "jiraHost" };
  return actionTools(
    actions,
    actions.map((a) => a.name),
    api,
  );
}
