// MySQL (and MariaDB, SingleStore) for sqlDatabaseChain with database "mysql": Flowise's url input,
// mysql://user:password@host:3306/database (its placeholder form host:port/database too), over our
// own wire-protocol client. TLS when the URL asks (ssl=true or sslmode=required/verify_…), as
// mysql2 does: plain otherwise. Tables come from information_schema for the URL's database, as
// LangChain reads them. Reads run in a READ ONLY transaction after the read-only statement check,
// with MAX_EXECUTION_TIME set where the server has it, and only maxRows rows are read.
import { fail } from "../../../errors";
import { type EndpointEnv, assertEndpointHostAllowed } from "../../../lib/outbound";
import { checkStatement } from "../statement";
import { type SqlDatabase, type SqlTable, SqlQueryError } from "../types";
import { type MySqlConnection, MySqlError, type MySqlOptions, escapeId, format, labelOf, withMySql } from "./session";

const MYSQL_STATEMENT_TIMEOUT_MS = 30_000;
const FIELD = "Sql Database Chain";

/** `ssl` / `sslmode` / `ssl-mode` as mysql2 and the mysql client read them: true for TLS. */
export function tlsOf(params: URLSearchParams): boolean {
  const ssl = params.get("ssl");
  const mode = (params.get("sslmode") ?? params.get("ssl-mode") ?? params.get("sslMode") ?? "").toLowerCase();
  if (mode) return !["disable", "disabled", "false", "off"].includes(mode);
  if (ssl === null) return false;
  return !["false", "0", "off", "disabled"].includes(ssl.toLowerCase());
}

/** The connection settings a mysql:// URL names. */
export function parseMySqlUrl(raw: string): MySqlOptions {
  const value = raw.trim();
  const example = "mysql://user:password@host:3306/database";
  if (!value) throw fail("INVALID_FLOW", `${FIELD}: a MySQL database needs its connection string in the url input (${example})`);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `mysql://${value}`);
  } catch {
    throw fail("INVALID_FLOW", `${FIELD}: the url input is not a MySQL connection string (${example})`);
  }
  if (!["mysql:", "mysqlx:", "mariadb:", "singlestore:"].includes(url.protocol))
    throw fail("INVALID_FLOW", `${FIELD}: a MySQL connection string starts with mysql://, not ${url.protocol}//`);
  if (!url.hostname) throw fail("INVALID_FLOW", `${FIELD}: the MySQL connection string names no host`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!database) throw fail("INVALID_FLOW", `${FIELD}: the MySQL connection string names no database (${example})`);
  return {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username) || "root",
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database,
    tls: tlsOf(url.searchParams),
  };
}

const TABLES_SQL =
  "SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, DATA_TYPE AS data_type, IS_NULLABLE AS is_nullable " +
  "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION";

/** `connectTimeoutMs`: how long the server has to accept and sign in. */
export function mysqlDatabase(raw: string, outbound: EndpointEnv, connectTimeoutMs = 10_000): SqlDatabase {
  const o = parseMySqlUrl(raw);
  assertEndpointHostAllowed(o.host, o.port, { field: `${FIELD} url`, env: outbound });
  const label = labelOf("MySQL database", o);

  /** One session per call (a socket cannot outlive its request); a statement's ERR is the model's to see. */
  const session = async <T>(timeoutMs: number, work: (c: MySqlConnection) => Promise<T>): Promise<T> => {
    try {
      return await withMySql(o, { label, timeoutMs, connectTimeoutMs }, work);
    } catch (err) {
      if (err instanceof MySqlError) throw new SqlQueryError(`${err.message} (${err.errno})`);
      throw err;
    }
  };

  return {
    dialect: "mysql",
    label,
    tables: () =>
      session(MYSQL_STATEMENT_TIMEOUT_MS, async (c) => {
        const { rows } = await c.query(format(TABLES_SQL, [o.database], c.noBackslashEscapes));
        const tables: SqlTable[] = [];
        for (const r of rows) {
          const name = String(r.table_name);
          let table = tables.at(-1);
          if (table?.name !== name) tables.push((table = { name, columns: [] }));
          table.columns.push({ name: String(r.column_name), type: String(r.data_type), nullable: r.is_nullable === "YES" });
        }
        return tables;
      }),
    sample: (table, n) =>
      session(MYSQL_STATEMENT_TIMEOUT_MS, async (c) => {
        return (await c.query(`SELECT * FROM ${escapeId(table)} LIMIT ${Math.max(0, Math.floor(n))}`)).rows;
      }),
    query: (text, { maxRows, allowWrites }) => {
      const statement = checkStatement(text, allowWrites);
      return session(MYSQL_STATEMENT_TIMEOUT_MS, async (c) => {
        // MAX_EXECUTION_TIME is MySQL 5.7.8+ (SELECTs only); MariaDB and SingleStore refuse the name: the deadline still holds.
        await c.query(`SET SESSION MAX_EXECUTION_TIME = ${MYSQL_STATEMENT_TIMEOUT_MS}`).catch(() => undefined);
        if (!allowWrites) await c.query("START TRANSACTION READ ONLY");
        const { rows, truncated } = await c.query(statement, maxRows);
        if (!allowWrites && !truncated) await c.query("ROLLBACK");
        return { rows, truncated };
      });
    },
    close: async () => {},
  };
}
