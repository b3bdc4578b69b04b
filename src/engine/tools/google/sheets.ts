// Flowise's Google Sheets tool (googleSheetsTool, credential googleSheetsOAuth2): a Type
// (spreadsheet, values) and its actions, each one tool, over Sheets API v4 (GOOGLE_SHEETS_BASE_URL,
// else https://sheets.googleapis.com; paths /v4/spreadsheets…):
//   create_spreadsheet, get_spreadsheet, update_spreadsheet (batchUpdate updateSpreadsheetProperties),
//   get_values, update_values, append_values, clear_values, batch_get_values, batch_update_values,
//   batch_clear_values. Values are JSON text the model writes ([["A1","B1"]]); answers are Sheets' JSON.
import { z } from "zod";
import { str } from "../../core/inputs";
import { type OAuth2Api, apiCall, chosenActions } from "../oauth2/api";
import { ToolCallError } from "../service";
import { type Args, type DefaultParam, action, googleFilesTool, seg, text } from "./drive-common";

const API = "/v4/spreadsheets";

const render = z
  .enum(["FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA"])
  .optional()
  .default("FORMATTED_VALUE")
  .describe("How values should be represented");
const dates = z
  .enum(["SERIAL_NUMBER", "FORMATTED_STRING"])
  .optional()
  .default("FORMATTED_STRING")
  .describe("How dates should be represented");
const dimension = (what: string) => z.enum(["ROWS", "COLUMNS"]).optional().default("ROWS").describe(what);
const inputOption = z.enum(["RAW", "USER_ENTERED"]).optional().default("USER_ENTERED").describe("How input data should be interpreted");
const spreadsheetId = z.string().describe("The ID of the spreadsheet");

/** A sheet name as A1 notation writes it: quoted, a quote inside doubled ('Jon''s Data'). */
const quoteSheet = (name: string) => `'${name.replace(/'/g, "''")}'`;

/**
 * An A1 range Sheets can parse: a sheet name with spaces, punctuation or non-ASCII letters must be
 * quoted (else 400 "Unable to parse range: My Sheet!A1"), so a name the model writes bare is quoted,
 * and a quoted one with a lone quote inside ('Jon's Data') has it doubled. Plain names stay as written.
 */
