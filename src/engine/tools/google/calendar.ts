// Flowise's `googleCalendarTool` node (credential googleCalendarOAuth2): by `calendarType` (event,
// calendar, freebusy) the operations chosen in eventActions / calendarActions / freebusyActions, each
// a tool with Flowise's name, description and arguments, calling Calendar API v3 at
// {GOOGLE_CALENDAR_BASE_URL|https://www.googleapis.com}/calendar/v3/… with the credential's fresh
// token. Answers are Google's JSON as text; deletes and clear answer Flowise's "Event deleted
// successfully" (Flowise's own text is lost behind its appended arguments). The node's inputs fix
// arguments per operation (gmail-actions.ts): the event inputs (calendarId, eventId, summary, …,
// quickAddText, timeMin, timeMax, maxResults, singleEvents, orderBy, query) for event operations,
// calendarIdForCalendar / calendarSummary / calendarDescription / calendarLocation / calendarTimeZone,
// showHidden and minAccessRole for calendar ones, freebusyTimeMin / freebusyTimeMax / calendarIds /
// groupExpansionMax / calendarExpansionMax for freebusy. `allDay` is read by neither (start/end dates
// make an all-day event, as in Flowise).
import { z } from "zod";
import { type OAuth2Api, apiCall } from "../oauth2/api";
import type { ToolDeps } from "../types";
import { type Args, type NodeAction, type NodeSpec, nodeTools, seg } from "./gmail-actions";
import { readPages, wantedCount } from "./pages";
import { atMost, rfc3339 } from "./wire-values";

const V3 = "/calendar/v3";
const sendUpdates = z
  .enum(["all", "externalOnly", "none"])
  .optional()
  .default("all")
  .describe("Whether to send notifications to attendees");
const visibility = z.enum(["default", "public", "private", "confidential"]);
const calendarId = (what = "Calendar ID") => z.string().default("primary").describe(what);

const listEventsSchema = z.object({
  calendarId: calendarId('Calendar ID (use "primary" for primary calendar)'),
  timeMin: z.string().optional().describe("Lower bound for event search (RFC3339 timestamp)"),
  timeMax: z.string().optional().describe("Upper bound for event search (RFC3339 timestamp)"),
  maxResults: z.number().optional().default(250).describe("Maximum number of events to return"),
  singleEvents: z.boolean().optional().default(true).describe("Whether to expand recurring events into instances"),
  orderBy: z.enum(["startTime", "updated"]).optional().describe("Order of events returned"),
  query: z.string().optional().describe("Free text search terms"),
});
const createEventSchema = z.object({
  calendarId: calendarId("Calendar ID where the event will be created"),
  summary: z.string().describe("Event title/summary"),
  description: z.string().optional().describe("Event description"),
  location: z.string().optional().describe("Event location"),
  startDateTime: z.string().optional().describe("Event start time (ISO 8601 format)"),
  endDateTime: z.string().optional().describe("Event end time (ISO 8601 format)"),
  startDate: z.string().optional().describe("Start date for all-day events (YYYY-MM-DD)"),
  endDate: z.string().optional().describe("End date for all-day events (YYYY-MM-DD)"),
  timeZone: z.string().optional().describe("Time zone (e.g., America/New_York)"),
  attendees: z.string().optional().describe("Comma-separated list of attendee emails"),
  sendUpdates,
  recurrence: z.string().optional().describe("Recurrence rules (RRULE format)"),
  reminderMinutes: z.number().optional().describe("Minutes before event to send reminder"),
  visibility: visibility.optional().describe("Event visibility"),
});
const eventSchema = z.object({ calendarId: calendarId(), eventId: z.string().describe("Event ID") });
const updateEventSchema = z.object({
  calendarId: calendarId(),
  eventId: z.string().describe("Event ID"),
  summary: z.string().optional().describe("Updated event title/summary"),
  description: z.string().optional().describe("Updated event description"),
  location: z.string().optional().describe("Updated event location"),
  startDateTime: z.string().optional().describe("Updated event start time (ISO 8601 format)"),
  endDateTime: z.string().optional().describe("Updated event end time (ISO 8601 format)"),
  startDate: z.string().optional().describe("Updated start date for all-day events (YYYY-MM-DD)"),
  endDate: z.string().optional().describe("Updated end date for all-day events (YYYY-MM-DD)"),
  timeZone: z.string().optional().describe("Updated time zone"),
  attendees: z.string().optional().describe("Updated comma-separated list of attendee emails"),
  sendUpdates,
  recurrence: z.string().optional().describe("Updated recurrence rules"),
  reminderMinutes: z.number().optional().describe("Updated reminder minutes"),
  visibility: visibility.optional().describe("Updated event visibility"),
});
const calendarFields = {
  description: z.string().optional().describe("Calendar description"),
  location: z.string().optional().describe("Calendar location"),
  timeZone: z.string().optional().describe("Calendar time zone (e.g., America/New_York)"),
};
const calendarIdOnly = (what: string) => z.object({ calendarId: z.string().describe(what) });

