// A D1 database bound to the worker, queried by a flow (sqlDatabaseChain with database "sqlite").
// Which bindings a flow may name is decided by the registry (SQL_D1_BINDINGS); here only the queries.
import { checkStatement } from "./statement";
import { type SqlDatabase, type SqlTable, SqlQueryError } from "./types";
import { errorMessage } from "../../lib/error-message";

// Internal tables (SQLite's own, Cloudflare's _cf_*) are not the flow's data.
const TABLES_SQL = `SELECT m.name AS table_name, p.name AS column_name, p.type AS data_type, p."notnull" AS not_null
FROM sqlite_master m JOIN pragma_table_info(m.name) p
WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name NOT LIKE '\\_cf\\_%' ESCAPE '\\'
ORDER BY m.name, p.cid`;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** Reads that can be bounded by wrapping them: SELECT * FROM (…\n) LIMIT n (the newline ends a trailing -- comment). */
const WRAPPABLE = /^\s*(select|with|values)\b/i;

const messageOf = (err: unknown) => errorMessage(err).replace(/^D1_ERROR:\s*/, "");

export function d1Database(binding: D1Database, name: string): SqlDatabase {
  const all = async (sql: string): Promise<Record<string, unknown>[]> => {
    try {
      return (await binding.prepare(sql).all<Record<string, unknown>>()).results ?? [];
    } catch (err) {
      throw new SqlQueryError(messageOf(err));
    }
  };
  return {
    dialect: "sqlite",
    label: `D1 database ${name}`,
    async tables() {
      const tables: SqlTable[] = [];
      for (const r of await all(TABLES_SQL)) {
        const tableName = String(r.table_name);
        let table = tables.at(-1);
        if (table?.name !== tableName) tables.push((table = { name: tableName, columns: [] }));
        table.columns.push({ name: String(r.column_name), type: String(r.data_type ?? ""), nullable: Number(r.not_null) === 0 });
      }
      return tables;
    },
    sample: (table, n) => all(`SELECT * FROM ${quoteIdent(table)} LIMIT ${Math.max(0, Math.floor(n))}`),
    async query(sql, { maxRows, allowWrites }) {
      const statement = checkStatement(sql, allowWrites);
      const bounded = !allowWrites && WRAPPABLE.test(statement) ? `SELECT * FROM (${statement}\n) LIMIT ${maxRows + 1}` : statement;
      const rows = await all(bounded);
      return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
    },
    async close() {},
  };
}
