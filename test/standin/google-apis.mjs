// Gmail API v1 (/gmail/v1/users/me/…) and Google Calendar API v3 (/calendar/v3/…) stand-in for the
// gmail and googleCalendarTool nodes. Every call needs `Authorization: Bearer at-…` (the tokens the
// tests store and the ones test/standin/oauth2.mjs refreshes); `Bearer at-revoked…` or none is
// Google's 401 UNAUTHENTICATED. Each route checks its method and body shape and answers a resource
// shaped like Google's, echoing what it was given (ids, fields, query) so a test sees it reach the model:
//   an id starting "missing" is Google's 404 NOT_FOUND; "echo" a 400 whose message repeats the
//   Authorization header (a service that echoes the token); deletes answer 204 with no body.
// A message's `raw` (base64url RFC 2822) is decoded and recorded as `mime` (headers, the subject's
// encoded-words decoded, the decoded body), and on the answer as `payload.headers` / `snippet`.
// GET /requests?contains=<marker> lists the requests whose path, body or decoded message holds it.
// Strict as Google documents (each refusal in Google's error shape):
//   Gmail messages/threads/drafts.list serve at most 500 per page (users.messages.list: "The maximum
//     allowed value for this field is 500"; a larger maxResults is cut, not refused) and page by
//     nextPageToken; a q holding many-<N> matches N items (ids <kind>-<i>), else two.
//   Calendar events.list serves at most 2500 per page ("The page size can never be larger than 2500
//     events", default 250), q many-<N> matching N events; timeMin/timeMax must be RFC 3339 with an
//     offset ("Must be an RFC3339 timestamp with mandatory time zone offset": 400 Bad Request);
//     orderBy=startTime needs singleEvents=true (400 "The requested ordering is not available for the
//     particular query."). Events: a start/end dateTime without offset needs a timeZone, as does any
//     recurring one (400 "Missing time zone definition for start time."). freeBusy: calendarExpansionMax
//     ≤ 50 and groupExpansionMax ≤ 100 (FreeBusyRequest: "Maximum value is 50" / "100").
import { serveStandin } from "./base.mjs";

const googleError = (json, code, status, message) =>
  json(code, { error: { code, message, errors: [{ message, reason: status }], status } });

/** A raw message decoded: its headers (unfolded, encoded-words left as sent) and its body decoded from base64. */
export function decodeRaw(raw) {
  const text = Buffer.from(String(raw).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
  const [head, ...rest] = text.split("\r\n\r\n");
  const headers = {};
  for (const line of head.replace(/\r\n[ \t]/g, " ").split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at)] = line.slice(at + 1).trim();
  }
  const encoded = rest.join("\r\n\r\n");
  const body = /base64/i.test(headers["Content-Transfer-Encoding"] ?? "") ? Buffer.from(encoded, "base64").toString("utf8") : encoded;
  return { text, headers, encoded, body };
}

/** An RFC 2047 header decoded (B and Q encoded-words, adjacent words joined). */
export function decodeWords(value) {
  return String(value)
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?([BQ])\?([^?]*)\?=/gi, (_m, enc, data) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : Buffer.from(
            data.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_x, h) => String.fromCharCode(Number.parseInt(h, 16))),
            "latin1",
          ).toString("utf8"),
    );
}

/** One page of a scripted list: `limit` per page at most (the caller's ask cut to the cap), the offset as token. */
function pageOf(all, q, sizeParam, { cap, fallback }) {
  const asked = q[sizeParam] === undefined ? fallback : Number(q[sizeParam]);
  const size = Math.min(Number.isInteger(asked) && asked > 0 ? asked : fallback, cap);
  const from = Number(q.pageToken ?? 0);
  const page = all.slice(from, from + size);
  return { page, ...(from + size < all.length ? { nextPageToken: String(from + size) } : {}) };
}

/** many-<N> in a query asks the stand-in for N items. */
const manyOf = (q) => Number(/many-(\d+)/.exec(q ?? "")?.[1] ?? 0);

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const badRequest = (json) => googleError(json, 400, "badRequest", "Bad Request");

/** events.list's documented rules: RFC 3339 bounds with an offset, startTime ordering only over single events. */
function validateEventsList(q, json) {
  for (const key of ["timeMin", "timeMax"]) if (q[key] !== undefined && !RFC3339.test(q[key])) return badRequest(json);
  if (q.orderBy === "startTime" && q.singleEvents !== "true")
    return googleError(json, 400, "invalid", "The requested ordering is not available for the particular query.");
  return undefined;
}

/** An event's start/end: a dateTime without offset needs a timeZone, and so does a recurring event. */
function validateEventTimes(body, json) {
  for (const end of ["start", "end"]) {
    const t = body?.[end];
    if (!t?.dateTime || t.timeZone) continue;
    if (body.recurrence || !/(Z|[+-]\d{2}:\d{2})$/i.test(t.dateTime))
      return googleError(json, 400, "badRequest", `Missing time zone definition for ${end} time.`);
  }
  return undefined;
}

