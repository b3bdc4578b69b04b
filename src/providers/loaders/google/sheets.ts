// googleSheets (Flowise's Google Sheets loader, credential googleSheetsOAuth2) over Sheets API v4
// (GOOGLE_SHEETS_BASE_URL, else https://sheets.googleapis.com): for each chosen spreadsheet
// (spreadsheetIds) its metadata (GET /v4/spreadsheets/{id}), then each sheet named in sheetNames
// (else all) read (GET /v4/spreadsheets/{id}/values/{sheet[!range]}?valueRenderOption=…
// &dateTimeRenderOption=FORMATTED_STRING&majorDimension=ROWS) into one document: a Markdown table,
// the first row as headers with includeHeaders (else A, B, C…), Flowise's metadata (source,
// spreadsheetId, sheetName, spreadsheetTitle, spreadsheetUrl, range, rowCount, columnCount, headers,
// totalDataRows). Empty sheets give no document. Held to the CSV row and column limits.
// Unlike Flowise, a spreadsheet Google refuses is a 502 with its message (Flowise logs it and goes
// on), and columns past Z are named AA, AB… (Flowise's run on into "[", "\").
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { bool, str } from "../../../lib/inputs";
import { overLimit } from "../../../lib/limits";
import type { LoaderDefinition } from "../types";
import { googleApi, googleJson, idList } from "./api";

const API = "/v4/spreadsheets";

interface Spreadsheet {
  properties?: { title?: string };
  sheets?: Array<{ properties?: { title?: string } }>;
}

interface ValueRange {
  range?: string;
  values?: unknown[][];
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
function column(i: number): string {
  let out = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}

const cell = (v: unknown): string => (v === null || v === undefined ? "" : String(v));

function sheetDocument(data: ValueRange, sheetName: string, spreadsheetId: string, meta: Spreadsheet, includeHeaders: boolean): Document {
  const values = (data.values ?? []).map((row) => (Array.isArray(row) ? row.map(cell) : []));
  const headers = includeHeaders ? values[0] : Array.from({ length: Math.max(...values.map((r) => r.length)) }, (_, i) => column(i));
  const rows = includeHeaders ? values.slice(1) : values;
  let content = "";
  if (headers.length) {
    content += `| ${headers.join(" | ")} |\n| ${headers.map(() => "---").join(" | ")} |\n`;
    for (const row of rows) content += `| ${[...row, ...Array(Math.max(headers.length - row.length, 0)).fill("")].join(" | ")} |\n`;
  }
  const title = meta.properties?.title;
  return new Document({
    pageContent: content,
    metadata: {
      source: `Google Sheets: ${title || "Unknown"} - ${sheetName}`,
      spreadsheetId,
      sheetName,
      spreadsheetTitle: title,
      spreadsheetUrl: `https://docs.google.com/spreadsheets/d/${spreadsheetId}`,
      range: data.range,
      rowCount: values.length,
      columnCount: headers.length,
      headers: includeHeaders ? headers : undefined,
      totalDataRows: rows.length,
    },
  });
}

export const googleSheetsLoader: LoaderDefinition = {
  name: "googleSheets",
  label: "Google Sheets",
  async load(input) {
    const { config, limits } = input;
    const ids = idList(config.spreadsheetIds);
    if (!ids.length) throw fail("INVALID_INPUT", "googleSheets needs at least one spreadsheet (spreadsheetIds)");
    const api = await googleApi(input, "googleSheets", "googleSheetsOAuth2", {
      service: "Google Sheets",
      field: "GOOGLE_SHEETS_BASE_URL",
      host: "https://sheets.googleapis.com",
    });
    const named = idList(str(config.sheetNames) ?? "");
    const range = str(config.range);
    const valueRenderOption = str(config.valueRenderOption) ?? "FORMATTED_VALUE";
    const includeHeaders = bool(config.includeHeaders);
    const docs: Document[] = [];
    for (const id of ids) {
      const meta = await googleJson<Spreadsheet>(api, `${API}/${encodeURIComponent(id)}`);
      const sheets = named.length ? named : (meta.sheets ?? []).map((s) => s.properties?.title ?? "").filter(Boolean);
      for (const sheet of sheets) {
        const a1 = range ? `${sheet}!${range}` : sheet;
        const data = await googleJson<ValueRange>(api, `${API}/${encodeURIComponent(id)}/values/${encodeURIComponent(a1)}`, {
          valueRenderOption,
          dateTimeRenderOption: "FORMATTED_STRING",
          majorDimension: "ROWS",
        });
        const values = data.values ?? [];
        if (!values.length) continue;
        const subject = `Google Sheets ${id} sheet ${sheet}`;
        if (values.length > limits.csvRows + 1) throw overLimit(limits, "csvRows", subject, values.length);
        const widest = Math.max(...values.map((r) => (Array.isArray(r) ? r.length : 0)));
        if (widest > limits.csvColumns) throw overLimit(limits, "csvColumns", subject, widest);
        docs.push(sheetDocument(data, sheet, id, meta, includeHeaders));
      }
    }
    return docs;
  },
};
