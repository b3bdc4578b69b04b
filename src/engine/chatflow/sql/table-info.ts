// The {table_info} of the SQL prompt, as LangChain's SqlDatabase writes it: per table a CREATE TABLE
// line, the query for its sample rows, the column names and the sample rows themselves. Include and
// ignore lists as Flowise's node takes them (comma-separated; naming a table that does not exist is
// an error, as in LangChain).
import { fail } from "../../../errors";
import type { SqlDatabase, SqlTable } from "../../../providers/sql/types";

export interface TableSelection {
  includes: string[];
  ignores: string[];
}

/** Flowise's comma-separated table list (blank entries left out). */
export const tableList = (value: unknown): string[] =>
  typeof value === "string"
    ? value
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean)
    : [];

export function selectTables(all: SqlTable[], { includes, ignores }: TableSelection, label: string): SqlTable[] {
  if (includes.length && ignores.length) throw fail("INVALID_FLOW", `${label}: use Include Tables or Ignore Tables, not both`);
  const names = new Set(all.map((t) => t.name));
  for (const [list, what] of [
    [includes, "Include"],
    [ignores, "Ignore"],
  ] as const) {
    const missing = list.filter((t) => !names.has(t));
    if (missing.length)
      throw fail("INVALID_FLOW", `${label}: ${what} Tables names tables the database does not have: ${missing.join(", ")}`);
  }
  if (includes.length) return all.filter((t) => includes.includes(t.name));
  return all.filter((t) => !ignores.includes(t.name));
}

const cell = (v: unknown): string => (v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : String(v));

export async function tableInfo(db: SqlDatabase, tables: SqlTable[], sampleRows: number): Promise<string> {
  // LangChain's sample query: MySQL's table in backticks, Postgres's qualified with its schema.
  const quoted = (name: string) => (db.dialect === "mysql" ? `\`${name}\`` : db.schema ? `"${db.schema}"."${name}"` : `"${name}"`);
  let out = "";
  for (const table of tables) {
    const create = `CREATE TABLE ${db.schema ? quoted(table.name) : table.name} (\n${table.columns
      .map((c) => `${c.name} ${c.type} ${c.nullable ? "" : "NOT NULL"}`)
      .join(", ")}) \n`;
    const select = `SELECT * FROM ${quoted(table.name)} LIMIT ${sampleRows};\n`;
    const columns = `${table.columns.map((c) => ` ${c.name}`).join("")}\n`;
    const rows = sampleRows > 0 ? await db.sample(table.name, sampleRows) : [];
    const sample = rows
      .map(
        (r) =>
          `${Object.values(r)
            .map((v) => ` ${cell(v)}`)
            .join("")}\n`,
      )
      .join("");
    out += create + select + columns + sample;
  }
  return out;
}