/** FreeBusyRequest's documented maxima. */
function validateFreeBusy(body, json) {
  if (!Array.isArray(body?.items) || !body.timeMin || !body.timeMax)
    return googleError(json, 400, "INVALID_ARGUMENT", "Missing timeMin, timeMax or items");
  if (body.calendarExpansionMax > 50 || body.groupExpansionMax > 100) return googleError(json, 400, "invalid", "Invalid Value");
  return undefined;
}

const messageOf = (id, mime, labelIds) => ({
  id,
  threadId: `t-${id}`,
  labelIds,
  ...(mime
    ? { snippet: mime.body.slice(0, 100), payload: { headers: Object.entries(mime.headers).map(([name, value]) => ({ name, value })) } }
    : {}),
});

function gmail(method, parts, { url, body, json, record }) {
  const [kind, id, verb] = parts;
  const q = Object.fromEntries(url.searchParams);
  const mimeOf = (raw) => {
    if (typeof raw !== "string" || !raw || /[+/=]/.test(raw)) return undefined;
    record.mime = decodeRaw(raw);
    record.mime.subject = decodeWords(record.mime.headers.Subject ?? "");
    record.raw += `\n${record.mime.text}\n${record.mime.body}\n${decodeWords(record.mime.headers.Subject ?? "")}`;
    return record.mime;
  };
  if (!["drafts", "messages", "labels", "threads"].includes(kind)) return googleError(json, 404, "NOT_FOUND", "Not Found");
  if (!id && method === "GET") {
    if (kind === "labels")
      return json(200, {
        labels: [
          { id: "INBOX", name: "INBOX", type: "system" },
          { id: "Label_1", name: "Work", type: "user" },
        ],
      });
    const n = manyOf(q.q);
    const all = n
      ? Array.from({ length: n }, (_, i) => ({ id: `${kind}-${i + 1}` }))
      : [{ id: `${kind}-1-${q.q ?? "all"}` }, { id: `${kind}-2` }];
    const { page, nextPageToken } = pageOf(all, q, "maxResults", { cap: 500, fallback: 100 });
    return json(200, { [kind]: page, ...(nextPageToken ? { nextPageToken } : {}), resultSizeEstimate: all.length, query: q });
  }
  // Creating: drafts, labels, messages/send, drafts/send.
  if (method === "POST" && (!id || id === "send")) {
    if (kind === "labels") {
      if (typeof body?.name !== "string") return googleError(json, 400, "INVALID_ARGUMENT", "Invalid label name");
      return json(200, { id: `Label_${body.name}`, ...body });
    }
    if (kind === "drafts" && id === "send") {
      if (typeof body?.id !== "string") return googleError(json, 400, "INVALID_ARGUMENT", "Missing draft id");
      if (body.id.startsWith("missing")) return googleError(json, 404, "NOT_FOUND", "Requested entity was not found.");
      return json(200, { id: `sent-${body.id}`, threadId: `t-${body.id}`, labelIds: ["SENT"] });
    }
    const raw = kind === "drafts" ? body?.message?.raw : body?.raw;
    const mime = mimeOf(raw);
    if (!mime) return googleError(json, 400, "INVALID_ARGUMENT", "Invalid value for ByteString: raw must be base64url");
    if (kind === "drafts") return json(200, { id: "r-draft-1", message: messageOf("draft-msg-1", mime, ["DRAFT"]) });
    return json(200, messageOf("sent-msg-1", mime, ["SENT"]));
  }
  if (!id) return googleError(json, 405, "METHOD_NOT_ALLOWED", "Method not allowed");
  if (id.startsWith("missing")) return googleError(json, 404, "NOT_FOUND", "Requested entity was not found.");
  if (id.startsWith("echo")) return googleError(json, 400, "INVALID_ARGUMENT", `Bad request with ${record.headers.authorization}`);
  if (method === "DELETE" && !verb) {
    record.deleted = true;
    return json(204, undefined);
  }
  if (method === "GET" && !verb) {
    if (kind === "labels") return json(200, { id, name: `label ${id}`, type: "user" });
    if (kind === "drafts") return json(200, { id, message: messageOf(`msg-of-${id}`, undefined, ["DRAFT"]) });
    if (kind === "threads") return json(200, { id, messages: [messageOf(`msg-of-${id}`, undefined, ["INBOX"])] });
    return json(200, { ...messageOf(id, undefined, ["INBOX"]), snippet: `snippet of ${id}` });
  }
  if (method === "PUT" && !verb && kind === "labels") return json(200, { id, ...body });
  if (method === "PUT" && !verb && kind === "drafts") {
    const mime = mimeOf(body?.message?.raw);
    if (!mime) return googleError(json, 400, "INVALID_ARGUMENT", "Invalid value for ByteString: raw must be base64url");
    return json(200, { id, message: messageOf(`msg-of-${id}`, mime, ["DRAFT"]) });
  }
  if (method === "POST" && (kind === "messages" || kind === "threads") && ["modify", "trash", "untrash"].includes(verb)) {
    const labels = verb === "trash" ? ["TRASH"] : verb === "untrash" ? ["INBOX"] : [...(body?.addLabelIds ?? [])];
    return json(200, { id, labelIds: labels, ...(verb === "modify" ? { modified: body ?? {} } : {}) });
  }
  return googleError(json, 404, "NOT_FOUND", "Not Found");
}

