// Parameters bound client-side: each `?` outside quotes, backticks and comments replaced by the
// value as a literal. Strings are quoted with '' doubling (valid in every sql_mode) and, unless the
// server runs with NO_BACKSLASH_ESCAPES (its status flag says so), backslashes and NULs escaped as
// well: a backslash is then an escape character, and an unescaped one could end the string early.
// Identifiers are quoted with backticks (doubled inside).

/** A value a `?` may take: arrays expand to a comma-separated list (for IN (?)). */
export type SqlValue = string | number | bigint | boolean | null | undefined | Date | Uint8Array | SqlValue[] | { [key: string]: unknown };

export function escapeString(value: string, noBackslashEscapes: boolean): string {
  let s = value.replace(/'/g, "''");
  if (!noBackslashEscapes) s = s.replace(/\\/g, "\\\\").replace(/\0/g, "\\0").replace(/\x1a/g, "\\Z");
  return `'${s}'`;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

export function escapeValue(value: SqlValue, noBackslashEscapes = false): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`${value} cannot be sent to MySQL`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return escapeString(value, noBackslashEscapes);
  if (value instanceof Date) return escapeString(value.toISOString().replace("T", " ").replace("Z", ""), noBackslashEscapes);
  if (value instanceof Uint8Array) return `X'${hex(value)}'`;
  if (Array.isArray(value)) return value.map((v) => escapeValue(v, noBackslashEscapes)).join(", ");
  return escapeString(JSON.stringify(value), noBackslashEscapes);
}

export const escapeId = (name: string): string => `\`${name.replace(/`/g, "``")}\``;

/** The end of the quoted run or comment starting at `i` (past its closing mark), or -1 if `i` starts none. */
function skip(sql: string, i: number, backslashes: boolean): number {
  const c = sql[i];
  const next = sql[i + 1];
  if (c === "#" || (c === "-" && next === "-" && /\s/.test(sql[i + 2] ?? " "))) {
    const end = sql.indexOf("\n", i);
    return end < 0 ? sql.length : end + 1;
  }
  if (c === "/" && next === "*") {
    const end = sql.indexOf("*/", i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  if (c !== "'" && c !== '"' && c !== "`") return -1;
  for (let j = i + 1; j < sql.length; j++) {
    if (backslashes && c !== "`" && sql[j] === "\\") j++;
    else if (sql[j] === c) {
      if (sql[j + 1] === c) j++;
      else return j + 1;
    }
  }
  return sql.length;
}

/** `sql` with each `?` replaced by its value; an error when the counts differ. */
export function format(sql: string, values: SqlValue[], noBackslashEscapes = false): string {
  let out = "";
  let used = 0;
  let i = 0;
  while (i < sql.length) {
    const end = skip(sql, i, !noBackslashEscapes);
    if (end > i) {
      out += sql.slice(i, end);
      i = end;
    } else if (sql[i] === "?") {
      if (used >= values.length) throw new Error("the statement has more ? placeholders than values");
      out += escapeValue(values[used++], noBackslashEscapes);
      i++;
    } else out += sql[i++];
  }
  if (used !== values.length) throw new Error("the statement has fewer ? placeholders than values");
  return out;
}
