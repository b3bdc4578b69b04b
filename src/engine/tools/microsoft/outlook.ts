// microsoftOutlook (credential microsoftOutlookOAuth2): Flowise's calendar and message actions over
// Microsoft Graph's /me/calendars, /me/events, /me/messages and /me/sendMail. Each tool answers as
// Flowise's does: Graph's JSON for reads, creates, updates, copies and moves; a sentence for
// deletes, sends, replies and forwards.
import { z } from "zod";
import type { ToolDeps } from "../types";
import { apiCall } from "../oauth2/api";
import { type GraphAction, type GraphNode, graphTools, listPages, odataString, recipients, seg, wanted } from "./graph";

/** /me/messages pages hold 1 to 1000 messages ($top outside is a 400); more are read over @odata.nextLink. */
const MESSAGES_PAGE = 1000;

const maxResults = (what: string) => z.number().optional().default(50).describe(`Maximum number of ${what} to return`);
const id = (description: string) => z.string().describe(description);
const html = (content: string | undefined) => ({ contentType: "HTML", content: content || "" });

const calendarActions: GraphAction[] = [
  {
    option: "listCalendars",
    name: "list_calendars",
    description: "List calendars in Microsoft Outlook",
    schema: z.object({ maxResults: maxResults("calendars") }),
    inputs: { maxResults: "maxResultsListCalendars" },
    doing: "listing calendars",
    run: (a, api) => listPages(api, "/me/calendars", wanted(a.maxResults)),
  },
  {
    option: "getCalendar",
    name: "get_calendar",
    description: "Get a specific calendar by ID from Microsoft Outlook",
    schema: z.object({ calendarId: id("ID of the calendar to retrieve") }),
    inputs: { calendarId: "calendarIdGetCalendar" },
    doing: "getting calendar",
    run: (a, api) => apiCall(api, { path: `/me/calendars/${seg(a.calendarId)}` }),
  },
  {
    option: "createCalendar",
    name: "create_calendar",
    description: "Create a new calendar in Microsoft Outlook",
    schema: z.object({ calendarName: z.string().describe("Name of the calendar") }),
    inputs: { calendarName: "calendarNameCreateCalendar" },
    doing: "creating calendar",
    run: (a, api) => apiCall(api, { method: "POST", path: "/me/calendars", body: { name: a.calendarName } }),
  },
  {
    option: "updateCalendar",
    name: "update_calendar",
    description: "Update a calendar in Microsoft Outlook",
    schema: z.object({ calendarId: id("ID of the calendar to update"), calendarName: z.string().describe("New name of the calendar") }),
    inputs: { calendarId: "calendarIdUpdateCalendar", calendarName: "calendarNameUpdateCalendar" },
    doing: "updating calendar",
    run: (a, api) => apiCall(api, { method: "PATCH", path: `/me/calendars/${seg(a.calendarId)}`, body: { name: a.calendarName } }),
  },
  {
    option: "deleteCalendar",
    name: "delete_calendar",
    description: "Delete a calendar from Microsoft Outlook",
    schema: z.object({ calendarId: id("ID of the calendar to delete") }),
    inputs: { calendarId: "calendarIdDeleteCalendar" },
    doing: "deleting calendar",
    run: async (a, api) => {
      await apiCall(api, { method: "DELETE", path: `/me/calendars/${seg(a.calendarId)}` });
      return `Calendar ${a.calendarId} deleted successfully`;
    },
  },
  {
    option: "listEvents",
    name: "list_events",
    description: "List events from Microsoft Outlook calendar",
    schema: z.object({
      calendarId: z.string().optional().describe("ID of the calendar (empty for primary calendar)"),
      maxResults: maxResults("events"),
      startDateTime: z.string().optional().describe("Start date time filter in ISO format"),
      endDateTime: z.string().optional().describe("End date time filter in ISO format"),
    }),
    inputs: {
      calendarId: "calendarIdListEvents",
      maxResults: "maxResultsListEvents",
      startDateTime: "startDateTimeListEvents",
      endDateTime: "endDateTimeListEvents",
    },
    doing: "listing events",
    run: (a, api) => {
      const filters = [
        a.startDateTime ? `start/dateTime ge ${odataString(a.startDateTime)}` : "",
        a.endDateTime ? `end/dateTime le ${odataString(a.endDateTime)}` : "",
      ].filter(Boolean);
      const path = a.calendarId ? `/me/calendars/${seg(a.calendarId)}/events` : "/me/events";
      return listPages(api, path, wanted(a.maxResults), { query: { $filter: filters.join(" and ") || undefined } });
    },
  },
  {
    option: "getEvent",
    name: "get_event",
    description: "Get a specific event by ID from Microsoft Outlook",
    schema: z.object({ eventId: id("ID of the event to retrieve") }),
    inputs: { eventId: "eventIdGetEvent" },
    doing: "getting event",
    run: (a, api) => apiCall(api, { path: `/me/events/${seg(a.eventId)}` }),
  },
  {
    option: "createEvent",
    name: "create_event",
    description: "Create a new event in Microsoft Outlook calendar",
    schema: z.object({
      subject: z.string().describe("Subject/title of the event"),
      body: z.string().optional().describe("Body/description of the event"),
      startDateTime: z.string().describe("Start date and time in ISO format"),
      endDateTime: z.string().describe("End date and time in ISO format"),
      timeZone: z.string().optional().default("UTC").describe("Time zone for the event"),
      location: z.string().optional().describe("Location of the event"),
      attendees: z.string().optional().describe("Comma-separated list of attendee email addresses"),
    }),
    inputs: {
      subject: "subjectCreateEvent",
      body: "bodyCreateEvent",
      startDateTime: "startDateTimeCreateEvent",
      endDateTime: "endDateTimeCreateEvent",
      timeZone: "timeZoneCreateEvent",
      location: "locationCreateEvent",
      attendees: "attendeesCreateEvent",
    },
    doing: "creating event",
    run: (a, api) => {
      const timeZone = a.timeZone || "UTC";
      const body = {
        subject: a.subject,
        body: html(a.body),
        start: { dateTime: a.startDateTime, timeZone },
        end: { dateTime: a.endDateTime, timeZone },
        location: a.location ? { displayName: a.location } : undefined,
        attendees: a.attendees ? recipients(a.attendees) : [],
      };
      return apiCall(api, { method: "POST", path: "/me/events", body });
    },
  },
  {
    option: "updateEvent",
    name: "update_event",
    description: "Update an event in Microsoft Outlook calendar",
    schema: z.object({
      eventId: id("ID of the event to update"),
      subject: z.string().optional().describe("New subject/title of the event"),
    }),
    inputs: { eventId: "eventIdUpdateEvent", subject: "subjectUpdateEvent" },
    doing: "updating event",
    run: (a, api) => apiCall(api, { method: "PATCH", path: `/me/events/${seg(a.eventId)}`, body: a.subject ? { subject: a.subject } : {} }),
  },
  {
    option: "deleteEvent",
    name: "delete_event",
    description: "Delete an event from Microsoft Outlook calendar",
    schema: z.object({ eventId: id("ID of the event to delete") }),
    inputs: { eventId: "eventIdDeleteEvent" },
    doing: "deleting event",
    run: async (a, api) => {
      await apiCall(api, { method: "DELETE", path: `/me/events/${seg(a.eventId)}` });
      return `Event ${a.eventId} deleted successfully`;
    },
  },
];