/** An event's body from the arguments, as Flowise builds it (`summary` always on create). */
function eventBody(args: Args, create: boolean): Args {
  const body: Args = create ? { summary: args.summary } : {};
  if (!create && args.summary) body.summary = args.summary;
  if (args.description) body.description = args.description;
  if (args.location) body.location = args.location;
  if (args.startDate && args.endDate) {
    body.start = { date: args.startDate };
    body.end = { date: args.endDate };
  } else if (args.startDateTime && args.endDateTime) {
    body.start = { dateTime: args.startDateTime, timeZone: args.timeZone || "UTC" };
    body.end = { dateTime: args.endDateTime, timeZone: args.timeZone || "UTC" };
  }
  if (args.attendees)
    body.attendees = String(args.attendees)
      .split(",")
      .map((email) => ({ email: email.trim() }));
  if (args.recurrence) body.recurrence = [args.recurrence];
  if (args.reminderMinutes !== undefined)
    body.reminders = { useDefault: false, overrides: [{ method: "popup", minutes: args.reminderMinutes }] };
  if (args.visibility) body.visibility = args.visibility;
  return body;
}

const events = (args: Args) => `${V3}/calendars/${seg(args.calendarId)}/events`;
const eventAt = (args: Args) => `${events(args)}/${seg(args.eventId)}`;
const calendarAt = (args: Args) => `${V3}/calendars/${seg(args.calendarId)}`;
const done = (text: string) => async (p: Promise<unknown>) => {
  await p;
  return text;
};

const eventFields = {
  summary: "summary",
  description: "description",
  location: "location",
  startDateTime: "startDateTime",
  endDateTime: "endDateTime",
  timeZone: "timeZone",
  startDate: "startDate",
  endDate: "endDate",
  attendees: "attendees",
  sendUpdates: "sendUpdates",
  recurrence: "recurrence",
  reminderMinutes: ["reminderMinutes", "number"],
  visibility: "visibility",
} as const;
const inCalendar = { calendarId: "calendarId" };
const anEvent = { ...inCalendar, eventId: "eventId" };

