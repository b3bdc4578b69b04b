// microsoftExcel: an XLSX workbook (a zip of SpreadsheetML) read as Flowise's LoadOfSheet reads it
// with SheetJS's sheet_to_json: per worksheet, the first row is the header, every later non-blank
// row one document — "- header: value" lines — with metadata {source, worksheet, rowNum (0-based
// sheet row), …the row's values}. Shared strings, inline strings, numbers and booleans are read;
// formulas give their cached value. Rows count against CSV_MAX_ROWS, documents against the chunks.
import { Document } from "@langchain/core/documents";
import { decodeXML } from "entities/decode";
import { fail } from "../../../errors";
import { type WorkLimits, overLimit } from "../../../lib/limits";
import { Pacer } from "../../../lib/pace";
import { assertNotEmpty, extensionOf, needFiles } from "../text-util";
import type { LoaderDefinition, LoaderFile } from "../types";
import { Archive, attr, elements, relationships, texts } from "./archive";

const MIMES = ["application/vnd.openxmlformats-officedocument.spreadsheetml", "application/vnd.ms-excel"];
export const EXCEL_EXTS = ["xlsx", "xlsm", "xls", "xlsb"];

type Cell = string | number | boolean;

/** Column letters of a cell reference ("BC12") as a 0-based index. */
function column(ref: string): number {
  let n = 0;
  for (const ch of ref) {
    const c = ch.charCodeAt(0);
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return n - 1;
}

function cellValue(attrs: string, inner: string, shared: string[]): Cell | undefined {
  const type = attr(attrs, "t") ?? "n";
  if (type === "inlineStr") return texts(inner, "t");
  const v = [...elements(inner, "v")][0];
  if (!v) return undefined;
  const raw = decodeXML(v.inner);
  if (type === "s") return shared[Number(raw)] ?? "";
  if (type === "b") return raw === "1";
  if (type === "str" || type === "e") return raw;
  const n = Number(raw);
  return raw.trim() !== "" && Number.isFinite(n) ? n : raw;
}

/** Header names as sheet_to_json makes them: blanks `__EMPTY`, `__EMPTY_1`…; repeats `name_1`, `name_2`…. */
function headerNames(cells: Map<number, Cell>, width: number): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (let c = 0; c < width; c++) {
    const v = cells.get(c);
    let name = v === undefined || v === "" ? "__EMPTY" : String(v);
    const count = seen.get(name) ?? 0;
    seen.set(name, count + 1);
    if (count) name = `${name}_${count}`;
    out.push(name);
  }
  return out;
}

/** A shared string without its phonetic runs (<rPh>), whose text is not the cell's. */
function withoutPhonetic(xml: string): string {
  let out = "";
  for (let at = 0; ; ) {
    const from = xml.indexOf("<rPh", at);
    if (from < 0) return out + xml.slice(at);
    out += xml.slice(at, from);
    const to = xml.indexOf("</rPh>", from);
    if (to < 0) return out;
    at = to + 6;
  }
}

interface Budget {
  rows: number;
  docs: number;
}

async function sheetDocuments(xml: string, sheet: string, shared: string[], file: LoaderFile, limits: WorkLimits, budget: Budget) {
  const docs: Document[] = [];
  const pacer = new Pacer();
  let header: string[] | undefined;
  for (const row of elements(xml, "row")) {
    if (++budget.rows > limits.csvRows) throw overLimit(limits, "csvRows", `XLSX ${file.name}`);
    const cells = new Map<number, Cell>();
    let width = 0;
    let next = 0;
    for (const c of elements(row.inner, "c")) {
      const ref = attr(c.attrs, "r");
      const col = ref ? column(ref) : next;
      next = col + 1;
      if (col > 16_383) continue;
      const value = cellValue(c.attrs, c.inner, shared);
      if (value !== undefined) cells.set(col, value);
      width = Math.max(width, col + 1);
    }
    const wait = pacer.tick();
    if (wait) await wait;
    if (!header) {
      if (cells.size) header = headerNames(cells, width);
      continue;
    }
    const values: Record<string, Cell> = {};
    for (const [col, v] of [...cells].sort((a, b) => a[0] - b[0])) if (v !== "" && col < header.length) values[header[col]] = v;
    if (!Object.keys(values).length) continue;
    if (++budget.docs > limits.chunks) throw overLimit(limits, "chunks", `XLSX ${file.name}`);
    const rowNum = Number(attr(row.attrs, "r")) - 1;
    const pageContent = `${Object.entries(values)
      .map(([k, v]) => `- ${k}: ${v}`)
      .join("\n")}\n`;
    docs.push(new Document({ pageContent, metadata: { worksheet: sheet, rowNum, source: file.name, ...values } }));
  }
  return docs;
}

/** The documents of one workbook: its sheets in workbook order. */
export async function excelDocuments(file: LoaderFile, limits: WorkLimits): Promise<Document[]> {
  assertNotEmpty(file);
  if (["xls", "xlsb"].includes(extensionOf(file.name)) && file.bytes[0] !== 0x50)
    throw fail("INVALID_INPUT", `File ${file.name} is a binary Excel workbook (.xls/.xlsb): save it as .xlsx to load it`);
  const zip = new Archive(file, limits, "XLSX");
  const workbook = await zip.required("xl/workbook.xml");
  const rels = relationships(await zip.text("xl/_rels/workbook.xml.rels"), "xl");
  const sharedXml = (await zip.text("xl/sharedStrings.xml")) ?? "";
  const shared = [...elements(sharedXml, "si")].map((si) => texts(withoutPhonetic(si.inner), "t"));
  const budget = { rows: 0, docs: 0 };
  const docs: Document[] = [];
  let index = 0;
  for (const sheet of elements(workbook, "sheet")) {
    index++;
    const name = attr(sheet.attrs, "name") ?? `Sheet${index}`;
    const id = attr(sheet.attrs, "r:id");
    const part = (id && rels.get(id)) || `xl/worksheets/sheet${index}.xml`;
    const xml = await zip.text(part);
    if (xml === undefined) continue;
    docs.push(...(await sheetDocuments(xml, name, shared, file, limits, budget)));
  }
  return docs;
}

export const excelLoader: LoaderDefinition = {
  name: "microsoftExcel",
  label: "Microsoft Excel",
  fileField: "excelFile",
  accepts: (f) => EXCEL_EXTS.includes(extensionOf(f.name)) || MIMES.some((m) => f.mime.toLowerCase().startsWith(m)),
  async load({ files, limits }) {
    needFiles(files, "microsoftExcel");
    const docs: Document[] = [];
    for (const f of files) docs.push(...(await excelDocuments(f, limits)));
    return docs;
  },
};
