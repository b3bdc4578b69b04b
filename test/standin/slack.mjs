// Slack Web API stand-in (Node, vitest globalSetup) for slackMCP with a bot token (server-slack's
// tools, run natively). Under /api/, as https://slack.com/api/; every method needs
// `Authorization: Bearer xoxb-stand-in-token`, else Slack's HTTP 200 {ok: false, error: "invalid_auth"}.
//   GET  conversations.list?types&exclude_archived&limit&team_id[&cursor]   → {ok, channels, response_metadata}
//   POST chat.postMessage {channel, text[, thread_ts]} (JSON)                → {ok, channel, ts, message}
//   POST reactions.add {channel, timestamp, name}                           → {ok}
//   GET  conversations.history?channel&limit | conversations.replies?channel&ts → {ok, messages}
//   GET  users.list?limit&team_id[&cursor] | users.profile.get?user&include_labels
// Channel "C-missing" → {ok: false, error: "channel_not_found"}; /down/api/* → HTTP 500 with a text body.
// GET /requests?contains=MARKER lists what was received (path with query, headers, body).
import { serveStandin } from "./base.mjs";

export const SLACK_BOT_TOKEN = "xoxb-stand-in-token";

const METHODS = {
  "conversations.list": (q) => ({
    ok: true,
    channels: [{ id: "C0GENERAL", name: "general", is_archived: false, team: q.get("team_id") }],
    response_metadata: { next_cursor: "" },
  }),
  "chat.postMessage": (_q, b) => ({
    ok: true,
    channel: b.channel,
    ts: "1700000000.000200",
    message: { type: "message", text: b.text, ts: "1700000000.000200", ...(b.thread_ts ? { thread_ts: b.thread_ts } : {}) },
  }),
  "reactions.add": () => ({ ok: true }),
  "conversations.history": (q) => ({
    ok: true,
    messages: [{ type: "message", user: "U0ALICE", text: `hello from ${q.get("channel")}`, ts: "1700000000.000100" }],
    has_more: false,
  }),
  "conversations.replies": (q) => ({
    ok: true,
    messages: [{ type: "message", text: "the parent", ts: q.get("ts"), thread_ts: q.get("ts"), reply_count: 0 }],
  }),
  "users.list": (q) => ({ ok: true, members: [{ id: "U0ALICE", name: "alice", team_id: q.get("team_id") }], response_metadata: {} }),
  "users.profile.get": (q) => ({ ok: true, profile: { real_name: `Profile of ${q.get("user")}`, title: "Rainmaker" } }),
};

const POSTS = new Set(["chat.postMessage", "reactions.add"]);

export function startSlackStandin() {
  return serveStandin(({ req, res, url, body, json }) => {
    if (url.pathname.startsWith("/down/api/")) {
      res.writeHead(500, { "content-type": "text/plain" });
      return res.end("slack is down");
    }
    const method = url.pathname.match(/^\/api\/([a-zA-Z.]+)$/)?.[1];
    const handler = method && METHODS[method];
    if (!handler) return json(200, { ok: false, error: "unknown_method" });
    if (req.headers.authorization !== `Bearer ${SLACK_BOT_TOKEN}`) return json(200, { ok: false, error: "invalid_auth" });
    if (POSTS.has(method) && req.method !== "POST") return json(200, { ok: false, error: "invalid_request" });
    const args = body ?? {};
    const channel = args.channel ?? url.searchParams.get("channel");
    if (channel === "C-missing") return json(200, { ok: false, error: "channel_not_found" });
    json(200, handler(url.searchParams, args));
  });
}