const eventActions: NodeAction[] = [
  {
    option: "listEvents",
    tool: "list_events",
    description: "List events from Google Calendar",
    schema: listEventsSchema,
    fixed: {
      ...inCalendar,
      timeMin: "timeMin",
      timeMax: "timeMax",
      maxResults: ["maxResults", "number"],
      singleEvents: ["singleEvents", "boolean"],
      orderBy: "orderBy",
      query: "query",
    },
    failure: "Error listing events",
    run: (args, api) => {
      const { singleEvents, query } = args;
      // Calendar refuses orderBy=startTime unless singleEvents is true (400 "The requested ordering is not
      // available for the particular query"): the node's singleEvents=false wins, the ordering is dropped.
      const orderBy = args.orderBy === "startTime" && singleEvents !== true ? undefined : args.orderBy;
      return readPages(api, {
        path: events(args),
        query: { timeMin: rfc3339(args.timeMin), timeMax: rfc3339(args.timeMax), maxResults: undefined, singleEvents, orderBy, q: query },
        key: "items",
        sizeParam: "maxResults",
        cap: 2500,
        wanted: wantedCount(args.maxResults, 250),
      });
    },
  },
  {
    option: "createEvent",
    tool: "create_event",
    description: "Create a new event in Google Calendar",
    schema: createEventSchema,
    fixed: { ...inCalendar, ...eventFields },
    failure: "Error creating event",
    run: (args, api) =>
      apiCall(api, { method: "POST", path: events(args), query: { sendUpdates: args.sendUpdates }, body: eventBody(args, true) }),
  },
  {
    option: "getEvent",
    tool: "get_event",
    description: "Get a specific event from Google Calendar",
    schema: eventSchema,
    fixed: anEvent,
    failure: "Error getting event",
    run: (args, api) => apiCall(api, { path: eventAt(args) }),
  },
  {
    option: "updateEvent",
    tool: "update_event",
    description: "Update an existing event in Google Calendar",
    schema: updateEventSchema,
    fixed: { ...anEvent, ...eventFields },
    failure: "Error updating event",
    run: (args, api) =>
      apiCall(api, { method: "PUT", path: eventAt(args), query: { sendUpdates: args.sendUpdates }, body: eventBody(args, false) }),
  },
  {
    option: "deleteEvent",
    tool: "delete_event",
    description: "Delete an event from Google Calendar",
    schema: eventSchema.extend({ eventId: z.string().describe("Event ID to delete") }),
    fixed: anEvent,
    failure: "Error deleting event",
    run: (args, api) => done("Event deleted successfully")(apiCall(api, { method: "DELETE", path: eventAt(args) })),
  },
  {
    option: "quickAddEvent",
    tool: "quick_add_event",
    description: "Quick add event to Google Calendar using natural language",
    schema: z.object({ calendarId: calendarId(), quickAddText: z.string().describe("Natural language text for quick event creation") }),
    fixed: { ...inCalendar, quickAddText: "quickAddText" },
    failure: "Error quick adding event",
    run: (args, api) => apiCall(api, { method: "POST", path: `${events(args)}/quickAdd`, query: { text: args.quickAddText } }),
  },
];

const calendarFixed = {
  summary: "calendarSummary",
  description: "calendarDescription",
  location: "calendarLocation",
  timeZone: "calendarTimeZone",
};
const calendarBody = (args: Args, create: boolean): Args => ({
  ...(create || args.summary ? { summary: args.summary } : {}),
  ...(args.description ? { description: args.description } : {}),
  ...(args.location ? { location: args.location } : {}),
  ...(args.timeZone ? { timeZone: args.timeZone } : {}),
});
const theCalendar = { calendarId: "calendarIdForCalendar" };

