// slackMCP with a slackApi credential (Bot Token + Team ID): @modelcontextprotocol/server-slack
// (2025.4.25, the version Flowise installs) natively. Its eight tools call Slack's Web API with the
// bot token and answer Slack's JSON as it came (`JSON.stringify(response)`, ok:false included); a
// missing argument or a failed call is `{"error": "…"}` as text, never isError — as the server does.
// The Web API's host is SLACK_API_BASE_URL (tests: a stand-in), under the outbound endpoint rule.
// (A slackOAuth2 credential reaches Slack's hosted MCP server instead: presets.ts.)
import { RunAborted } from "../../../../lib/run-control";
import { callService } from "../../service";
import type { NativeMcpServer, NativeMcpTool } from "./native";
import { textResult } from "./native";

type Args = Record<string, unknown>;
type Prop = [type: "string" | "number", description: string, fallback?: number];

const TS_DESCRIPTION =
  "The timestamp of the parent message in the format '1234567890.123456'. Timestamps in the format without the period can be " +
  "converted by adding the period such that 6 numbers come after it.";
const CURSOR: Prop = ["string", "Pagination cursor for next page of results"];

interface Spec {
  name: string;
  description: string;
  props: Record<string, Prop>;
  required?: string[];
  /** The Web API call: a GET with query parameters, or a POST with a JSON body. */
  request(args: Args, teamId: string): { method: string; query?: Record<string, string>; body?: Record<string, unknown> };
}

const num = (value: unknown, fallback: number) => (value === undefined || value === null ? fallback : Number(value));
const capped = (value: unknown, fallback: number) => String(Math.min(num(value, fallback), 200));
const s = (value: unknown) => String(value);

const SPECS: Spec[] = [
  {
    name: "slack_list_channels",
    description: "List public or pre-defined channels in the workspace with pagination",
    props: { limit: ["number", "Maximum number of channels to return (default 100, max 200)", 100], cursor: CURSOR },
    request: (a, teamId) => ({
      method: "conversations.list",
      query: {
        types: "public_channel",
        exclude_archived: "true",
        limit: capped(a.limit, 100),
        team_id: teamId,
        ...(a.cursor ? { cursor: s(a.cursor) } : {}),
      },
    }),
  },
  {
    name: "slack_post_message",
    description: "Post a new message to a Slack channel",
    props: { channel_id: ["string", "The ID of the channel to post to"], text: ["string", "The message text to post"] },
    required: ["channel_id", "text"],
    request: (a) => ({ method: "chat.postMessage", body: { channel: a.channel_id, text: a.text } }),
  },
  {
    name: "slack_reply_to_thread",
    description: "Reply to a specific message thread in Slack",
    props: {
      channel_id: ["string", "The ID of the channel containing the thread"],
      thread_ts: ["string", TS_DESCRIPTION],
      text: ["string", "The reply text"],
    },
    required: ["channel_id", "thread_ts", "text"],
    request: (a) => ({ method: "chat.postMessage", body: { channel: a.channel_id, thread_ts: a.thread_ts, text: a.text } }),
  },
  {
    name: "slack_add_reaction",
    description: "Add a reaction emoji to a message",
    props: {
      channel_id: ["string", "The ID of the channel containing the message"],
      timestamp: ["string", "The timestamp of the message to react to"],
      reaction: ["string", "The name of the emoji reaction (without ::)"],
    },
    required: ["channel_id", "timestamp", "reaction"],
    request: (a) => ({ method: "reactions.add", body: { channel: a.channel_id, timestamp: a.timestamp, name: a.reaction } }),
  },
  {
    name: "slack_get_channel_history",
    description: "Get recent messages from a channel",
    props: { channel_id: ["string", "The ID of the channel"], limit: ["number", "Number of messages to retrieve (default 10)", 10] },
    required: ["channel_id"],
    request: (a) => ({ method: "conversations.history", query: { channel: s(a.channel_id), limit: String(num(a.limit, 10)) } }),
  },
  {
    name: "slack_get_thread_replies",
    description: "Get all replies in a message thread",
    props: { channel_id: ["string", "The ID of the channel containing the thread"], thread_ts: ["string", TS_DESCRIPTION] },
    required: ["channel_id", "thread_ts"],
    request: (a) => ({ method: "conversations.replies", query: { channel: s(a.channel_id), ts: s(a.thread_ts) } }),
  },
  {
    name: "slack_get_users",
    description: "Get a list of all users in the workspace with their basic profile information",
    props: { cursor: CURSOR, limit: ["number", "Maximum number of users to return (default 100, max 200)", 100] },
    request: (a, teamId) => ({
      method: "users.list",
      query: { limit: capped(a.limit, 100), team_id: teamId, ...(a.cursor ? { cursor: s(a.cursor) } : {}) },
    }),
  },
  {
    name: "slack_get_user_profile",
    description: "Get detailed profile information for a specific user",
    props: { user_id: ["string", "The ID of the user"] },
    required: ["user_id"],
    request: (a) => ({ method: "users.profile.get", query: { user: s(a.user_id), include_labels: "true" } }),
  },
];

