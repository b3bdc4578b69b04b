// Flowise's microsoftOutlook and microsoftTeams tool nodes against the Microsoft Graph stand-in
// (test/standin/microsoft-graph.mjs, MICROSOFT_GRAPH_BASE_URL): in a Tool Agent through POST
// /prediction (the scripted model calls the tools), and built from the tools registry with a run
// context for every operation (method, path, query and body Graph receives; the answer the model
// reads). The credential is an OAuth2 one stored through POST /credentials: its access token is
// sent as the bearer, an expired one is refreshed at the token endpoint first (test/standin/oauth2.mjs).
// Failures: Graph's errors as tool errors without the token, bad node config and a private
// MICROSOFT_GRAPH_BASE_URL as 400s, a credential's <tenantId> placeholder refused at authorize.
import type { StructuredToolInterface } from "@langchain/core/tools";
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildTool } from "../../src/engine/tools/registry";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, runtimeWith } from "./helpers";

const graph = () => inject("microsoftGraphUrl");
const oauth = () => inject("oauth2Url");
const FUTURE = () => new Date(Date.now() + 3600_000).toISOString();

type Received = { method: string; path: string; query: Record<string, string>; authorization: string; body: any };
const received = async (m: string): Promise<Received[]> => (await fetch(`${graph()}/requests?contains=${encodeURIComponent(m)}`)).json();

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

/** An authorized OAuth2 credential of `type` whose access token holds the test's marker. */
const tokenCredential = async (type: string, m: string) =>
  (
    await json("POST", "/credentials", {
      body: { name: `ms ${m}`, credentialName: type, plainDataObj: { access_token: `graph-${m}`, expires_at: FUTURE() } },
    })
  ).id as string;

/** A Tool Agent with one Microsoft node, saved; answers its id. */
async function saveAgent(name: string, inputs: Record<string, unknown>, credentialId?: string): Promise<string> {
  restore?.();
  restore = setVars({ MICROSOFT_GRAPH_BASE_URL: graph() });
  const openai = await credential("openAIApi", { openAIApiKey: "sk-ms-tools" });
  const flow = JSON.parse(
    toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [{ id: `${name}_0`, name, inputs }] }),
  );
  if (credentialId) flow.nodes.find((n: { id: string }) => n.id === `${name}_0`).data.credential = credentialId;
  return (await json("POST", "/chatflows", { body: { name: `ms ${name}`, flowData: JSON.stringify(flow) } })).id;
}
const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

/** The node's tools built from the registry with a run context on the stand-in. */
async function toolsOf(name: string, inputs: Record<string, unknown>, env: Record<string, string> = {}) {
  const ctx = makeCtx("q", { runtime: runtimeWith({ MICROSOFT_GRAPH_BASE_URL: graph(), ...env } as never) });
  const built = await buildTool(name, inputs, { ctx, label: `${name} (${name}_0)` });
  const list = Array.isArray(built) ? built : [built];
  return new Map(list.map((t) => [t.name, t as StructuredToolInterface]));
}
const run = async (tools: Map<string, StructuredToolInterface>, name: string, args: Record<string, unknown>) =>
  JSON.parse((await tools.get(name)!.invoke(args)) as string);