const calendarActions: NodeAction[] = [
  {
    option: "listCalendars",
    tool: "list_calendars",
    description: "List calendars from Google Calendar",
    schema: z.object({
      showHidden: z.boolean().optional().describe("Whether to show hidden calendars"),
      minAccessRole: z.enum(["freeBusyReader", "reader", "writer", "owner"]).optional().describe("Minimum access role"),
    }),
    fixed: { showHidden: ["showHidden", "boolean"], minAccessRole: "minAccessRole" },
    failure: "Error listing calendars",
    run: (args, api) =>
      apiCall(api, { path: `${V3}/users/me/calendarList`, query: { showHidden: args.showHidden, minAccessRole: args.minAccessRole } }),
  },
  {
    option: "createCalendar",
    tool: "create_calendar",
    description: "Create a new calendar in Google Calendar",
    schema: z.object({ summary: z.string().describe("Calendar title/name"), ...calendarFields }),
    fixed: calendarFixed,
    failure: "Error creating calendar",
    run: (args, api) => apiCall(api, { method: "POST", path: `${V3}/calendars`, body: calendarBody(args, true) }),
  },
  {
    option: "getCalendar",
    tool: "get_calendar",
    description: "Get a specific calendar from Google Calendar",
    schema: calendarIdOnly("Calendar ID"),
    fixed: theCalendar,
    failure: "Error getting calendar",
    run: (args, api) => apiCall(api, { path: calendarAt(args) }),
  },
  {
    option: "updateCalendar",
    tool: "update_calendar",
    description: "Update an existing calendar in Google Calendar",
    schema: z.object({
      calendarId: z.string().describe("Calendar ID"),
      summary: z.string().optional().describe("Updated calendar title/name"),
      description: z.string().optional().describe("Updated calendar description"),
      location: z.string().optional().describe("Updated calendar location"),
      timeZone: z.string().optional().describe("Updated calendar time zone"),
    }),
    fixed: { ...theCalendar, ...calendarFixed },
    failure: "Error updating calendar",
    run: (args, api) => apiCall(api, { method: "PUT", path: calendarAt(args), body: calendarBody(args, false) }),
  },
  {
    option: "deleteCalendar",
    tool: "delete_calendar",
    description: "Delete a calendar from Google Calendar",
    schema: calendarIdOnly("Calendar ID to delete"),
    fixed: theCalendar,
    failure: "Error deleting calendar",
    run: (args, api) => done("Calendar deleted successfully")(apiCall(api, { method: "DELETE", path: calendarAt(args) })),
  },
  {
    option: "clearCalendar",
    tool: "clear_calendar",
    description: "Clear all events from a Google Calendar",
    schema: calendarIdOnly("Calendar ID to clear (removes all events)"),
    fixed: theCalendar,
    failure: "Error clearing calendar",
    run: (args, api) => done("Calendar cleared successfully")(apiCall(api, { method: "POST", path: `${calendarAt(args)}/clear` })),
  },
];

const freebusyActions: NodeAction[] = [
  {
    option: "queryFreebusy",
    tool: "query_freebusy",
    description: "Query free/busy information for a set of calendars",
    schema: z.object({
      timeMin: z.string().describe("Lower bound for freebusy query (RFC3339 timestamp)"),
      timeMax: z.string().describe("Upper bound for freebusy query (RFC3339 timestamp)"),
      calendarIds: z.string().describe("Comma-separated list of calendar IDs to check for free/busy info"),
      groupExpansionMax: z.number().optional().describe("Maximum number of calendars for which FreeBusy information is to be provided"),
      calendarExpansionMax: z.number().optional().describe("Maximum number of events that can be expanded for each calendar"),
    }),
    fixed: {
      timeMin: "freebusyTimeMin",
      timeMax: "freebusyTimeMax",
      calendarIds: "calendarIds",
      groupExpansionMax: ["groupExpansionMax", "number"],
      calendarExpansionMax: ["calendarExpansionMax", "number"],
    },
    failure: "Error querying freebusy",
    run: (args, api: OAuth2Api) => {
      const body: Args = {
        timeMin: rfc3339(args.timeMin),
        timeMax: rfc3339(args.timeMax),
        items: String(args.calendarIds ?? "")
          .split(",")
          .map((id) => ({ id: id.trim() })),
      };
      if (args.groupExpansionMax !== undefined) body.groupExpansionMax = atMost(args.groupExpansionMax, 100);
      if (args.calendarExpansionMax !== undefined) body.calendarExpansionMax = atMost(args.calendarExpansionMax, 50);
      return apiCall(api, { method: "POST", path: `${V3}/freeBusy`, body });
    },
  },
];

const CALENDAR: NodeSpec = {
  service: "Google Calendar",
  credentialName: "googleCalendarOAuth2",
  typeInput: "calendarType",
  types: {
    event: { input: "eventActions", actions: eventActions },
    calendar: { input: "calendarActions", actions: calendarActions },
    freebusy: { input: "freebusyActions", actions: freebusyActions },
  },
  baseVar: "GOOGLE_CALENDAR_BASE_URL",
  host: "https://www.googleapis.com",
};

export const googleCalendarTools = async (inputs: Record<string, unknown>, deps: ToolDeps) => nodeTools(CALENDAR, inputs, deps);
