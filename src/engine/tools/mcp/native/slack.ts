// slackMCP with a slackApi credential (Bot Token + Team ID): @modelcontextprotocol/server-slack
// (2025.4.25, the version Flowise installs) natively. Its eight tools call Slack's Web API with the
// bot token and answer Slack's JSON as it came (`JSON.stringify(response)`); a missing argument or a
// failed call is `{"error": "…"}` as the server words it. Unlike the server, Slack's ok:false and those
// are isError results (the model reads them as the tool's error), and `limit`s are sent within range.
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
/**
 * A `limit` sent within 1..max: the server's cap of 200 for lists, Slack's documented maximum of 999 for
 * conversations.history (server-slack sent the model's number as it was); no number → the server's default.
 */
const within = (value: unknown, fallback: number, max: number) => {
  const n = Math.floor(num(value, fallback));
  return String(Number.isFinite(n) ? Math.min(Math.max(n, 1), max) : fallback);
};
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
        limit: within(a.limit, 100, 200),
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
    request: (a) => ({ method: "conversations.history", query: { channel: s(a.channel_id), limit: within(a.limit, 10, 999) } }),
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
      query: { limit: within(a.limit, 100, 200), team_id: teamId, ...(a.cursor ? { cursor: s(a.cursor) } : {}) },
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

type SlackBody = { ok?: unknown; messages?: unknown[]; has_more?: boolean; response_metadata?: { next_cursor?: string } };
const HISTORY_PAGES = 10;

/**
 * conversations.history may answer fewer than `limit` messages with has_more ("fewer than the requested number of
 * items may be returned"): its response_metadata.next_cursor is followed until `limit`, into the first answer. A
 * page that fails (a rate limit) ends it: the messages read so far, with has_more and the cursor to go on.
 */
async function historyUpTo(
  body: SlackBody,
  limit: number,
  send: (query: Record<string, string>) => Promise<SlackBody | string>,
  query: Record<string, string>,
): Promise<void> {
  const messages = body.messages ?? [];
  for (let pages = 1; messages.length < limit && body.has_more && body.response_metadata?.next_cursor && pages < HISTORY_PAGES; pages++) {
    const page = await send({ ...query, limit: String(limit - messages.length), cursor: body.response_metadata.next_cursor });
    if (typeof page === "string" || page.ok === false) break;
    messages.push(...(page.messages ?? []));
    Object.assign(body, { messages, has_more: page.has_more, response_metadata: page.response_metadata });
  }
}

/** The server's answer to a failed call, as its JSON text, marked as an error (the model reads it as one). */
const failed = (body: unknown) => textResult(JSON.stringify(body), true);

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
        if (required.some((name) => !args[name])) return failed({ error: missingMessage(required) });
        const req = spec.request(args, bot.teamId);
        const init: RequestInit = req.body ? { method: "POST", headers, body: JSON.stringify(req.body) } : { headers };
        /** One Web API call: Slack's JSON, or the failure as the server words it. */
        const send = async (query: Record<string, string> | undefined): Promise<SlackBody | string> => {
          const url = `${bot.api}/${req.method}${query ? `?${new URLSearchParams(query)}` : ""}`;
          const res = await callService({ service: "Slack", url, field: bot.field, init, secrets: [bot.botToken] }, ctx);
          try {
            return JSON.parse(res.text) as SlackBody;
          } catch {
            return `Slack answered ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`;
          }
        };
        try {
          const body = await send(req.query);
          if (typeof body === "string") return failed({ error: body });
          // Slack answers its errors (and a 429's "ratelimited") as {ok: false, error} with HTTP 200: a failure.
          if (body.ok === false) return failed(body);
          if (req.method === "conversations.history" && req.query) await historyUpTo(body, Number(req.query.limit), send, req.query);
          return textResult(JSON.stringify(body));
        } catch (err) {
          if (err instanceof RunAborted) throw err;
          return failed({ error: err instanceof Error ? err.message : String(err) });
        }
      },
  };
}