describe("microsoftOutlook in a Tool Agent through POST /prediction", () => {
  it("calendar: list_calendars sends GET /me/calendars?$top with the bearer token; Graph's JSON reaches the model", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const id = await saveAgent("microsoftOutlook", { outlookType: "calendar", calendarActions: '["listCalendars","createEvent"]' }, cred);
    const answer = await predict(id, `Calendars ${m} ${callOf("list_calendars", { maxResults: 1 })}`);
    expect(answer.text).toBe(`tools said: {"@odata.context":"standin","value":[{"id":"calendar-1","name":"Calendar"}]}`);
    const [req, ...more] = await received(m);
    expect(more).toHaveLength(0);
    expect(req).toMatchObject({ method: "GET", path: "/me/calendars", query: { $top: "1" }, authorization: `Bearer graph-${m}` });
  });

  it("calendar: create_event sends Flowise's event body (HTML body, time zone UTC, attendees); the created event is the answer", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const id = await saveAgent("microsoftOutlook", { outlookType: "calendar", calendarActions: ["createEvent"] }, cred);
    const args = {
      subject: `Review ${m}`,
      startDateTime: "2026-01-15T10:00:00",
      endDateTime: "2026-01-15T11:00:00",
      attendees: "a@x.com, b@x.com",
    };
    const answer = await predict(id, `Book ${m} ${callOf("create_event", args)}`);
    const body = {
      subject: `Review ${m}`,
      body: { contentType: "HTML", content: "" },
      start: { dateTime: "2026-01-15T10:00:00", timeZone: "UTC" },
      end: { dateTime: "2026-01-15T11:00:00", timeZone: "UTC" },
      attendees: [{ emailAddress: { address: "a@x.com", name: "a@x.com" } }, { emailAddress: { address: "b@x.com", name: "b@x.com" } }],
    };
    expect(JSON.parse(answer.text.replace(/^tools said: /, ""))).toEqual({ id: "event-new", ...body });
    const [req] = await received(m);
    expect(req).toMatchObject({ method: "POST", path: "/me/events", body });
  });

  it("an expired token is refreshed at the credential's token endpoint; Graph gets the new one", async () => {
    const m = marker();
    const plainDataObj = {
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      accessTokenUrl: `${oauth()}/token`,
      access_token: `at-old-${m}`,
      refresh_token: `rt-${m}`,
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    };
    const cred = (await json("POST", "/credentials", { body: { name: `ms ${m}`, credentialName: "microsoftOutlookOAuth2", plainDataObj } }))
      .id;
    const id = await saveAgent("microsoftOutlook", { outlookType: "message", messageActions: '["sendMessage"]' }, cred);
    const answer = await predict(id, `Mail ${m} ${callOf("send_message", { to: "x@y.com", subject: `Hi ${m}`, body: "<b>hello</b>" })}`);
    expect(answer.text).toBe("tools said: Message sent successfully");
    const [req] = await received(m);
    expect(req.authorization).toMatch(/^Bearer at-refreshed-\d+$/);
    expect(req).toMatchObject({
      method: "POST",
      path: "/me/sendMail",
      body: {
        message: {
          subject: `Hi ${m}`,
          body: { contentType: "HTML", content: "<b>hello</b>" },
          toRecipients: [{ emailAddress: { address: "x@y.com", name: "x@y.com" } }],
        },
        saveToSentItems: true,
      },
    });
  });

  it("Graph's errors are tool errors the model reads, without the token; a bad token is Graph's 401", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const id = await saveAgent("microsoftOutlook", { outlookType: "message", messageActions: '["getMessage"]' }, cred);
    const missing = await predict(id, `Get ${m} ${callOf("get_message", { messageId: `missing-${m}` })}`);
    expect(missing.text).toBe(
      "tools said: Error: Error getting message: Microsoft Graph answered 404: The specified object was not found in the store.",
    );
    const echoed = await predict(id, `Get ${m} ${callOf("get_message", { messageId: `echo-token-${m}` })}`);
    expect(echoed.text).toMatch(/^tools said: Error: Error getting message: Microsoft Graph answered 403: Access denied for Bearer/);
    expect(echoed.text).not.toContain(`graph-${m}`);
    const bad = (
      await json("POST", "/credentials", {
        body: { name: "bad", credentialName: "microsoftOutlookOAuth2", plainDataObj: { access_token: `bad-${m}`, expires_at: FUTURE() } },
      })
    ).id;
    const badId = await saveAgent("microsoftOutlook", { outlookType: "message", messageActions: '["getMessage"]' }, bad);
    const unauthorized = await predict(badId, `Get ${m} ${callOf("get_message", { messageId: "message-1" })}`);
    expect(unauthorized.text).toBe(
      "tools said: Error: Error getting message: Microsoft Graph answered 401: IDX14100: JWT is not well formed.",
    );
  });

  it("bad config is a 400: no type, no action, an unknown action, no credential; a private MICROSOFT_GRAPH_BASE_URL", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const cases: Array<[Record<string, unknown>, RegExp, string | undefined]> = [
      [{ calendarActions: '["listCalendars"]' }, /set outlookType to one of calendar, message/, cred],
      [{ outlookType: "message" }, /choose at least one action in messageActions/, cred],
      [{ outlookType: "message", messageActions: '["listCalendars"]' }, /messageActions has unknown actions listCalendars/, cred],
      [{ outlookType: "calendar", calendarActions: '["listCalendars"]' }, /needs a microsoftOutlookOAuth2 credential/, undefined],
    ];
    for (const [inputs, message, c] of cases) {
      const id = await saveAgent("microsoftOutlook", inputs, c);
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: m } }), 400);
      expect(err.message).toMatch(message);
    }
    const id = await saveAgent("microsoftOutlook", { outlookType: "calendar", calendarActions: '["listCalendars"]' }, cred);
    restore?.();
    restore = setVars({ MICROSOFT_GRAPH_BASE_URL: "http://10.4.4.4/v1.0" });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: m } }), 400);
    expect(err.message).toMatch(/^MICROSOFT_GRAPH_BASE_URL refused by the outbound policy: 10\.4\.4\.4 is a private address/);
    expect(await received(m)).toEqual([]);
  });

  it("authorize refuses the credential type's <tenantId> default with a 400 naming it", async () => {
    for (const type of ["microsoftOutlookOAuth2", "microsoftTeamsOAuth2"]) {
      const body = { name: "tenant", credentialName: type, plainDataObj: { clientId: "app-id", clientSecret: "app-secret" } };
      const { id } = await json("POST", "/credentials", { body });
      const err = await expectError(await call("POST", `/oauth2-credential/authorize/${id}`), 400);
      expect(err.message).toContain("<tenantId>");
    }
  });
});