const messageId = (what: string) => id(`ID of the message to ${what}`);
const folder = () => z.string().describe("ID of the destination folder");

const messageActions: GraphAction[] = [
  {
    option: "listMessages",
    name: "list_messages",
    description: "List messages from Microsoft Outlook mailbox",
    schema: z.object({
      maxResults: maxResults("messages"),
      filter: z.string().optional().describe('Filter query (e.g., "isRead eq false")'),
    }),
    inputs: { maxResults: "maxResultsListMessages", filter: "filterListMessages" },
    doing: "listing messages",
    run: (a, api) => listPages(api, "/me/messages", wanted(a.maxResults), { pageCap: MESSAGES_PAGE, query: { $filter: a.filter } }),
  },
  {
    option: "getMessage",
    name: "get_message",
    description: "Get a specific message by ID from Microsoft Outlook",
    schema: z.object({ messageId: messageId("retrieve") }),
    inputs: { messageId: "messageIdGetMessage" },
    doing: "getting message",
    run: (a, api) => apiCall(api, { path: `/me/messages/${seg(a.messageId)}` }),
  },
  {
    option: "createDraftMessage",
    name: "create_draft_message",
    description: "Create a draft message in Microsoft Outlook",
    schema: z.object({
      to: z.string().describe("Recipient email address(es), comma-separated"),
      subject: z.string().optional().describe("Subject of the message"),
      body: z.string().optional().describe("Body content of the message"),
      cc: z.string().optional().describe("CC email address(es), comma-separated"),
      bcc: z.string().optional().describe("BCC email address(es), comma-separated"),
    }),
    inputs: {
      to: "toCreateDraftMessage",
      subject: "subjectCreateDraftMessage",
      body: "bodyCreateDraftMessage",
      cc: "ccCreateDraftMessage",
      bcc: "bccCreateDraftMessage",
    },
    doing: "creating draft message",
    run: (a, api) => {
      const body = {
        subject: a.subject || "",
        body: html(a.body),
        toRecipients: recipients(a.to),
        ccRecipients: a.cc ? recipients(a.cc) : [],
        bccRecipients: a.bcc ? recipients(a.bcc) : [],
      };
      return apiCall(api, { method: "POST", path: "/me/messages", body });
    },
  },
  {
    option: "sendMessage",
    name: "send_message",
    description: "Send a message via Microsoft Outlook",
    schema: z.object({
      to: z.string().describe("Recipient email address(es), comma-separated"),
      subject: z.string().optional().describe("Subject of the message"),
      body: z.string().optional().describe("Body content of the message"),
    }),
    inputs: { to: "toSendMessage", subject: "subjectSendMessage", body: "bodySendMessage" },
    doing: "sending message",
    run: async (a, api) => {
      const message = { subject: a.subject || "", body: html(a.body), toRecipients: recipients(a.to) };
      await apiCall(api, { method: "POST", path: "/me/sendMail", body: { message, saveToSentItems: true } });
      return "Message sent successfully";
    },
  },
  {
    option: "updateMessage",
    name: "update_message",
    description: "Update a message in Microsoft Outlook",
    schema: z.object({ messageId: messageId("update"), isRead: z.boolean().optional().describe("Mark message as read/unread") }),
    inputs: { messageId: "messageIdUpdateMessage", isRead: "isReadUpdateMessage" },
    doing: "updating message",
    run: (a, api) =>
      apiCall(api, {
        method: "PATCH",
        path: `/me/messages/${seg(a.messageId)}`,
        body: a.isRead === undefined ? {} : { isRead: a.isRead },
      }),
  },
  {
    option: "deleteMessage",
    name: "delete_message",
    description: "Delete a message from Microsoft Outlook",
    schema: z.object({ messageId: messageId("delete") }),
    inputs: { messageId: "messageIdDeleteMessage" },
    doing: "deleting message",
    run: async (a, api) => {
      await apiCall(api, { method: "DELETE", path: `/me/messages/${seg(a.messageId)}` });
      return `Message ${a.messageId} deleted successfully`;
    },
  },
  {
    option: "copyMessage",
    name: "copy_message",
    description: "Copy a message to another folder in Microsoft Outlook",
    schema: z.object({ messageId: messageId("copy"), destinationFolderId: folder() }),
    inputs: { messageId: "messageIdCopyMessage", destinationFolderId: "destinationFolderIdCopyMessage" },
    doing: "copying message",
    run: (a, api) =>
      apiCall(api, { method: "POST", path: `/me/messages/${seg(a.messageId)}/copy`, body: { destinationId: a.destinationFolderId } }),
  },
  {
    option: "moveMessage",
    name: "move_message",
    description: "Move a message to another folder in Microsoft Outlook",
    schema: z.object({ messageId: messageId("move"), destinationFolderId: folder() }),
    inputs: { messageId: "messageIdMoveMessage", destinationFolderId: "destinationFolderIdMoveMessage" },
    doing: "moving message",
    run: (a, api) =>
      apiCall(api, { method: "POST", path: `/me/messages/${seg(a.messageId)}/move`, body: { destinationId: a.destinationFolderId } }),
  },
  {
    option: "replyMessage",
    name: "reply_message",
    description: "Reply to a message in Microsoft Outlook",
    schema: z.object({ messageId: messageId("reply to"), replyBody: z.string().describe("Reply message body") }),
    inputs: { messageId: "messageIdReplyMessage", replyBody: "replyBodyReplyMessage" },
    doing: "replying to message",
    run: async (a, api) => {
      await apiCall(api, { method: "POST", path: `/me/messages/${seg(a.messageId)}/reply`, body: { comment: a.replyBody } });
      return "Reply sent successfully";
    },
  },
  {
    option: "forwardMessage",
    name: "forward_message",
    description: "Forward a message in Microsoft Outlook",
    schema: z.object({
      messageId: messageId("forward"),
      forwardTo: z.string().describe("Email address(es) to forward to, comma-separated"),
      forwardComment: z.string().optional().describe("Additional comment to include with forward"),
    }),
    inputs: { messageId: "messageIdForwardMessage", forwardTo: "forwardToForwardMessage", forwardComment: "forwardCommentForwardMessage" },
    doing: "forwarding message",
    run: async (a, api) => {
      const body = { toRecipients: recipients(a.forwardTo), comment: a.forwardComment || "" };
      await apiCall(api, { method: "POST", path: `/me/messages/${seg(a.messageId)}/forward`, body });
      return "Message forwarded successfully";
    },
  },
];

export const OUTLOOK: GraphNode = {
  node: "microsoftOutlook",
  credentialName: "microsoftOutlookOAuth2",
  typeInput: "outlookType",
  groups: {
    calendar: { input: "calendarActions", actions: calendarActions },
    message: { input: "messageActions", actions: messageActions },
  },
};

export const microsoftOutlookTools = async (inputs: Record<string, unknown>, deps: ToolDeps) => graphTools(OUTLOOK, inputs, deps);
