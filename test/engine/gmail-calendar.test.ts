// Flowise's gmail and googleCalendarTool nodes (engine/tools/google/gmail.ts, calendar.ts) against
// the Google APIs stand-in (test/standin/google-apis.mjs): in a Tool Agent saved as a chatflow and
// run through POST /prediction (the scripted model calls the tools), and built from the tool registry
// with a run's context. What the stand-in received (method, path, query, body, the decoded RFC 2822
// message, the bearer token), what reached the model, a credential refreshed at the OAuth2 token
// endpoint before the call, and failures: Google's errors as Flowise's text for the model, the token
// never in them, an API var on a private address refused, bad node config a 400.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildTool } from "../../src/engine/tools/registry";
import { json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker } from "./helpers";

const google = () => inject("googleApisUrl");
const oauth = () => inject("oauth2Url");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});
const vars = (extra: Record<string, string> = {}) => {
  restore?.();
  restore = setVars({ GMAIL_BASE_URL: google(), GOOGLE_CALENDAR_BASE_URL: google(), ...extra });
};

type Received = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  mime?: { headers: Record<string, string>; subject: string; body: string; encoded: string };
};
const received = async (m: string): Promise<Received[]> => (await fetch(`${google()}/requests?contains=${encodeURIComponent(m)}`)).json();

const future = () => new Date(Date.now() + 3600_000).toISOString();
const token = () => `at-${marker()}-secret`;
const gmailCred = (accessToken: string) => credential("gmailOAuth2", { access_token: accessToken, expires_at: future() });
const calendarCred = (accessToken: string) => credential("googleCalendarOAuth2", { access_token: accessToken, expires_at: future() });

/** A Tool Agent chatflow with one Google node, saved; answers its id. */
async function save(name: string, inputs: Record<string, unknown>, credentialId: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-google-tools" });
  const flow = JSON.parse(
    toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [{ id: `${name}_0`, name, inputs }] }),
  );
  flow.nodes.find((n: { id: string }) => n.id === `${name}_0`).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: `google ${name}`, flowData: JSON.stringify(flow) } })).id;
}
const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

/** The node's tools built from the registry with a run's context. */
async function tools(name: string, inputs: Record<string, unknown>): Promise<Map<string, StructuredToolInterface>> {
  const built = await buildTool(name, inputs, { ctx: makeCtx("q"), label: `${name} (${name}_0)` });
  return new Map((Array.isArray(built) ? built : [built]).map((t) => [t.name, t]));
}

