// Microsoft Graph v1.0 stand-in for the microsoftOutlook and microsoftTeams tools (runs in Node).
// Base URL: the stand-in's root stands for https://graph.microsoft.com/v1.0.
//   Every call needs `Authorization: Bearer <token>` with a token starting "at-" (the OAuth2
//   stand-in's) or "graph-" — else 401 InvalidAuthenticationToken, as Graph answers. An id holding
//   "missing" is a 404 ErrorItemNotFound; one holding "echo-token" a 403 whose message repeats the
//   Authorization header (a service that echoes the secret).
//   Outlook: /me/calendars[/{id}[/events]], /me/events[/{id}], /me/messages[/{id}[/copy|move|reply|forward]], /me/sendMail.
//   Teams: /teams/{t}/channels[/{c}[/archive|unarchive|members[/{m}]|messages[/{id}[/replies|softDelete|setReaction|unsetReaction]]]],
//     /me/chats, /me/chats/getAllMessages, /chats[/{id}[/members[/{m}]|pinnedMessages[/{p}]|messages[/…]]].
//   Reads answer {id, …} or {value: […]} made from the path's ids; creates echo the body with a new id;
//   Outlook PATCHes answer the entity, Teams PATCHes 204; deletes, sendMail, reply, forward, archive,
//   softDelete and reactions answer 202/204 with no body. A chat's or channel's members are
//   [{id: "membership-<parent id>", userId: "user-<parent id>"}]; a chat's pinned messages
//   [{id: "pin-<chat id>", message: {id: "msg-<chat id>"}}], the message only with $expand=message.
// Strict as Graph (learn.microsoft.com/graph/api/…): $top is a whole number ≥ 1 (query-parameters), at most 1000
//   for /me/messages (user-list-messages), 50 for /me/chats (chat-list), a chat's messages (chat-list-messages) and a
//   channel's (channel-list-messages) — over it Graph's 400 "The limit of '50' for Top query has been exceeded".
//   Lists page as Graph does: $top items (else the resource's default page: 10, channel messages 20), then
//   @odata.nextLink (this stand-in's URL, the query kept, $skiptoken added). A list holds its usual items, or N
//   items when the path or the token holds "many-N". A $filter's string literals must be closed, a quote inside
//   doubled ('O''Brien'), else 400 "Invalid filter clause". sendMail and forward need recipients each with an
//   address, else 400 ErrorInvalidRecipients; a member's user@odata.bind must be users('<id>') (quotes doubled).
// GET /requests?contains=<marker> lists requests ({method, path, query, authorization, body}) whose path, body or Authorization header holds it.
import { createServer } from "node:http";

const graphError = (code, message) => ({ error: { code, message, innerError: { "request-id": "standin" } } });