function calendar(method, parts, { url, body, json, record }) {
  const q = Object.fromEntries(url.searchParams);
  const path = parts.join("/");
  if (method === "POST" && path === "freeBusy") {
    const refused = validateFreeBusy(body, json);
    if (refused) return refused;
    const calendars = Object.fromEntries(body.items.map(({ id }) => [id, { busy: [{ start: body.timeMin, end: body.timeMax }] }]));
    return json(200, { kind: "calendar#freeBusy", timeMin: body.timeMin, timeMax: body.timeMax, calendars, received: body });
  }
  if (method === "GET" && path === "users/me/calendarList")
    return json(200, { kind: "calendar#calendarList", items: [{ id: "primary-cal", summary: "Mine", accessRole: "owner" }], query: q });
  if (parts[0] !== "calendars") return googleError(json, 404, "NOT_FOUND", "Not Found");
  if (method === "POST" && parts.length === 1) {
    if (typeof body?.summary !== "string") return googleError(json, 400, "INVALID_ARGUMENT", "Missing title.");
    return json(200, { kind: "calendar#calendar", id: "new-cal@group.calendar.google.com", ...body });
  }
  const [, cal, sub, eventId, verb] = parts;
  if (cal.startsWith("missing")) return googleError(json, 404, "NOT_FOUND", "Not Found");
  if (cal.startsWith("echo")) return googleError(json, 400, "INVALID_ARGUMENT", `Bad request with ${record.headers.authorization}`);
  if (!sub) {
    if (method === "GET") return json(200, { kind: "calendar#calendar", id: cal, summary: `calendar ${cal}` });
    if (method === "PUT") return json(200, { kind: "calendar#calendar", id: cal, ...body });
    if (method === "DELETE") return json(204, undefined);
  }
  if (sub === "clear" && method === "POST") return json(204, undefined);
  if (sub !== "events") return googleError(json, 404, "NOT_FOUND", "Not Found");
  if (!eventId) {
    if (method === "GET") {
      const refused = validateEventsList(q, json);
      if (refused) return refused;
      const n = manyOf(q.q);
      const all = n ? Array.from({ length: n }, (_, i) => ({ id: `ev-${i + 1}` })) : [{ id: "ev-1", summary: `event in ${cal}` }];
      const { page, nextPageToken } = pageOf(all, q, "maxResults", { cap: 2500, fallback: 250 });
      return json(200, { kind: "calendar#events", summary: cal, items: page, ...(nextPageToken ? { nextPageToken } : {}), query: q });
    }
    if (method === "POST")
      return validateEventTimes(body, json) ?? json(200, { kind: "calendar#event", id: "ev-new", calendar: cal, ...body, query: q });
  }
  if (eventId === "quickAdd" && method === "POST") {
    if (!q.text) return googleError(json, 400, "REQUIRED", "Required parameter: text");
    return json(200, { kind: "calendar#event", id: "ev-quick", summary: q.text, calendar: cal });
  }
  if (eventId?.startsWith("missing")) return googleError(json, 404, "NOT_FOUND", "Not Found");
  if (!verb && method === "GET") return json(200, { kind: "calendar#event", id: eventId, calendar: cal, summary: `event ${eventId}` });
  if (!verb && method === "PUT")
    return validateEventTimes(body, json) ?? json(200, { kind: "calendar#event", id: eventId, calendar: cal, ...body, query: q });
  if (!verb && method === "DELETE") return json(204, undefined);
  return googleError(json, 404, "NOT_FOUND", "Not Found");
}

export function startGoogleApisStandin() {
  return serveStandin(async (ctx) => {
    const { req, url, record, json } = ctx;
    record.raw = `${url.pathname}${url.search}\n${decodeURIComponent(url.pathname + url.search)}\n${record.raw}`;
    const auth = req.headers.authorization ?? "";
    if (!/^Bearer at-/.test(auth) || auth.startsWith("Bearer at-revoked"))
      return googleError(json, 401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
    const gm = /^\/gmail\/v1\/users\/me\/(.+)$/.exec(url.pathname);
    if (gm) return gmail(req.method, gm[1].split("/").map(decodeURIComponent), ctx);
    const cv = /^\/calendar\/v3\/(.+)$/.exec(url.pathname);
    if (cv) return calendar(req.method, cv[1].split("/").map(decodeURIComponent), ctx);
    return googleError(json, 404, "NOT_FOUND", "Not Found");
  });
}