describe("gmail through POST /prediction", () => {
  it("send_message: POST messages/send with raw RFC 2822 (UTF-8 subject as an encoded-word, body base64); Gmail's JSON reaches the model", async () => {
    vars();
    const at = token();
    const id = await save("gmail", { gmailType: "messages", messageActions: '["listMessages","sendMessage"]' }, await gmailCred(at));
    const m = marker();
    const subject = `Grüße aus Köln 🌍 ${m} — a long subject that needs more than one encoded word to stay under 75`;
    const body = `<p>Hallo Welt ✓ ${m}</p>\n${"é".repeat(80)}`;
    const args = { to: "ana@example.com, bo@example.com", subject, body, cc: "cc@example.com" };
    const answer = await predict(id, `Mail ${m} ${callOf("send_message", args)}`);
    const [req, ...more] = await received(m);
    expect(more).toHaveLength(0);
    expect(req).toMatchObject({ method: "POST", path: "/gmail/v1/users/me/messages/send" });
    expect(req.headers.authorization).toBe(`Bearer ${at}`);
    expect(Object.keys(req.body)).toEqual(["raw"]);
    expect(req.body.raw).toMatch(/^[A-Za-z0-9_-]+$/);
    const mime = req.mime!;
    expect(mime.headers).toMatchObject({
      To: "ana@example.com, bo@example.com",
      Cc: "cc@example.com",
      "MIME-Version": "1.0",
      "Content-Type": "text/html; charset=utf-8",
      "Content-Transfer-Encoding": "base64",
    });
    expect(mime.headers.Subject).toMatch(/^=\?UTF-8\?B\?/);
    expect(mime.subject).toBe(subject);
    expect(mime.body).toBe(body);
    expect(mime.encoded.split("\r\n").every((line) => line.length <= 76)).toBe(true);
    expect(answer.text).toContain('"id":"sent-msg-1"');
    expect(answer.text).toContain('"labelIds":["SENT"]');
    expect(answer.usedTools[0]).toMatchObject({ tool: "send_message", toolInput: args });
  });

  it("list_messages: GET messages?maxResults=100&q=…; an ASCII subject goes as it is", async () => {
    vars();
    const at = token();
    const id = await save("gmail", { gmailType: "messages", messageActions: ["listMessages", "sendMessage"] }, await gmailCred(at));
    const m = marker();
    const answer = await predict(id, `Find ${m} ${callOf("list_messages", { query: `from:${m}` })}`);
    const [req] = await received(m);
    expect(req).toMatchObject({ method: "GET", path: `/gmail/v1/users/me/messages?maxResults=100&q=from%3A${m}` });
    expect(answer.text).toContain(`"id":"messages-1-from:${m}"`);
    const m2 = marker();
    await predict(id, `Send ${m2} ${callOf("send_message", { to: "a@example.com", subject: `Plain ${m2}` })}`);
    const [sent] = await received(m2);
    expect(sent.mime!.headers.Subject).toBe(`Plain ${m2}`);
  });

  it("drafts, labels and threads: each operation's REST call; the node's inputs win over the model's arguments", async () => {
    vars();
    const at = token();
    const m = marker();
    const draft = await tools("gmail", {
      gmailType: "drafts",
      draftActions: ["createDraft", "getDraft", "updateDraft", "sendDraft", "deleteDraft", "listDrafts"],
      draftTo: `to-${m}@example.com`,
      draftMaxResults: "7",
      credential: await gmailCred(at),
    });
    expect([...draft.keys()]).toEqual(["list_drafts", "create_draft", "get_draft", "update_draft", "send_draft", "delete_draft"]);
    expect(draft.get("create_draft")!.description).toBe("Create a new draft in Gmail");
    const created = JSON.parse(await draft.get("create_draft")!.invoke({ to: "model@example.com", subject: m, body: "x" }));
    expect(created).toMatchObject({ id: "r-draft-1", message: { labelIds: ["DRAFT"] } });
    // draftTo fixes `to`: the model may leave it out.
    await draft.get("create_draft")!.invoke({ subject: `${m}-2` });
    const [c1, c2] = await received(m);
    expect(c1).toMatchObject({ method: "POST", path: "/gmail/v1/users/me/drafts" });
    expect(c1.mime!.headers.To).toBe(`to-${m}@example.com`);
    expect(c2.mime!.headers.To).toBe(`to-${m}@example.com`);
    await draft.get("list_drafts")!.invoke({ query: `in:${m}` });
    expect((await received(`in:${m}`))[0].path).toBe(`/gmail/v1/users/me/drafts?maxResults=7&q=in%3A${m}`);
    expect(await draft.get("get_draft")!.invoke({ id: `d-${m}` })).toContain(`"id":"d-${m}"`);
    await draft.get("update_draft")!.invoke({ id: `d-${m}`, to: "x@example.com", subject: "new" });
    expect(await draft.get("send_draft")!.invoke({ id: `d-${m}` })).toContain(`"id":"sent-d-${m}"`);
    expect(await draft.get("delete_draft")!.invoke({ id: `d-${m}` })).toBe(`Draft d-${m} deleted successfully`);
    const calls = (await received(`d-${m}`)).map((r) => `${r.method} ${r.path}`);
    expect(calls).toEqual([
      `GET /gmail/v1/users/me/drafts/d-${m}`,
      `PUT /gmail/v1/users/me/drafts/d-${m}`,
      "POST /gmail/v1/users/me/drafts/send",
      `DELETE /gmail/v1/users/me/drafts/d-${m}`,
    ]);

    const labels = await tools("gmail", {
      gmailType: "labels",
      labelActions: "listLabels,createLabel,updateLabel,deleteLabel,getLabel",
      labelColor: "#ff0000",
      credential: await gmailCred(at),
    });
    expect(JSON.parse(await labels.get("create_label")!.invoke({ labelName: `L-${m}` }))).toEqual({
      id: `Label_L-${m}`,
      name: `L-${m}`,
      labelListVisibility: "labelShow",
      messageListVisibility: "show",
      color: { backgroundColor: "#ff0000" },
    });
    expect(await labels.get("update_label")!.invoke({ id: `lab-${m}`, labelName: "Renamed" })).toContain('"name":"Renamed"');
    expect(await labels.get("delete_label")!.invoke({ id: `lab-${m}` })).toBe(`Label lab-${m} deleted successfully`);
    expect(await labels.get("list_labels")!.invoke({})).toContain('"Label_1"');

    const threads = await tools("gmail", {
      gmailType: "threads",
      threadActions: ["modifyThread", "trashThread", "untrashThread", "getThread", "deleteThread", "listThreads"],
      threadId: `th-${m}`,
      threadRemoveLabelIds: "UNREAD, SPAM",
      credential: await gmailCred(at),
    });
    const modified = JSON.parse(await threads.get("modify_thread")!.invoke({ id: "model-id", addLabelIds: ["STARRED"] }));
    expect(modified).toMatchObject({ id: `th-${m}`, modified: { addLabelIds: ["STARRED"], removeLabelIds: ["UNREAD", "SPAM"] } });
    expect(await threads.get("trash_thread")!.invoke({})).toContain('"TRASH"');
    await threads.get("untrash_thread")!.invoke({});
    expect((await received(`th-${m}`)).map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([
      `POST /gmail/v1/users/me/threads/th-${m}/modify Bearer ${at}`,
      `POST /gmail/v1/users/me/threads/th-${m}/trash Bearer ${at}`,
      `POST /gmail/v1/users/me/threads/th-${m}/untrash Bearer ${at}`,
    ]);
  });

  it("Google's errors are Flowise's text for the model, without the token; a revoked token is Google's 401", async () => {
    vars();
    const at = token();
    const id = await save("gmail", { gmailType: "messages", messageActions: ["getMessage", "trashMessage"] }, await gmailCred(at));
    const m = marker();
    const missing = await predict(id, `Get ${m} ${callOf("get_message", { id: `missing-${m}` })}`);
    expect(missing.text).toBe("tools said: Error getting message: Gmail answered 404: Requested entity was not found.");
    const echoed = await predict(id, `Trash ${m} ${callOf("trash_message", { id: `echo-${m}` })}`);
    expect(echoed.text).toContain("Error moving message to trash: Gmail answered 400: Bad request with Bearer [redacted]");
    expect(JSON.stringify(echoed)).not.toContain(at);
    const revoked = await save("gmail", { gmailType: "messages", messageActions: ["getMessage"] }, await gmailCred("at-revoked-1"));
    const denied = await predict(revoked, `Get ${m} ${callOf("get_message", { id: "x" })}`);
    expect(denied.text).toContain("Error getting message: Gmail answered 401: Request had invalid authentication credentials.");
  });

  it("bad node config is a 400 naming what is wrong; GMAIL_BASE_URL on a private address is a 400 too", async () => {
    vars();
    const cred = await gmailCred(token());
    const status = async (inputs: Record<string, unknown>) => {
      const res = await json("POST", `/prediction/${await save("gmail", inputs, cred)}`, { body: { question: "hi" } }, 400);
      return res.message as string;
    };
    expect(await status({ messageActions: ["getMessage"] })).toMatch(
      /needs its Type \(gmailType: one of drafts, messages, labels, threads\)/,
    );
    expect(await status({ gmailType: "messages", messageActions: ["getDraft"] })).toMatch(/messageActions: unknown getDraft/);
    expect(await status({ gmailType: "labels" })).toMatch(/needs at least one operation in labelActions/);
    restore?.();
    vars({ GMAIL_BASE_URL: "http://10.9.9.9" });
    expect(await status({ gmailType: "labels", labelActions: ["listLabels"] })).toMatch(
      /^GMAIL_BASE_URL refused by the outbound policy: 10\.9\.9\.9 is a private/,
    );
  });
});

describe("googleCalendarTool", () => {
  it("create_event through POST /prediction: POST calendars/{id}/events?sendUpdates=all with Flowise's event body", async () => {
    vars();
    const at = token();
    const id = await save(
      "googleCalendarTool",
      { calendarType: "event", eventActions: ["createEvent", "deleteEvent"] },
      await calendarCred(at),
    );
    const m = marker();
    const args = {
      calendarId: `team-${m}@group.calendar.google.com`,
      summary: `Review ${m}`,
      startDateTime: "2026-03-01T10:00:00",
      endDateTime: "2026-03-01T11:00:00",
      timeZone: "Europe/Berlin",
      attendees: "a@example.com, b@example.com",
      recurrence: "RRULE:FREQ=WEEKLY;COUNT=3",
      reminderMinutes: 15,
      visibility: "private",
    };
    const answer = await predict(id, `Plan ${m} ${callOf("create_event", args)}`);
    const [req] = await received(m);
    expect(req.method).toBe("POST");
    expect(req.path).toBe(`/calendar/v3/calendars/${encodeURIComponent(args.calendarId)}/events?sendUpdates=all`);
    expect(req.headers.authorization).toBe(`Bearer ${at}`);
    expect(req.body).toEqual({
      summary: `Review ${m}`,
      start: { dateTime: "2026-03-01T10:00:00", timeZone: "Europe/Berlin" },
      end: { dateTime: "2026-03-01T11:00:00", timeZone: "Europe/Berlin" },
      attendees: [{ email: "a@example.com" }, { email: "b@example.com" }],
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"],
      reminders: { useDefault: false, overrides: [{ method: "popup", minutes: 15 }] },
      visibility: "private",
    });
    expect(answer.text).toContain('"id":"ev-new"');
    const gone = await predict(id, `Drop ${m} ${callOf("delete_event", { calendarId: `c-${m}`, eventId: "ev-9" })}`);
    expect(gone.text).toBe("tools said: Event deleted successfully");
    expect((await received(`c-${m}`))[0]).toMatchObject({ method: "DELETE", path: `/calendar/v3/calendars/c-${m}/events/ev-9` });
  });

  it("an expired credential is refreshed at its token endpoint first: the API gets Bearer at-refreshed-…", async () => {
    vars();
    const cred = await credential("googleCalendarOAuth2", {
      access_token: "at-old-expired",
      expires_at: new Date(Date.now() - 60_000).toISOString(),
      refresh_token: "rt-calendar",
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      accessTokenUrl: `${oauth()}/token`,
    });
    const id = await save("googleCalendarTool", { calendarType: "event", eventActions: ["listEvents"], maxResults: 5 }, cred);
    const m = marker();
    const answer = await predict(id, `Agenda ${m} ${callOf("list_events", { query: m, orderBy: "startTime" })}`);
    const [req] = await received(m);
    expect(req.path).toBe(`/calendar/v3/calendars/primary/events?maxResults=5&singleEvents=true&orderBy=startTime&q=${m}`);
    expect(req.headers.authorization).toMatch(/^Bearer at-refreshed-\d+$/);
    expect(answer.text).toContain('"event in primary"');
  });

  it("calendar and freebusy operations: the node's calendar inputs fix their arguments; clear and quick add", async () => {
    vars();
    const at = token();
    const m = marker();
    const cals = await tools("googleCalendarTool", {
      calendarType: "calendar",
      calendarActions: ["listCalendars", "createCalendar", "getCalendar", "updateCalendar", "deleteCalendar", "clearCalendar"],
      calendarIdForCalendar: `cal-${m}`,
      calendarTimeZone: "Asia/Tokyo",
      showHidden: true,
      calendarId: "primary",
      credential: await calendarCred(at),
    });
    expect(JSON.parse(await cals.get("create_calendar")!.invoke({ summary: `New ${m}` }))).toMatchObject({
      summary: `New ${m}`,
      timeZone: "Asia/Tokyo",
    });
    expect(await cals.get("get_calendar")!.invoke({})).toContain(`"id":"cal-${m}"`);
    await cals.get("update_calendar")!.invoke({ calendarId: "ignored", summary: "Renamed" });
    expect(await cals.get("clear_calendar")!.invoke({})).toBe("Calendar cleared successfully");
    expect(await cals.get("delete_calendar")!.invoke({})).toBe("Calendar deleted successfully");
    const log = await received(`cal-${m}`);
    expect(log.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /calendar/v3/calendars/cal-${m}`,
      `PUT /calendar/v3/calendars/cal-${m}`,
      `POST /calendar/v3/calendars/cal-${m}/clear`,
      `DELETE /calendar/v3/calendars/cal-${m}`,
    ]);
    expect(log[1].body).toEqual({ summary: "Renamed", timeZone: "Asia/Tokyo" });
    expect(await cals.get("list_calendars")!.invoke({ minAccessRole: "owner" })).toContain('"showHidden":"true","minAccessRole":"owner"');

    const fb = await tools("googleCalendarTool", {
      calendarType: "freebusy",
      freebusyActions: ["queryFreebusy"],
      calendarIds: `primary, room-${m}`,
      groupExpansionMax: "4",
      credential: await calendarCred(at),
    });
    const busy = JSON.parse(await fb.get("query_freebusy")!.invoke({ timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-01-02T00:00:00Z" }));
    expect(busy.received).toEqual({
      timeMin: "2026-01-01T00:00:00Z",
      timeMax: "2026-01-02T00:00:00Z",
      items: [{ id: "primary" }, { id: `room-${m}` }],
      groupExpansionMax: 4,
    });

    const quick = await tools("googleCalendarTool", {
      calendarType: "event",
      eventActions: ["quickAddEvent"],
      credential: await calendarCred(at),
    });
    expect(JSON.parse(await quick.get("quick_add_event")!.invoke({ quickAddText: `Lunch ${m} tomorrow at noon` }))).toMatchObject({
      id: "ev-quick",
      summary: `Lunch ${m} tomorrow at noon`,
      calendar: "primary",
    });
    expect((await received(m)).find((r) => r.path.includes("quickAdd"))?.path).toMatch(
      /^\/calendar\/v3\/calendars\/primary\/events\/quickAdd\?text=Lunch\+/,
    );
  });

  it("a node without a credential is a 400 asking to authorize one", async () => {
    const err = await buildTool(
      "googleCalendarTool",
      { calendarType: "event", eventActions: ["listEvents"] },
      {
        ctx: makeCtx("q"),
        label: "Google Calendar (googleCalendarTool_0)",
      },
    ).catch((e) => e);
    expect(err).toMatchObject({ status: 400 });
    expect(err.message).toMatch(/needs a googleCalendarOAuth2 credential/);
  });
});

describe("Google's documented ranges (the strict stand-in)", () => {
  it("gmail: a Max Results over 500 is read in pages of at most 500 by nextPageToken, up to the count asked", async () => {
    vars();
    const m = marker();
    const t = await tools("gmail", {
      gmailType: "threads",
      threadActions: ["listThreads"],
      threadMaxResults: "520",
      credential: await gmailCred(token()),
    });
    const answer = JSON.parse(await t.get("list_threads")!.invoke({ query: `many-600 ${m}` }));
    expect(answer.threads).toHaveLength(520);
    expect(answer.threads.at(-1)).toEqual({ id: "threads-520" });
    expect(answer).toMatchObject({ nextPageToken: "520", resultSizeEstimate: 600 });
    const pages = (await received(m)).map((r) => Object.fromEntries(new URL(r.path, "http://x").searchParams));
    expect(pages).toEqual([
      { maxResults: "500", q: `many-600 ${m}` },
      { maxResults: "20", q: `many-600 ${m}`, pageToken: "500" },
    ]);
  });

  it("list_events: over 2500 in pages; bounds without offset as RFC 3339 UTC; startTime ordering only over single events", async () => {
    vars();
    const m = marker();
    const cred = await calendarCred(token());
    const big = await tools("googleCalendarTool", {
      calendarType: "event",
      eventActions: ["listEvents"],
      maxResults: 2600,
      credential: cred,
    });
    const answer = JSON.parse(
      await big.get("list_events")!.invoke({ query: `many-2700 ${m}`, timeMin: "2026-03-01", timeMax: "2026-03-02T09:30" }),
    );
    expect(answer.items).toHaveLength(2600);
    expect(answer.nextPageToken).toBe("2600");
    const recurring = await tools("googleCalendarTool", {
      calendarType: "event",
      eventActions: ["listEvents"],
      singleEvents: false,
      orderBy: "startTime",
      credential: cred,
    });
    const masters = await recurring.get("list_events")!.invoke({ query: `masters ${m}`, timeMin: "2026-03-01T08:00:00+01:00" });
    expect(masters).toContain('"event in primary"');
    const sent = (await received(m)).map((r) => Object.fromEntries(new URL(r.path, "http://x").searchParams));
    const bounds = { timeMin: "2026-03-01T00:00:00Z", timeMax: "2026-03-02T09:30:00Z" };
    expect(sent).toEqual([
      { ...bounds, maxResults: "2500", singleEvents: "true", q: `many-2700 ${m}` },
      { ...bounds, maxResults: "100", singleEvents: "true", q: `many-2700 ${m}`, pageToken: "2500" },
      { timeMin: "2026-03-01T08:00:00+01:00", maxResults: "250", singleEvents: "false", q: `masters ${m}` },
    ]);
  });

  it("query_freebusy: expansion maxima over Google's (50 calendars, 100 group members) are sent at the maximum", async () => {
    vars();
    const m = marker();
    const fb = await tools("googleCalendarTool", {
      calendarType: "freebusy",
      freebusyActions: ["queryFreebusy"],
      calendarExpansionMax: "80",
      groupExpansionMax: "500",
      credential: await calendarCred(token()),
    });
    const args = { timeMin: "2026-01-01T00:00:00Z", timeMax: "2026-01-02", calendarIds: `room-${m}` };
    const busy = JSON.parse(await fb.get("query_freebusy")!.invoke(args));
    expect(busy.received).toEqual({
      timeMin: "2026-01-01T00:00:00Z",
      timeMax: "2026-01-02T00:00:00Z",
      items: [{ id: `room-${m}` }],
      groupExpansionMax: 100,
      calendarExpansionMax: 50,
    });
  });
});