/** [method, path pattern, answer(match, ctx) → [status, body?]]; the first match answers. */
const ROUTES = [
  // Outlook: calendars and events.
  [
    "GET",
    /^\/me\/calendars$/,
    (_m, c) =>
      list(c, [
        { id: "calendar-1", name: "Calendar" },
        { id: "calendar-2", name: "Birthdays" },
      ]),
  ],
  ["POST", /^\/me\/calendars$/, (_m, c) => [201, { id: "calendar-new", ...c.body }]],
  ["GET", /^\/me\/calendars\/([^/]+)$/, (m) => [200, { id: m[1], name: `Calendar ${m[1]}` }]],
  ["PATCH", /^\/me\/calendars\/([^/]+)$/, (m, c) => [200, { id: m[1], ...c.body }]],
  ["DELETE", /^\/me\/calendars\/([^/]+)$/, () => [204]],
  ["GET", /^\/me\/calendars\/([^/]+)\/events$/, (m, c) => list(c, [{ id: `event-in-${m[1]}`, subject: "Standup" }])],
  ["GET", /^\/me\/events$/, (_m, c) => list(c, [{ id: "event-1", subject: "Standup" }])],
  ["POST", /^\/me\/events$/, (_m, c) => [201, { id: "event-new", ...c.body }]],
  ["GET", /^\/me\/events\/([^/]+)$/, (m) => [200, { id: m[1], subject: `Event ${m[1]}` }]],
  ["PATCH", /^\/me\/events\/([^/]+)$/, (m, c) => [200, { id: m[1], ...c.body }]],
  ["DELETE", /^\/me\/events\/([^/]+)$/, () => [204]],
  // Outlook: messages.
  ["GET", /^\/me\/messages$/, (_m, c) => list(c, [{ id: "message-1", subject: "Hello", isRead: false }])],
  ["POST", /^\/me\/messages$/, (_m, c) => [201, { id: "draft-new", isDraft: true, ...c.body }]],
  ["GET", /^\/me\/messages\/([^/]+)$/, (m) => [200, { id: m[1], subject: `Message ${m[1]}` }]],
  ["PATCH", /^\/me\/messages\/([^/]+)$/, (m, c) => [200, { id: m[1], ...c.body }]],
  ["DELETE", /^\/me\/messages\/([^/]+)$/, () => [204]],
  ["POST", /^\/me\/messages\/([^/]+)\/(copy|move)$/, (m, c) => [201, { id: `${m[2]}-of-${m[1]}`, parentFolderId: c.body?.destinationId }]],
  ["POST", /^\/me\/messages\/([^/]+)\/reply$/, () => [202]],
  ["POST", /^\/me\/messages\/([^/]+)\/forward$/, (_m, c) => validateRecipients(c.body?.toRecipients) ?? [202]],
  ["POST", /^\/me\/sendMail$/, (_m, c) => validateRecipients(c.body?.message?.toRecipients) ?? [202]],
  // Teams: channels.
  [
    "GET",
    /^\/teams\/([^/]+)\/channels$/,
    (m) => [200, { value: ["general", "random", "news"].map((n) => ({ id: `${n}-${m[1]}`, displayName: n })) }],
  ],
  ["POST", /^\/teams\/([^/]+)\/channels$/, (_m, c) => [201, { id: "channel-new", ...c.body }]],
  ["GET", /^\/teams\/([^/]+)\/channels\/([^/]+)$/, (m) => [200, { id: m[2], displayName: `Channel ${m[2]}`, team: m[1] }]],
  ["PATCH", /^\/teams\/([^/]+)\/channels\/([^/]+)$/, () => [204]],
  ["DELETE", /^\/teams\/([^/]+)\/channels\/([^/]+)$/, () => [204]],
  ["POST", /^\/teams\/([^/]+)\/channels\/([^/]+)\/(archive|unarchive)$/, () => [202]],
  // Teams: chats.
  ["GET", /^\/me\/chats$/, (_m, c) => list(c, [{ id: "chat-1", topic: "Team chat", chatType: "group" }])],
  ["GET", /^\/me\/chats\/getAllMessages$/, (_m, c) => list(c, [{ id: "all-1", body: { content: "hi" } }])],
  ["POST", /^\/chats$/, (_m, c) => (c.body?.members ?? []).map(validateMember).find(Boolean) ?? [201, { id: "chat-new", ...c.body }]],
  ["GET", /^\/chats\/([^/]+)$/, (m) => [200, { id: m[1], topic: `Chat ${m[1]}` }]],
  ["PATCH", /^\/chats\/([^/]+)$/, () => [204]],
  ["DELETE", /^\/chats\/([^/]+)$/, () => [204]],
  ["GET", /^\/chats\/([^/]+)\/pinnedMessages$/, (m, c) => [200, { value: [pinOf(m[1], c.query.$expand === "message")] }]],
  ["POST", /^\/chats\/([^/]+)\/pinnedMessages$/, (m) => [201, { id: `pin-${m[1]}` }]],
  ["DELETE", /^\/chats\/([^/]+)\/pinnedMessages\/([^/]+)$/, () => [204]],
  // Members of a channel or a chat.
  [
    "GET",
    /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/members$/,
    (m) => [200, { value: [{ id: `membership-${m[2]}`, userId: `user-${m[2]}` }] }],
  ],
  [
    "POST",
    /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/members$/,
    (_m, c) => validateMember(c.body) ?? [201, { id: "membership-new", ...c.body }],
  ],
  ["DELETE", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/members\/([^/]+)$/, () => [204]],
  // Messages of a channel or a chat.
  ["GET", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/messages$/, (m, c) => list(c, [{ id: `msg-${m[2]}`, body: { content: "hi" } }])],
  ["POST", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/messages$/, (m, c) => [201, { id: `sent-in-${m[2]}`, ...c.body }]],
  ["GET", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/messages\/([^/]+)$/, (m) => [200, { id: m[3], chatOrChannel: m[2] }]],
  ["PATCH", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/messages\/([^/]+)$/, () => [204]],
  ["POST", /^\/teams\/[^/]+\/channels\/([^/]+)\/messages\/([^/]+)\/replies$/, (m, c) => [201, { id: `reply-to-${m[2]}`, ...c.body }]],
  ["POST", /^(\/teams\/[^/]+\/channels|\/chats)\/([^/]+)\/messages\/([^/]+)\/(softDelete|setReaction|unsetReaction)$/, () => [204]],
];

const TOP_CAPS = [
  [/^\/me\/messages$/, 1000],
  [/^\/me\/chats$/, 50],
  [/^(\/teams\/[^/]+\/channels|\/chats)\/[^/]+\/messages$/, 50],
];
const invalidQuery = (message) => [400, graphError("BadRequest", `The query specified in the URI is not valid. ${message}`)];

