// The read-only rule for statements a model writes: exactly one statement, starting with SELECT,
// WITH, VALUES or EXPLAIN, and none of the words that make such a statement change something
// outside string literals, quoted identifiers and comments. Conservative on purpose (a column named
// `update` must be quoted): D1 has no read-only mode, so for D1 this is the guard; Postgres also
// runs the statement in a READ ONLY transaction.
import { SqlRefused } from "./types";

const READ_STARTS = new Set(["select", "with", "values", "explain"]);
// DML inside a WITH (WITH … DELETE), SELECT … INTO (a new table in Postgres), EXPLAIN ANALYZE of a
// write, and statements that have no business inside a read.
const WRITE_WORDS = new Set([
  "insert",
  "update",
  "delete",
  "upsert",
  "merge",
  "drop",
  "alter",
  "create",
  "truncate",
  "attach",
  "detach",
  "pragma",
  "vacuum",
  "reindex",
  "into",
  "grant",
  "revoke",
  "copy",
  "call",
  "lock",
]);

const DOLLAR_TAG = /^\$[A-Za-z_]*\$/;

/** The statement's bare words (comments and quoted text left out) and how many statements it holds. */
function scan(sql: string): { words: string[]; statements: number } {
  let out = "";
  let statements = 1;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
      out += " ";
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) throw new SqlRefused("The statement has an unterminated comment");
      i = end + 2;
      out += " ";
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      for (;;) {
        const q = sql.indexOf(close, j);
        if (q < 0) throw new SqlRefused("The statement has an unterminated quote");
        if (close !== "]" && sql[q + 1] === close)
          j = q + 2; // a doubled quote
        else {
          j = q + 1;
          break;
        }
      }
      i = j;
      out += c === "'" ? " '' " : " ident ";
    } else if (c === "$" && DOLLAR_TAG.test(sql.slice(i, i + 64))) {
      // Postgres dollar quoting: $$…$$ or $tag$…$tag$.
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      if (end < 0) throw new SqlRefused("The statement has an unterminated dollar-quoted string");
      i = end + tag.length;
      out += " '' ";
    } else {
      if (c === ";") statements++;
      out += c === ";" ? " " : c;
      i++;
    }
  }
  return { words: out.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? [], statements };
}

/** The statement as it will run (trailing semicolons and blanks removed); SqlRefused when it may not. */
export function checkStatement(sql: string, allowWrites: boolean): string {
  const text = sql.trim().replace(/[;\s]+$/, "");
  if (!text) throw new SqlRefused("The model wrote no SQL statement");
  const { words, statements } = scan(text);
  if (statements > 1) throw new SqlRefused("Only one SQL statement may run at a time");
  if (allowWrites) return text;
  const first = words[0] ?? "";
  if (!READ_STARTS.has(first))
    throw new SqlRefused(`Only read-only statements (SELECT) may run; this one starts with ${first.toUpperCase() || "nothing"}`);
  const write = words.find((w) => WRITE_WORDS.has(w));
  if (write) throw new SqlRefused(`Only read-only statements (SELECT) may run; this one contains ${write.toUpperCase()}`);
  return text;
}
