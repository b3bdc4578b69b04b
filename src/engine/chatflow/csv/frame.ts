// A CSV file as the rows the model's code gets (`df`): parsed by the CSV loader's parser under the
// same work limits, values typed per column (a column whose every value is a number holds numbers;
// true/false columns hold booleans; empty cells are null), and the column → type map the prompt shows.
import { fail } from "../../../errors";
import { type WorkLimits, overLimit } from "../../../lib/limits";
import { parseCsv } from "../../../providers/loaders/csv";
import { decodeTextWithin, extensionOf } from "../../../providers/loaders/text-util";
import type { LoaderFile } from "../../../providers/loaders/types";

type ColumnType = "number" | "boolean" | "string";

export interface Frame {
  rows: Record<string, string | number | boolean | null>[];
  types: Record<string, ColumnType>;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function typeOf(values: string[]): ColumnType {
  const present = values.map((v) => v.trim()).filter((v) => v !== "");
  if (present.length && present.every((v) => NUMBER.test(v))) return "number";
  if (present.length && present.every((v) => /^(true|false)$/i.test(v))) return "boolean";
  return "string";
}

function cellValue(raw: string | undefined, type: ColumnType): string | number | boolean | null {
  const v = (raw ?? "").trim();
  if (v === "") return null;
  if (type === "number") return Number(v);
  if (type === "boolean") return v.toLowerCase() === "true";
  return raw ?? "";
}

/** pandas' `read_csv(csv_data, sep=";")` (Flowise's customReadCSV): the separator, when it names one. */
export function separatorOf(customReadCSV: unknown): string | undefined {
  if (typeof customReadCSV !== "string") return undefined;
  const m = /\b(?:sep|delimiter)\s*=\s*(['"])(.+?)\1/.exec(customReadCSV);
  return m ? m[2].replace(/\\t/g, "\t") : undefined;
}

/** The files' rows (files after the first add their data rows; their headers must match). */
export async function frameOf(files: LoaderFile[], limits: WorkLimits, separator?: string): Promise<Frame> {
  let header: string[] | undefined;
  const data: string[][] = [];
  for (const f of files) {
    const sep = separator ?? (extensionOf(f.name) === "tsv" ? "\t" : ",");
    const [head, ...rows] = await parseCsv(await decodeTextWithin(f, limits), { separator: sep, limits, name: f.name });
    if (!head) throw fail("INVALID_INPUT", `CSV file ${f.name} is empty`);
    const names = head.map((h) => h.trim());
    if (!header) header = names;
    else if (names.join("\u0000") !== header.join("\u0000"))
      throw fail("INVALID_INPUT", `CSV file ${f.name} has other columns than ${files[0].name}`);
    data.push(...rows);
  }
  if (!header || !data.length) throw fail("INVALID_INPUT", "CSV Agent: the CSV file has no data rows under its header");
  // Each file was checked alone; together they must fit too.
  if (data.length > limits.csvRows) throw overLimit(limits, "csvRows", `CSV files ${files.map((f) => f.name).join(", ")}`, data.length);
  const cols = header;
  const types = Object.fromEntries(cols.map((c, j) => [c, typeOf(data.map((r) => r[j] ?? ""))])) as Record<string, ColumnType>;
  const rows = data.map((r) => Object.fromEntries(cols.map((c, j) => [c, cellValue(r[j], types[c])])));
  return { rows, types };
}

/** JSON text per chunk handed to the sandbox: parsing one takes QuickJS a few tens of ms at most. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The rows as JSON arrays of about CHUNK_CHARS each. QuickJS parses its input in one go: 20,000 rows
 * as one value would compute past the sandbox's slice limit, so the code parses chunk by chunk and
 * lets the host's event loop run between them (see agent.ts).
 */
export function rowChunks(rows: Frame["rows"]): string[] {
  const chunks: string[] = [];
  let part: string[] = [];
  let size = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    part.push(json);
    size += json.length + 1;
    if (size >= CHUNK_CHARS) {
      chunks.push(`[${part.join(",")}]`);
      part = [];
      size = 0;
    }
  }
  if (part.length) chunks.push(`[${part.join(",")}]`);
  return chunks;
}