const schemaOf = (spec: Spec): Record<string, unknown> => ({
  type: "object",
  properties: Object.fromEntries(
    Object.entries(spec.props).map(([name, [type, description, fallback]]) => [
      name,
      { type, description, ...(fallback !== undefined ? { default: fallback } : {}) },
    ]),
  ),
  ...(spec.required ? { required: spec.required } : {}),
});

export const SLACK_TOOLS: NativeMcpTool[] = SPECS.map((spec) => ({
  name: spec.name,
  description: spec.description,
  inputSchema: schemaOf(spec),
}));

/** The server's wording: "Missing required argument: a", "…arguments: a and b", "…arguments: a, b, and c". */
function missingMessage(names: string[]): string {
  if (names.length === 1) return `Missing required argument: ${names[0]}`;
  const list = names.length === 2 ? names.join(" and ") : `${names.slice(0, -1).join(", ")}, and ${names.at(-1)}`;
  return `Missing required arguments: ${list}`;
}

export interface SlackBot {
  /** The Web API base, e.g. https://slack.com/api (no trailing slash). */
  api: string;
  /** The var naming the base in a refusal. */
  field: string;
  botToken: string;
  teamId: string;
}

/** The server for one node build: the bot's token and team in every call. */
export function slackBotServer(bot: SlackBot): NativeMcpServer {
  const headers = { Authorization: `Bearer ${bot.botToken}`, "Content-Type": "application/json" };
  return {
    node: "slackMCP",
    tools: SLACK_TOOLS,
    open:
      async (_inputs, { ctx }) =>
      async (tool, args) => {
        const spec = SPECS.find((t) => t.name === tool);
        if (!spec) return textResult(JSON.stringify({ error: `Unknown tool: ${tool}` }));
        const required = spec.required ?? [];
        if (required.some((name) => !args[name])) return textResult(JSON.stringify({ error: missingMessage(required) }));
        const req = spec.request(args, bot.teamId);
        const query = req.query ? `?${new URLSearchParams(req.query)}` : "";
        const init: RequestInit = req.body ? { method: "POST", headers, body: JSON.stringify(req.body) } : { headers };
        try {
          const url = `${bot.api}/${req.method}${query}`;
          const res = await callService({ service: "Slack", url, field: bot.field, init, secrets: [bot.botToken] }, ctx);
          try {
            return textResult(JSON.stringify(JSON.parse(res.text)));
          } catch {
            return textResult(
              JSON.stringify({ error: `Slack answered ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}` }),
            );
          }
        } catch (err) {
          if (err instanceof RunAborted) throw err;
          return textResult(JSON.stringify({ error: err instanceof Error ? err.message : String(err) }));
        }
      },
  };
}