describe("microsoftOutlook's operations, built from the registry", () => {
  it("every calendar action: Graph's paths, queries and bodies; Flowise's answers", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const all = [
      "listCalendars",
      "getCalendar",
      "createCalendar",
      "updateCalendar",
      "deleteCalendar",
      "listEvents",
      "getEvent",
      "createEvent",
      "updateEvent",
      "deleteEvent",
    ];
    const tools = await toolsOf("microsoftOutlook", { credential: cred, outlookType: "calendar", calendarActions: all });
    expect([...tools.keys()]).toEqual([
      "list_calendars",
      "get_calendar",
      "create_calendar",
      "update_calendar",
      "delete_calendar",
      "list_events",
      "get_event",
      "create_event",
      "update_event",
      "delete_event",
    ]);
    expect(await run(tools, "get_calendar", { calendarId: `c-${m}` })).toEqual({ id: `c-${m}`, name: `Calendar c-${m}` });
    expect(await run(tools, "create_calendar", { calendarName: `Trips ${m}` })).toEqual({ id: "calendar-new", name: `Trips ${m}` });
    expect(await run(tools, "update_calendar", { calendarId: `c-${m}`, calendarName: "New" })).toEqual({ id: `c-${m}`, name: "New" });
    expect(await tools.get("delete_calendar")!.invoke({ calendarId: `c-${m}` })).toBe(`Calendar c-${m} deleted successfully`);
    await run(tools, "list_events", { calendarId: `c-${m}`, startDateTime: "2026-01-01T00:00:00Z", endDateTime: "2026-02-01T00:00:00Z" });
    await run(tools, "list_events", { maxResults: 5 });
    expect(await run(tools, "update_event", { eventId: `e-${m}`, subject: "Moved" })).toEqual({ id: `e-${m}`, subject: "Moved" });
    expect(await tools.get("delete_event")!.invoke({ eventId: `e-${m}` })).toBe(`Event e-${m} deleted successfully`);
    const seen = (await received(m)).map((r) => [r.method, r.path, r.query, r.body]);
    expect(seen).toEqual([
      ["GET", `/me/calendars/c-${m}`, {}, undefined],
      ["POST", "/me/calendars", {}, { name: `Trips ${m}` }],
      ["PATCH", `/me/calendars/c-${m}`, {}, { name: "New" }],
      ["DELETE", `/me/calendars/c-${m}`, {}, undefined],
      [
        "GET",
        `/me/calendars/c-${m}/events`,
        { $top: "50", $filter: "start/dateTime ge '2026-01-01T00:00:00Z' and end/dateTime le '2026-02-01T00:00:00Z'" },
        undefined,
      ],
      ["GET", "/me/events", { $top: "5" }, undefined],
      ["PATCH", `/me/events/e-${m}`, {}, { subject: "Moved" }],
      ["DELETE", `/me/events/e-${m}`, {}, undefined],
    ]);
  });

  it("every message action; a filled node input fixes its argument (optional for the model)", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const all = [
      "listMessages",
      "getMessage",
      "createDraftMessage",
      "sendMessage",
      "updateMessage",
      "deleteMessage",
      "copyMessage",
      "moveMessage",
      "replyMessage",
      "forwardMessage",
    ];
    const tools = await toolsOf("microsoftOutlook", {
      credential: cred,
      outlookType: "message",
      messageActions: JSON.stringify(all),
      messageIdGetMessage: `fixed-${m}`,
      maxResultsListMessages: "7",
    });
    expect(tools.size).toBe(10);
    expect(await run(tools, "get_message", {})).toEqual({ id: `fixed-${m}`, subject: `Message fixed-${m}` });
    expect(await run(tools, "get_message", { messageId: "other" })).toMatchObject({ id: `fixed-${m}` });
    await run(tools, "list_messages", { maxResults: 2, filter: `subject eq '${m}'` });
    const draft = await run(tools, "create_draft_message", { to: "a@x.com", subject: m, cc: "c@x.com" });
    expect(draft).toMatchObject({ id: "draft-new", isDraft: true, bccRecipients: [] });
    expect(await run(tools, "update_message", { messageId: `g-${m}`, isRead: true })).toEqual({ id: `g-${m}`, isRead: true });
    expect(await tools.get("delete_message")!.invoke({ messageId: `g-${m}` })).toBe(`Message g-${m} deleted successfully`);
    expect(await run(tools, "copy_message", { messageId: `g-${m}`, destinationFolderId: "archive" })).toEqual({
      id: `copy-of-g-${m}`,
      parentFolderId: "archive",
    });
    expect(await run(tools, "move_message", { messageId: `g-${m}`, destinationFolderId: "inbox" })).toEqual({
      id: `move-of-g-${m}`,
      parentFolderId: "inbox",
    });
    expect(await tools.get("reply_message")!.invoke({ messageId: `g-${m}`, replyBody: "Thanks" })).toBe("Reply sent successfully");
    expect(await tools.get("forward_message")!.invoke({ messageId: `g-${m}`, forwardTo: "z@x.com" })).toBe(
      "Message forwarded successfully",
    );
    const seen = (await received(m)).map((r) => [r.method, r.path, r.query, r.body]);
    expect(seen).toEqual([
      ["GET", `/me/messages/fixed-${m}`, {}, undefined],
      ["GET", `/me/messages/fixed-${m}`, {}, undefined],
      ["GET", "/me/messages", { $top: "7", $filter: `subject eq '${m}'` }, undefined],
      [
        "POST",
        "/me/messages",
        {},
        {
          subject: m,
          body: { contentType: "HTML", content: "" },
          toRecipients: [{ emailAddress: { address: "a@x.com", name: "a@x.com" } }],
          ccRecipients: [{ emailAddress: { address: "c@x.com", name: "c@x.com" } }],
          bccRecipients: [],
        },
      ],
      ["PATCH", `/me/messages/g-${m}`, {}, { isRead: true }],
      ["DELETE", `/me/messages/g-${m}`, {}, undefined],
      ["POST", `/me/messages/g-${m}/copy`, {}, { destinationId: "archive" }],
      ["POST", `/me/messages/g-${m}/move`, {}, { destinationId: "inbox" }],
      ["POST", `/me/messages/g-${m}/reply`, {}, { comment: "Thanks" }],
      [
        "POST",
        `/me/messages/g-${m}/forward`,
        {},
        { toRecipients: [{ emailAddress: { address: "z@x.com", name: "z@x.com" } }], comment: "" },
      ],
    ]);
  });
});

