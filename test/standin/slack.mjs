// Slack Web API stand-in (Node, vitest globalSetup) for slackMCP with a bot token (server-slack's
// tools, run natively). Under /api/, as https://slack.com/api/; every method needs
// `Authorization: Bearer xoxb-stand-in-token`, else Slack's HTTP 200 {ok: false, error: "invalid_auth"}.
//   GET  conversations.list?types&exclude_archived&limit&team_id[&cursor]   → {ok, channels, response_metadata}
//   POST chat.postMessage {channel, text[, thread_ts]} (JSON)                → {ok, channel, ts, message}
//   POST reactions.add {channel, timestamp, name}                           → {ok}
//   GET  conversations.history?channel&limit | conversations.replies?channel&ts → {ok, messages}
//   GET  users.list?limit&team_id[&cursor] | users.profile.get?user&include_labels
// Channel "C-missing" → {ok: false, error: "channel_not_found"}; one holding "ratelimited" → HTTP 429, Retry-After
// and {ok: false, error: "ratelimited"}; /down/api/* → HTTP 500 with a text body. As Slack's reference:
// chat.postMessage without text → {ok: false, error: "no_text"}, a text past 40,000 characters truncated;
// conversations.history pages by `limit` (at most 999) with has_more and response_metadata.next_cursor.
// GET /requests?contains=MARKER lists what was received (path with query, headers, body).
import { serveStandin } from "./base.mjs";

export const SLACK_BOT_TOKEN = "xoxb-stand-in-token";

const METHODS = {
  "conversations.list": (q) => ({
    ok: true,
    channels: [{ id: "C0GENERAL", name: "general", is_archived: false, team: q.get("team_id") }],
    response_metadata: { next_cursor: "" },
  }),
  "chat.postMessage": (_q, b) =>
    !b.text
      ? { ok: false, error: "no_text" }
      : {
          ok: true,
          channel: b.channel,
          ts: "1700000000.000200",
          // Slack truncates a text past 40,000 characters (changelog 2018-04, truncating really long messages).
          message: {
            type: "message",
            text: [...b.text].slice(0, MAX_TEXT).join(""),
            ts: "1700000000.000200",
            ...(b.thread_ts ? { thread_ts: b.thread_ts } : {}),
          },
        },
  "reactions.add": () => ({ ok: true }),
  "conversations.history": (q) => history(q),
  "conversations.replies": (q) => ({
    ok: true,
    messages: [{ type: "message", text: "the parent", ts: q.get("ts"), thread_ts: q.get("ts"), reply_count: 0 }],
  }),
  "users.list": (q) => ({ ok: true, members: [{ id: "U0ALICE", name: "alice", team_id: q.get("team_id") }], response_metadata: {} }),
  "users.profile.get": (q) => ({ ok: true, profile: { real_name: `Profile of ${q.get("user")}`, title: "Rainmaker" } }),
};

const POSTS = new Set(["chat.postMessage", "reactions.add"]);
const MAX_TEXT = 40_000;

/**
 * A channel's history, newest first: one message, or N when the channel holds "many-N"; `limit` (default 100,
 * at most 999; 15 for a channel holding "short") messages a page, then has_more and response_metadata.next_cursor,
 * which `cursor` takes back.
 */
function history(q) {
  const channel = q.get("channel");
  const count = Number(/many-(\d+)/.exec(channel)?.[1] ?? 1);
  // An app distributed outside the Marketplace gets at most 15 a page (Slack's 2025 limits): channel "…short…".
  const limit = Math.min(Number(q.get("limit") ?? 100), channel.includes("short") ? 15 : 999);
  const cursor = q.get("cursor");
  const start = cursor ? Number(/^next:(\d+)$/.exec(cursor)?.[1]) : 0;
  if (!Number.isInteger(start)) return { ok: false, error: "invalid_cursor" };
  const messages = Array.from({ length: Math.max(0, Math.min(limit, count - start)) }, (_, i) => ({
    type: "message",
    user: "U0ALICE",
    text: count === 1 ? `hello from ${channel}` : `message ${start + i + 1} in ${channel}`,
    ts: `1700000000.${String(100 + start + i).padStart(6, "0")}`,
  }));
  const more = start + limit < count;
  return { ok: true, messages, has_more: more, ...(more && { response_metadata: { next_cursor: `next:${start + limit}` } }) };
}

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
    // Past a method's rate limit: HTTP 429 with Retry-After (seconds) and Slack's ok:false "ratelimited".
    if (String(channel).includes("ratelimited")) {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
      return res.end(JSON.stringify({ ok: false, error: "ratelimited" }));
    }
    json(200, handler(url.searchParams, args));
  });
}