export function a1Range(range: string): string {
  const r = range.trim();
  if (/^'(?:[^']|'')*'(?:![^']*)?$/.test(r)) return r;
  const loose = /^'(.*)'(![^']*)?$/s.exec(r);
  if (loose) return `${quoteSheet(loose[1])}${loose[2] ?? ""}`;
  const bang = r.lastIndexOf("!");
  // No "!": a sheet name alone, unless it is cells (A1:B2) or a named range.
  if (bang < 0) return /^[A-Za-z0-9_:$]*$/.test(r) ? r : quoteSheet(r);
  const sheet = r.slice(0, bang);
  return /^[A-Za-z0-9_]+$/.test(sheet) ? r : `${quoteSheet(sheet)}${r.slice(bang)}`;
}

/** A comma list of ranges, each made parseable; a comma inside a quoted sheet name ('a, b'!A1) is not a separator. */
export function rangeList(value: unknown): string[] {
  const text = String(value ?? "");
  const ranges: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'" && !text.slice(start, i).trim()) {
      // The name ends at "'!" or at a quote before a comma or the end (a lone quote inside may be unescaped).
      const ends = [text.indexOf("'!", i + 1), text.slice(i + 1).search(/'\s*(,|$)/) + i + 1].filter((e) => e > i);
      i = ends.length ? Math.min(...ends) : text.length;
    } else if (text[i] === ",") {
      ranges.push(text.slice(start, i));
      start = i + 1;
    }
  }
  ranges.push(text.slice(start));
  return ranges
    .map((r) => r.trim())
    .filter(Boolean)
    .map(a1Range);
}

const rangeSeg = (range: unknown) => seg(a1Range(String(range ?? "")));

/** A path under /v4/spreadsheets with repeated `ranges` (a comma list), which a plain query cannot hold. */
const withRanges = (path: string, ranges: unknown) => {
  const list = rangeList(ranges);
  return list.length ? `${path}?${list.map((r) => `ranges=${encodeURIComponent(r)}`).join("&")}` : path;
};

/** batch_update_values' value ranges with each range made parseable. */
const valueRanges = (data: unknown): unknown =>
  Array.isArray(data)
    ? data.map((d) => (d && typeof d === "object" && typeof d.range === "string" ? { ...d, range: a1Range(d.range) } : d))
    : data;

function parsed(values: unknown, message: string): unknown {
  if (typeof values !== "string") {
    if (values !== undefined && values !== null) return values;
    throw new ToolCallError(message);
  }
  try {
    return JSON.parse(values);
  } catch {
    throw new ToolCallError(message);
  }
}

const call = (api: OAuth2Api, method: string, path: string, body?: unknown, query?: Args) =>
  apiCall(api, { method, path: `${API}${path}`, body, query: query as never });

/** The read options get_values and batch_get_values send. */
const readOptions = (a: Args) => ({
  valueRenderOption: text(a.valueRenderOption),
  dateTimeRenderOption: text(a.dateTimeRenderOption),
  majorDimension: text(a.majorDimension),
});

const ACTIONS = {
  createSpreadsheet: action(
    "create_spreadsheet",
    "Create a new Google Spreadsheet",
    "Error creating spreadsheet",
    z.object({
      title: z.string().describe("The title of the spreadsheet"),
      sheetCount: z.number().optional().default(1).describe("Number of sheets to create"),
      locale: z.string().optional().describe("The locale of the spreadsheet (e.g., en_US)"),
      timeZone: z.string().optional().describe("The time zone of the spreadsheet (e.g., America/New_York)"),
    }),
    (a, api) => {
      const properties: Args = { title: a.title };
      if (text(a.locale)) properties.locale = text(a.locale);
      if (text(a.timeZone)) properties.timeZone = text(a.timeZone);
      const count = Number(a.sheetCount ?? 1);
      const sheets =
        count > 1 ? Array.from({ length: Math.min(count, 200) }, (_, i) => ({ properties: { title: `Sheet${i + 1}` } })) : undefined;
      return call(api, "POST", "", { properties, ...(sheets ? { sheets } : {}) });
    },
  ),
  getSpreadsheet: action(
    "get_spreadsheet",
    "Get a Google Spreadsheet by ID",
    "Error getting spreadsheet",
    z.object({
      spreadsheetId: z.string().describe("The ID of the spreadsheet to retrieve"),
      ranges: z.string().optional().describe("Comma-separated list of ranges to retrieve"),
      includeGridData: z.boolean().optional().default(false).describe("True if grid data should be returned"),
    }),
    (a, api) => {
      const path = withRanges(`/${seg(a.spreadsheetId)}`, a.ranges);
      const grid = a.includeGridData === true || a.includeGridData === "true";
      return call(api, "GET", grid ? `${path}${path.includes("?") ? "&" : "?"}includeGridData=true` : path);
    },
  ),
  updateSpreadsheet: action(
    "update_spreadsheet",
    "Update a Google Spreadsheet properties",
    "Error updating spreadsheet",
    z.object({
      spreadsheetId: z.string().describe("The ID of the spreadsheet to update"),
      title: z.string().optional().describe("New title for the spreadsheet"),
      locale: z.string().optional().describe("New locale for the spreadsheet"),
      timeZone: z.string().optional().describe("New time zone for the spreadsheet"),
    }),
    (a, api) => {
      const properties: Args = {};
      for (const key of ["title", "locale", "timeZone"]) if (text(a[key])) properties[key] = text(a[key]);
      const fields = Object.keys(properties).join(",");
      const requests = fields ? [{ updateSpreadsheetProperties: { properties, fields } }] : [];
      return call(api, "POST", `/${seg(a.spreadsheetId)}:batchUpdate`, { requests });
    },
  ),
  getValues: action(
    "get_values",
    "Get values from a Google Spreadsheet range",
    "Error getting values",
    z.object({
      spreadsheetId,
      range: z.string().describe("The A1 notation of the range to retrieve values from"),
      valueRenderOption: render,
      dateTimeRenderOption: dates,
      majorDimension: dimension("The major dimension that results should use"),
    }),
    (a, api) => call(api, "GET", `/${seg(a.spreadsheetId)}/values/${rangeSeg(a.range)}`, undefined, readOptions(a)),
  ),
  updateValues: action(
    "update_values",
    "Update values in a Google Spreadsheet range",
    "Error updating values",
    z.object({
      spreadsheetId,
      range: z.string().describe("The A1 notation of the range to update"),
      values: z.string().describe('JSON array of values to write (e.g., [["A1", "B1"], ["A2", "B2"]])'),
      valueInputOption: inputOption,
      majorDimension: dimension("The major dimension of the values"),
    }),
    (a, api) => {
      const body = { values: parsed(a.values, "Values must be a valid JSON array"), majorDimension: text(a.majorDimension) ?? "ROWS" };
      const query = { valueInputOption: text(a.valueInputOption) ?? "USER_ENTERED" };
      return call(api, "PUT", `/${seg(a.spreadsheetId)}/values/${rangeSeg(a.range)}`, body, query);
    },
  ),
  appendValues: action(
    "append_values",
    "Append values to a Google Spreadsheet range",
    "Error appending values",
    z.object({
      spreadsheetId,
      range: z.string().describe("The A1 notation of the range to append to"),
      values: z.string().describe("JSON array of values to append"),
      valueInputOption: inputOption,
      insertDataOption: z.enum(["OVERWRITE", "INSERT_ROWS"]).optional().default("OVERWRITE").describe("How data should be inserted"),
      majorDimension: dimension("The major dimension of the values"),
    }),
    (a, api) => {
      const body = { values: parsed(a.values, "Values must be a valid JSON array"), majorDimension: text(a.majorDimension) ?? "ROWS" };
      const query = {
        valueInputOption: text(a.valueInputOption) ?? "USER_ENTERED",
        insertDataOption: text(a.insertDataOption) ?? "OVERWRITE",
      };
      return call(api, "POST", `/${seg(a.spreadsheetId)}/values/${rangeSeg(a.range)}:append`, body, query);
    },
  ),
  clearValues: action(
    "clear_values",
    "Clear values from a Google Spreadsheet range",
    "Error clearing values",
    z.object({ spreadsheetId, range: z.string().describe("The A1 notation of the range to clear") }),
    (a, api) => call(api, "POST", `/${seg(a.spreadsheetId)}/values/${rangeSeg(a.range)}:clear`, {}),
  ),
  batchGetValues: action(
    "batch_get_values",
    "Get values from multiple Google Spreadsheet ranges",
    "Error batch getting values",
    z.object({
      spreadsheetId,
      ranges: z.string().describe("Comma-separated list of ranges to retrieve"),
      valueRenderOption: render,
      dateTimeRenderOption: dates,
      majorDimension: dimension("The major dimension that results should use"),
    }),
    (a, api) => call(api, "GET", withRanges(`/${seg(a.spreadsheetId)}/values:batchGet`, a.ranges), undefined, readOptions(a)),
  ),
  batchUpdateValues: action(
    "batch_update_values",
    "Update values in multiple Google Spreadsheet ranges",
    "Error batch updating values",
    z.object({
      spreadsheetId,
      valueInputOption: inputOption,
      values: z
        .string()
        .describe('JSON array of value ranges to update (e.g., [{"range": "A1:B2", "values": [["A1", "B1"], ["A2", "B2"]]}])'),
      includeValuesInResponse: z.boolean().optional().default(false).describe("Whether to return the updated values in the response"),
    }),
    (a, api) =>
      call(api, "POST", `/${seg(a.spreadsheetId)}/values:batchUpdate`, {
        valueInputOption: text(a.valueInputOption) ?? "USER_ENTERED",
        data: valueRanges(parsed(a.values, "Values must be a valid JSON array of value ranges")),
        includeValuesInResponse: a.includeValuesInResponse === true,
      }),
  ),
  batchClearValues: action(
    "batch_clear_values",
    "Clear values from multiple Google Spreadsheet ranges",
    "Error batch clearing values",
    z.object({ spreadsheetId, ranges: z.string().describe("Comma-separated list of ranges to clear") }),
    (a, api) => call(api, "POST", `/${seg(a.spreadsheetId)}/values:batchClear`, { ranges: rangeList(a.ranges) }),
  ),
};

/** Flowise's transformNodeInputsToToolArgs. */
const DEFAULTS: DefaultParam[] = [
  ["spreadsheetId", "spreadsheetId", "str"],
  ["title", "title", "str"],
  ["sheetCount", "sheetCount", "num"],
  ["includeGridData", "includeGridData", "bool"],
  ["range", "range", "str"],
  ["ranges", "ranges", "str"],
  ["values", "values", "str"],
  ["valueInputOption", "valueInputOption", "str"],
  ["valueRenderOption", "valueRenderOption", "str"],
  ["dateTimeRenderOption", "dateTimeRenderOption", "str"],
  ["insertDataOption", "insertDataOption", "str"],
  ["majorDimension", "majorDimension", "str"],
];

const TYPE_INPUT: Record<string, string> = { spreadsheet: "spreadsheetActions", values: "valuesActions" };

export const googleSheetsTool = googleFilesTool({
  service: "Google Sheets",
  credentialName: "googleSheetsOAuth2",
  field: "GOOGLE_SHEETS_BASE_URL",
  host: "https://sheets.googleapis.com",
  actions: ACTIONS,
  chosen: (inputs) => {
    const input = TYPE_INPUT[str(inputs.sheetsType) ?? ""];
    return input ? chosenActions(inputs[input]) : [];
  },
  defaults: DEFAULTS,
});