describe("microsoftTeams", () => {
  it("in a Tool Agent: send_message to a channel (teamId given) answers Flowise's JSON with Graph's message", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", m);
    const id = await saveAgent(
      "microsoftTeams",
      { teamsType: "chatMessage", chatMessageActions: '["sendMessage"]', teamIdSendMessage: `team-${m}` },
      cred,
    );
    const answer = await predict(id, `Post ${m} ${callOf("send_message", { chatChannelId: "general", messageBody: `Hello ${m}` })}`);
    const body = { body: { contentType: "text", content: `Hello ${m}` } };
    expect(JSON.parse(answer.text.replace(/^tools said: /, ""))).toEqual({
      success: true,
      message: { id: "sent-in-general", ...body },
      context: "channel",
      messageText: "Message sent successfully",
    });
    const [req] = await received(m);
    expect(req).toMatchObject({
      method: "POST",
      path: `/teams/team-${m}/channels/general/messages`,
      authorization: `Bearer graph-${m}`,
      body,
    });
  });

  it("every channel action", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", m);
    const all = [
      "listChannels",
      "getChannel",
      "createChannel",
      "updateChannel",
      "deleteChannel",
      "archiveChannel",
      "unarchiveChannel",
      "listChannelMembers",
      "addChannelMember",
      "removeChannelMember",
    ];
    const tools = await toolsOf("microsoftTeams", { credential: cred, teamsType: "channel", channelActions: all });
    const t = `t-${m}`;
    const listed = await run(tools, "list_channels", { teamId: t, maxResults: 2 });
    expect(listed).toMatchObject({ success: true, count: 2, total: 3 });
    expect(listed.channels.map((c: { id: string }) => c.id)).toEqual([`general-${t}`, `random-${t}`]);
    expect(await run(tools, "get_channel", { teamId: t, channelId: "c1" })).toEqual({
      success: true,
      channel: { id: "c1", displayName: "Channel c1", team: t },
    });
    expect(await run(tools, "create_channel", { teamId: t, displayName: "Ops" })).toEqual({
      success: true,
      channel: { id: "channel-new", displayName: "Ops", membershipType: "standard" },
      message: 'Channel "Ops" created successfully',
    });
    expect(await run(tools, "update_channel", { teamId: t, channelId: "c1", description: "d" })).toEqual({
      success: true,
      message: "Channel updated successfully",
    });
    expect(await run(tools, "delete_channel", { teamId: t, channelId: "c1" })).toEqual({
      success: true,
      message: "Channel deleted successfully",
    });
    expect(await run(tools, "archive_channel", { teamId: t, channelId: "c1" })).toEqual({
      success: true,
      message: "Channel archived successfully",
    });
    expect(await run(tools, "unarchive_channel", { teamId: t, channelId: "c1" })).toEqual({
      success: true,
      message: "Channel unarchived successfully",
    });
    expect(await run(tools, "list_channel_members", { teamId: t, channelId: "c1" })).toEqual({
      success: true,
      members: [{ id: "membership-c1", userId: "user-c1" }],
      count: 1,
    });
    expect(await run(tools, "add_channel_member", { teamId: t, channelId: "c1", userId: "u9" })).toEqual({
      success: true,
      message: "Member added to channel successfully",
    });
    expect(await run(tools, "remove_channel_member", { teamId: t, channelId: "c1", userId: "user-c1" })).toEqual({
      success: true,
      message: "Member removed from channel successfully",
    });
    await expect(tools.get("remove_channel_member")!.invoke({ teamId: t, channelId: "c1", userId: "nobody" })).rejects.toThrow(
      "Error removing channel member: User is not a member of this channel",
    );
    const seen = (await received(m)).map((r) => [r.method, r.path.replace(`/teams/${t}/channels`, "~"), r.body]);
    expect(seen).toEqual([
      ["GET", "~", undefined],
      ["GET", "~/c1", undefined],
      ["POST", "~", { displayName: "Ops", membershipType: "standard" }],
      ["PATCH", "~/c1", { description: "d" }],
      ["DELETE", "~/c1", undefined],
      ["POST", "~/c1/archive", {}],
      ["POST", "~/c1/unarchive", {}],
      ["GET", "~/c1/members", undefined],
      [
        "POST",
        "~/c1/members",
        { "@odata.type": "#microsoft.graph.aadUserConversationMember", "user@odata.bind": "https://graph.microsoft.com/v1.0/users('u9')" },
      ],
      ["GET", "~/c1/members", undefined],
      ["DELETE", "~/c1/members/membership-c1", undefined],
      ["GET", "~/c1/members", undefined],
    ]);
  });

  it("every chat action; unpin finds the pin by its message ($expand=message)", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", m);
    const all = [
      "listChats",
      "getChat",
      "createChat",
      "updateChat",
      "deleteChat",
      "listChatMembers",
      "addChatMember",
      "removeChatMember",
      "pinMessage",
      "unpinMessage",
    ];
    const tools = await toolsOf("microsoftTeams", { credential: cred, teamsType: "chat", chatActions: all, chatIdPinMessage: `chat-${m}` });
    const c = `chat-${m}`;
    expect(await run(tools, "list_chats", {})).toMatchObject({ success: true, count: 1 });
    expect(await run(tools, "get_chat", { chatId: c })).toEqual({ success: true, chat: { id: c, topic: `Chat ${c}` } });
    const created = await run(tools, "create_chat", { members: "u1, u2", topic: `Plan ${m}` });
    expect(created).toMatchObject({
      success: true,
      message: "Chat created successfully",
      chat: { id: "chat-new", chatType: "group", topic: `Plan ${m}` },
    });
    expect(await run(tools, "update_chat", { chatId: c, topic: "T" })).toEqual({ success: true, message: "Chat updated successfully" });
    expect(await run(tools, "delete_chat", { chatId: c })).toEqual({ success: true, message: "Chat deleted successfully" });
    expect(await run(tools, "list_chat_members", { chatId: c })).toMatchObject({ count: 1 });
    expect(await run(tools, "add_chat_member", { chatId: c, userId: "u3" })).toEqual({
      success: true,
      message: "Member added to chat successfully",
    });
    expect(await run(tools, "remove_chat_member", { chatId: c, userId: `user-${c}` })).toEqual({
      success: true,
      message: "Member removed from chat successfully",
    });
    expect(await run(tools, "pin_message", { messageId: "m1" })).toEqual({ success: true, message: "Message pinned successfully" });
    expect(await run(tools, "unpin_message", { messageId: `msg-${c}` })).toEqual({
      success: true,
      message: "Message unpinned successfully",
    });
    const seen = (await received(m)).map((r) => [r.method, r.path, r.query, r.body]);
    const member = (u: string) => ({
      "@odata.type": "#microsoft.graph.aadUserConversationMember",
      "user@odata.bind": `https://graph.microsoft.com/v1.0/users('${u}')`,
    });
    expect(seen).toEqual([
      ["GET", "/me/chats", { $top: "50" }, undefined],
      ["GET", `/chats/${c}`, {}, undefined],
      ["POST", "/chats", {}, { chatType: "group", members: [member("u1"), member("u2")], topic: `Plan ${m}` }],
      ["PATCH", `/chats/${c}`, {}, { topic: "T" }],
      ["DELETE", `/chats/${c}`, {}, undefined],
      ["GET", `/chats/${c}/members`, {}, undefined],
      ["POST", `/chats/${c}/members`, {}, member("u3")],
      ["GET", `/chats/${c}/members`, {}, undefined],
      ["DELETE", `/chats/${c}/members/membership-${c}`, {}, undefined],
      [
        "POST",
        `/chats/${c}/pinnedMessages`,
        {},
        { message: { "@odata.bind": `https://graph.microsoft.com/v1.0/chats('${c}')/messages('m1')` } },
      ],
      ["GET", `/chats/${c}/pinnedMessages`, { $expand: "message" }, undefined],
      ["DELETE", `/chats/${c}/pinnedMessages/pin-${c}`, {}, undefined],
    ]);
  });

  it("every chat message action, in a chat and in a channel; a missing id is Flowise's error", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", m);
    const all = [
      "listMessages",
      "getMessage",
      "sendMessage",
      "updateMessage",
      "deleteMessage",
      "replyToMessage",
      "setReaction",
      "unsetReaction",
      "getAllMessages",
    ];
    const tools = await toolsOf("microsoftTeams", {
      credential: cred,
      teamsType: "chatMessage",
      chatMessageActions: all,
      reactionTypeSetReaction: "heart",
    });
    const c = `c-${m}`;
    expect(await run(tools, "list_messages", { chatChannelId: c, maxResults: 3 })).toEqual({
      success: true,
      messages: [{ id: `msg-${c}`, body: { content: "hi" } }],
      count: 1,
      context: "chat",
    });
    expect(await run(tools, "get_message", { chatChannelId: c, teamId: `t-${m}`, messageId: "x1" })).toEqual({
      success: true,
      message: { id: "x1", chatOrChannel: c },
      context: "channel",
    });
    expect(await run(tools, "update_message", { chatChannelId: c, messageId: "x1" })).toEqual({
      success: true,
      message: "Message updated successfully",
      context: "chat",
    });
    expect(await run(tools, "delete_message", { chatChannelId: c, messageId: "x1" })).toMatchObject({
      message: "Message deleted successfully",
    });
    expect(await run(tools, "reply_to_message", { chatChannelId: c, messageId: "x1", replyBody: "ok" })).toMatchObject({
      reply: { id: `sent-in-${c}` },
      context: "chat",
    });
    expect(await run(tools, "reply_to_message", { chatChannelId: c, teamId: `t-${m}`, messageId: "x1", replyBody: "ok" })).toMatchObject({
      reply: { id: "reply-to-x1" },
    });
    expect(await run(tools, "set_reaction", { chatChannelId: c, messageId: "x1", reactionType: "sad" })).toEqual({
      success: true,
      message: 'Reaction "heart" set successfully',
      context: "chat",
    });
    expect(await run(tools, "unset_reaction", { chatChannelId: c, messageId: "x1" })).toMatchObject({
      message: 'Reaction "like" removed successfully',
    });
    await expect(tools.get("get_message")!.invoke({ chatChannelId: "", messageId: "x" })).rejects.toThrow(
      "Chat/Channel ID and Message ID are required",
    );
    const seen = (await received(m)).map((r) => [r.method, r.path, r.query, r.body]);
    const reply = { body: { contentType: "text", content: "ok" } };
    expect(seen).toEqual([
      ["GET", `/chats/${c}/messages`, { $top: "3" }, undefined],
      ["GET", `/teams/t-${m}/channels/${c}/messages/x1`, {}, undefined],
      ["PATCH", `/chats/${c}/messages/x1`, {}, { policyViolation: null }],
      ["POST", `/chats/${c}/messages/x1/softDelete`, {}, {}],
      ["POST", `/chats/${c}/messages`, {}, reply],
      ["POST", `/teams/t-${m}/channels/${c}/messages/x1/replies`, {}, reply],
      ["POST", `/chats/${c}/messages/x1/setReaction`, {}, { reactionType: "heart" }],
      ["POST", `/chats/${c}/messages/x1/unsetReaction`, {}, { reactionType: "like" }],
    ]);
    const everything = await run(tools, "get_all_messages", { maxResults: 1 });
    expect(everything).toEqual({
      success: true,
      messages: [{ id: "all-1", body: { content: "hi" } }],
      count: 1,
      source: "all_chats_and_channels",
    });
  });
});

