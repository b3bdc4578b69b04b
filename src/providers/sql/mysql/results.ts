// Text result sets: column definitions (Protocol::ColumnDefinition41) and rows (each value a
// length-encoded string, 0xfb for NULL), values typed as mysql2 types them by default: integers and
// floating point as numbers (a BIGINT beyond 2^53 as text), DECIMAL as text, JSON parsed, binary
// strings as hex text (0x…), everything else (dates, times, text) as text.
import { PayloadReader, text } from "./packets";

export interface Column {
  name: string;
  table: string;
  type: number;
  charset: number;
}

export interface QueryResult {
  columns: Column[];
  rows: Record<string, unknown>[];
  affectedRows: number;
  /** Rows were left unread (maxRows). */
  truncated: boolean;
}

const TYPE = { TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, LONGLONG: 8, INT24: 9, YEAR: 13, JSON: 245 };
const INTEGERS = new Set([TYPE.TINY, TYPE.SHORT, TYPE.LONG, TYPE.INT24, TYPE.YEAR]);
/** TINY_BLOB … STRING, VARCHAR, BIT: bytes when their charset is binary (63). */
const STRINGISH = new Set([15, 16, 249, 250, 251, 252, 253, 254]);
const BINARY_CHARSET = 63;

export function readColumn(payload: Uint8Array): Column {
  const r = new PayloadReader(payload);
  r.lenencString(); // catalog
  r.lenencString(); // schema
  const table = r.lenencString();
  r.lenencString(); // original table
  const name = r.lenencString();
  r.lenencString(); // original name
  r.lenencInt(); // length of the fixed fields (0x0c)
  const charset = r.int(2);
  r.int(4); // column length
  const type = r.int(1);
  return { name, table, type, charset };
}

function cellOf(bytes: Uint8Array, c: Column): unknown {
  if (c.type === TYPE.JSON) {
    const s = text(bytes);
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  if (STRINGISH.has(c.type) && c.charset === BINARY_CHARSET) return `0x${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  const s = text(bytes);
  if (INTEGERS.has(c.type) || c.type === TYPE.FLOAT || c.type === TYPE.DOUBLE) return Number(s);
  if (c.type === TYPE.LONGLONG) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  return s;
}

export function readRow(payload: Uint8Array, columns: Column[]): Record<string, unknown> {
  const r = new PayloadReader(payload);
  const row: Record<string, unknown> = {};
  for (const c of columns) {
    const bytes = r.lenencBytes();
    row[c.name] = bytes === null ? null : cellOf(bytes, c);
  }
  return row;
}