/** $top: a whole number ≥ 1 and within the resource's cap; answers Graph's 400 or nothing. */
function validateTop(c) {
  if (c.query.$top === undefined) return undefined;
  const top = c.query.$top;
  if (!/^\d+$/.test(top) || Number(top) < 1) return invalidQuery(`Invalid value '${top}' for $top: it must be a positive integer.`);
  const cap = TOP_CAPS.find(([pattern]) => pattern.test(c.path))?.[1];
  if (cap && Number(top) > cap)
    return invalidQuery(`The limit of '${cap}' for Top query has been exceeded. The value from the incoming request is '${top}'.`);
  return undefined;
}

/** A $filter's string literals: closed, a quote inside doubled; a literal is followed by a space, ')' or the end. */
function validateFilter(filter) {
  if (filter === undefined) return undefined;
  for (let i = 0; i < filter.length; i++) {
    if (filter[i] !== "'") continue;
    let j = i + 1;
    for (; j < filter.length; j++) {
      if (filter[j] !== "'") continue;
      if (filter[j + 1] === "'") j++;
      else break;
    }
    const after = filter[j + 1];
    if (j >= filter.length || (after !== undefined && after !== " " && after !== ")"))
      return [400, graphError("BadRequest", `Invalid filter clause: syntax error at position ${j} in '${filter}'.`)];
    i = j;
  }
  return undefined;
}

/** A collection page: `items` (or many-N of them), $top or the default page, then @odata.nextLink. */
function list(c, items) {
  const bad = validateTop(c) ?? validateFilter(c.query.$filter);
  if (bad) return bad;
  const many = /many-(\d+)/.exec(`${c.path} ${c.authorization}`)?.[1];
  const all = many ? Array.from({ length: Number(many) }, (_, i) => ({ ...items[0], id: `${items[0].id}-${i + 1}` })) : items;
  const size = Number(c.query.$top ?? (/\/channels\/[^/]+\/messages$/.test(c.path) ? 20 : 10));
  const skip = Number(c.query.$skiptoken ?? 0);
  const page = { "@odata.context": "standin", value: all.slice(skip, skip + size) };
  if (skip + size < all.length) {
    const next = new URLSearchParams({ ...c.query, $skiptoken: String(skip + size) });
    page["@odata.nextLink"] = `${c.origin}${c.rawPath}?${next}`;
  }
  return [200, page];
}

const RECIPIENTS_INVALID = "At least one recipient isn't valid., A message can't be sent because it contains no recipients.";
/** sendMail's message / forward's toRecipients: a non-empty list, each with an address. */
function validateRecipients(list) {
  const ok = Array.isArray(list) && list.length && list.every((r) => /^[^\s@]+@[^\s@]+$/.test(r?.emailAddress?.address ?? ""));
  return ok ? undefined : [400, graphError("ErrorInvalidRecipients", RECIPIENTS_INVALID)];
}

/** A member's bind: users('<id>'), a quote inside the id doubled. */
function validateMember(body) {
  const bind = body?.["user@odata.bind"] ?? "";
  return /\/users\('(?:[^']|'')+'\)$/.test(bind)
    ? undefined
    : [400, graphError("BadRequest", `Invalid odata.bind '${bind}': expected users('<id>').`)];
}

const pinOf = (chatId, expanded) => ({ id: `pin-${chatId}`, ...(expanded && { message: { id: `msg-${chatId}` } }) });

export function startMicrosoftGraphStandin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const answer = (status, value) => {
      if (value === undefined) {
        res.writeHead(status);
        return res.end();
      }
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      const marker = url.searchParams.get("contains") ?? "";
      return answer(
        200,
        requests.filter((r) => `${r.path} ${r.raw} ${r.authorization}`.includes(marker)).map(({ raw: _raw, ...r }) => r),
      );
    }
    const path = decodeURIComponent(url.pathname);
    const query = Object.fromEntries(url.searchParams);
    let body;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return answer(400, graphError("BadRequest", "Unable to read JSON request payload."));
    }
    const authorization = req.headers.authorization ?? "";
    requests.push({ method: req.method, path, query, authorization, contentType: req.headers["content-type"], body, raw });
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1] ?? "";
    if (!/^(at|graph)-/.test(token))
      return answer(401, graphError("InvalidAuthenticationToken", token ? "IDX14100: JWT is not well formed." : "Access token is empty."));
    if (path.includes("missing")) return answer(404, graphError("ErrorItemNotFound", "The specified object was not found in the store."));
    if (path.includes("echo-token")) return answer(403, graphError("Forbidden", `Access denied for ${authorization}`));
    for (const [method, pattern, respond] of ROUTES) {
      const m = req.method === method ? pattern.exec(path) : null;
      if (m)
        return answer(...respond(m, { body, query, path, rawPath: url.pathname, authorization, origin: `http://${req.headers.host}` }));
    }
    return answer(400, graphError("BadRequest", `Resource not found for the segment '${path.split("/").pop()}'.`));
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