describe("Graph's documented ranges and paging (the stand-in refuses what Graph refuses)", () => {
  const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

  it("list_messages past 1000: $top 1000, then @odata.nextLink (its query kept) until maxResults; a model's filter as sent", async () => {
    const m = `many-1003-${marker()}`;
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const tools = await toolsOf("microsoftOutlook", { credential: cred, outlookType: "message", messageActions: ["listMessages"] });
    const listed = await run(tools, "list_messages", { maxResults: 1002, filter: "from/emailAddress/address eq 'o''brien@x.com'" });
    expect(listed.value).toHaveLength(1002);
    expect(listed.value.at(-1).id).toBe("message-1-1002");
    expect(listed["@odata.nextLink"]).toBeUndefined();
    const filter = "from/emailAddress/address eq 'o''brien@x.com'";
    expect((await received(m)).map((r) => r.query)).toEqual([
      { $top: "1000", $filter: filter },
      { $top: "1000", $filter: filter, $skiptoken: "1000" },
    ]);
    // A filter Graph cannot parse is its 400, for the model to read.
    await expect(tools.get("list_messages")!.invoke({ filter: "subject eq 'O'Brien'" })).rejects.toThrow(
      /^Error listing messages: Microsoft Graph answered 400: Invalid filter clause/,
    );
  });

  it("list_events: a quote inside a date is doubled in the OData literal; maxResults 0 sends no $top (Graph's page)", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const tools = await toolsOf("microsoftOutlook", { credential: cred, outlookType: "calendar", calendarActions: ["listEvents"] });
    const listed = await run(tools, "list_events", { calendarId: `c-${m}`, startDateTime: "2026-01-01T00:00:00'", maxResults: 0 });
    expect(ids(listed.value)).toEqual([`event-in-c-${m}`]);
    const [req] = await received(m);
    expect(req.query).toEqual({ $filter: "start/dateTime ge '2026-01-01T00:00:00'''" });
  });

  it("Teams: a channel's messages page by 50 ($top over 50 is Graph's 400); list_chats with maxResults 0 asks 50", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", `many-60-${m}`);
    const tools = await toolsOf("microsoftTeams", { credential: cred, teamsType: "chatMessage", chatMessageActions: ["listMessages"] });
    const c = `many-120-${m}`;
    const listed = await run(tools, "list_messages", { chatChannelId: c, teamId: `t-${m}`, maxResults: 110 });
    expect(listed.count).toBe(110);
    expect(listed.messages[109].id).toBe(`msg-${c}-110`);
    expect((await received(c)).map((r) => r.query)).toEqual([
      { $top: "50" },
      { $top: "50", $skiptoken: "50" },
      { $top: "50", $skiptoken: "100" },
    ]);
    const chats = await toolsOf("microsoftTeams", { credential: cred, teamsType: "chat", chatActions: ["listChats"] });
    expect((await run(chats, "list_chats", { maxResults: 0 })).count).toBe(50);
    expect((await run(chats, "list_chats", { maxResults: 55 })).chats.at(-1).id).toBe("chat-1-55");
    const asked = (await received(m)).filter((r) => r.path === "/me/chats").map((r) => r.query);
    expect(asked).toEqual([{ $top: "50" }, { $top: "50" }, { $top: "50", $skiptoken: "50" }]);
  });

  it("send_message and forward_message to a list with a trailing comma: the empty address is dropped, not sent", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftOutlookOAuth2", m);
    const actions = ["sendMessage", "forwardMessage"];
    const tools = await toolsOf("microsoftOutlook", { credential: cred, outlookType: "message", messageActions: actions });
    expect(await tools.get("send_message")!.invoke({ to: "ana@x.com, ", subject: `Hi ${m}`, body: "é ✓" })).toBe(
      "Message sent successfully",
    );
    expect(await tools.get("forward_message")!.invoke({ messageId: `m-${m}`, forwardTo: ",bo@x.com" })).toBe(
      "Message forwarded successfully",
    );
    const [sent, forwarded] = await received(m);
    expect(sent.body.message.toRecipients).toEqual([{ emailAddress: { address: "ana@x.com", name: "ana@x.com" } }]);
    expect(forwarded.body.toRecipients).toEqual([{ emailAddress: { address: "bo@x.com", name: "bo@x.com" } }]);
    // No address at all is Graph's refusal, read by the model.
    await expect(tools.get("send_message")!.invoke({ to: " , ", subject: m })).rejects.toThrow(
      /ErrorInvalidRecipients|recipient isn't valid/,
    );
  });

  it("members: a quote in a user id is doubled in users('…'); create_chat's trailing comma adds no empty member", async () => {
    const m = marker();
    const cred = await tokenCredential("microsoftTeamsOAuth2", m);
    const tools = await toolsOf("microsoftTeams", { credential: cred, teamsType: "chat", chatActions: ["createChat", "addChatMember"] });
    await run(tools, "add_chat_member", { chatId: `c-${m}`, userId: "o'neil@x.com" });
    await run(tools, "create_chat", { members: "u1, u2,", topic: m });
    const [added, created] = await received(m);
    expect(added.body["user@odata.bind"]).toBe("https://graph.microsoft.com/v1.0/users('o''neil@x.com')");
    expect(created.body.members.map((x: Record<string, string>) => x["user@odata.bind"])).toEqual([
      "https://graph.microsoft.com/v1.0/users('u1')",
      "https://graph.microsoft.com/v1.0/users('u2')",
    ]);
  });
});
