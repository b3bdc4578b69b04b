// CSV (and TSV): one document per data row, "header: value" lines, or one column's values with
// `columnName` (LangChain's CSVLoader). The parser scans with indexOf and slices (no per-character
// string building), stops at the column and row limits as soon as they are passed, and yields
// between rows.
import { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { type WorkLimits, overLimit } from "../../lib/limits";
import { Pacer } from "../../lib/pace";
import { assertDocumentCount, assertHasText, byExtOrMime, decodeTextWithin, extensionOf, needFiles } from "./text-util";
import type { LoaderDefinition } from "./types";

export interface CsvOptions {
  separator?: string;
  /** Column and row limits (rows: data rows under the header); none when absent. */
  limits?: WorkLimits;
  /** Names the file in limit errors. */
  name?: string;
}

/** Characters that weigh a pacing step (a row weighs at least ROW_STEP of one). */
const CHARS_PER_STEP = 256;
const ROW_STEP = 1 / 8;

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. Rows with no non-blank value are dropped. */
export async function parseCsv(text: string, options: CsvOptions = {}): Promise<string[][]> {
  const sep = options.separator || ",";
  const { limits } = options;
  const maxColumns = limits?.csvColumns ?? Infinity;
  const maxRows = limits ? limits.csvRows + 1 : Infinity; // + the header
  const subject = `CSV file ${options.name ?? ""}`.trimEnd();
  const n = text.length;
  const pacer = new Pacer(1024);
  let counted = 0; // the text read up to here has been counted
  // Next separator, LF and CR at or after the cursor; each search moves forward only (linear overall).
  const next = { sep: -1, lf: -1, cr: -1 };
  const seek = (key: "sep" | "lf" | "cr", needle: string, from: number) => {
    if (next[key] < from) {
      const at = text.indexOf(needle, from);
      next[key] = at < 0 ? n : at;
    }
    return next[key];
  };
  const delimiter = (from: number) => Math.min(seek("sep", sep, from), seek("lf", "\n", from), seek("cr", "\r", from));

  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  for (;;) {
    let field: string;
    if (text.charCodeAt(i) === 0x22) {
      const parts: string[] = [];
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw fail("INVALID_INPUT", "CSV has an unterminated quoted field");
        parts.push(text.slice(j, q));
        if (text.charCodeAt(q + 1) === 0x22) {
          parts.push('"');
          j = q + 2;
          if (j - counted >= CHARS_PER_STEP * 64) {
            const wait = pacer.tick((j - counted) / CHARS_PER_STEP);
            counted = j;
            if (wait) await wait;
          }
        } else {
          j = q + 1;
          break;
        }
      }
      // Anything between the closing quote and the delimiter is kept, as before.
      const end = delimiter(j);
      field = parts.join("") + text.slice(j, end);
      i = end;
    } else {
      const end = delimiter(i);
      field = text.slice(i, end);
      i = end;
    }
    row.push(field);
    if (row.length > maxColumns) throw overLimit(limits!, "csvColumns", subject);
    if (i < n && text.startsWith(sep, i)) {
      i += sep.length;
      continue;
    }
    if (row.some((v) => v.trim() !== "")) {
      rows.push(row);
      if (rows.length > maxRows) throw overLimit(limits!, "csvRows", subject);
    }
    row = [];
    if (i >= n) break;
    i += text.charCodeAt(i) === 0x0d && text.charCodeAt(i + 1) === 0x0a ? 2 : 1;
    if (i >= n) break;
    const wait = pacer.tick(ROW_STEP + Math.max(0, i - counted) / CHARS_PER_STEP);
    counted = i;
    if (wait) await wait;
  }
  return rows;
}

export const csvLoader: LoaderDefinition = {
  name: "csvFile",
  label: "Csv File",
  fileField: "csvFile",
  accepts: byExtOrMime(
    ["csv", "tsv"],
    ["text/csv", "text/tab-separated-values", "text/plain", "application/csv", "application/vnd.ms-excel"],
  ),
  async load({ files, config, limits }) {
    needFiles(files, "csvFile");
    const column = typeof config.columnName === "string" && config.columnName.trim() ? config.columnName.trim() : undefined;
    const docs: Document[] = [];
    for (const f of files) {
      const separator =
        extensionOf(f.name) === "tsv" ? "\t" : typeof config.separator === "string" && config.separator ? config.separator : ",";
      const rows = await parseCsv(await decodeTextWithin(f, limits), { separator, limits, name: f.name });
      if (rows.length < 2) throw fail("INVALID_INPUT", `CSV file ${f.name} has no data rows under its header`);
      const [header, ...data] = rows;
      if (column && !header.includes(column))
        throw fail("INVALID_INPUT", `CSV file ${f.name} has no column "${column}" (columns: ${header.join(", ")})`);
      assertDocumentCount(docs.length + data.length, limits, `CSV file ${f.name}`);
      const at = column ? header.indexOf(column) : -1;
      const names = header.map((h) => h.trim());
      // A row costs one step per column: keep a stretch between yields to a few hundred thousand.
      const pacer = new Pacer(Math.max(1, Math.floor(200_000 / header.length)));
      for (const [i, r] of data.entries()) {
        const pageContent = column ? (r[at] ?? "") : names.map((h, j) => `${h}: ${(r[j] ?? "").trim()}`).join("\n");
        if (pageContent.trim()) docs.push(new Document({ pageContent, metadata: { source: f.name, line: i + 1 } }));
        await pacer.tick();
      }
    }
    assertHasText(
      docs.map((d) => d.pageContent),
      files.map((f) => f.name).join(", "),
    );
    return docs;
  },
};
