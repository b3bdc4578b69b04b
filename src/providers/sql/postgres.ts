// PostgreSQL over the Workers TCP socket API, through postgres.js (its `workerd` build; our socket,
// ./pg-socket.ts; nodejs_compat gives it node:buffer, node:events and node:stream). One
// connection per run, closed after it. Reads run in a READ ONLY transaction with a statement
// timeout, and only the first maxRows rows are read (a cursor), whatever the statement returns.
import { ApiError, fail } from "../../errors";
import { type EndpointEnv, assertEndpointHostAllowed } from "../../lib/outbound";
import { workersPostgres } from "./pg-socket";
import { checkStatement } from "./statement";
import { type SqlDatabase, type SqlTable, SqlQueryError } from "./types";
import { errorMessage } from "../../lib/error-message";

const PG_STATEMENT_TIMEOUT_MS = 30_000;

/** `postgres://user:pass@host:port/db?sslmode=require`, or Flowise's placeholder form `host:port/db`. */
function parsePostgresUrl(raw: string, node: string, input: string): URL {
  const text = raw.trim();
  if (!text)
    throw fail(
      "INVALID_FLOW",
      `${node}: a PostgreSQL database needs its connection string in the ${input} (postgres://user:password@host:5432/database)`,
    );
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `postgres://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw fail("INVALID_FLOW", `${node}: the ${input} is not a PostgreSQL connection string (postgres://user:password@host:5432/database)`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw fail("INVALID_FLOW", `${node}: a PostgreSQL connection string starts with postgres://, not ${url.protocol}//`);
  if (!url.hostname) throw fail("INVALID_FLOW", `${node}: the PostgreSQL connection string names no host`);
  return url;
}

const isServerError = (err: unknown): err is Error & { code: string; severity: string } =>
  err instanceof Error && typeof (err as { severity?: unknown }).severity === "string";

interface PostgresOptions {
  /** The node and input messages name (the SQL chain's url input by default). */
  node?: string;
  input?: string;
  /** How long the server has to accept and sign in (10 s by default). */
  connectTimeoutMs?: number;
}

export function postgresDatabase(raw: string, outbound: EndpointEnv, options: PostgresOptions = {}): SqlDatabase {
  const { node = "Sql Database Chain", input = "url input", connectTimeoutMs = 10_000 } = options;
  const url = parsePostgresUrl(raw, node, input);
  const port = url.port || "5432";
  assertEndpointHostAllowed(url.hostname, port, { field: `${node} ${input.replace(/ input$/, "")}`, env: outbound });
  const label = `PostgreSQL database at ${url.hostname}:${port}${url.pathname.length > 1 ? url.pathname : ""}`;
  const schema = url.searchParams.get("schema") ?? "public";
  const sql = workersPostgres(url.toString(), { connect_timeout: connectTimeoutMs / 1000, idle_timeout: 5 });

  /** What a failure becomes: the database's own refusal for the model, or a 502/504 naming the database. */
  const failure = (err: unknown): Error => {
    if (err instanceof ApiError || err instanceof SqlQueryError) return err;
    if (isServerError(err)) {
      // 28xxx: authentication; 3D000: no such database; 57P01-03: shutting down. Not the model's doing.
      if (/^(28|3D|57P|08)/.test(err.code)) return fail("UPSTREAM_FAILED", `${label}: ${err.message}`);
      if (err.code === "57014") return fail("TIMEOUT", `${label}: the statement ran longer than ${PG_STATEMENT_TIMEOUT_MS / 1000} s`);
      return new SqlQueryError(err.message);
    }
    const code = (err as { code?: unknown })?.code;
    if (code === "CONNECT_TIMEOUT") return fail("TIMEOUT", `${label} did not answer within ${connectTimeoutMs} ms`);
    return fail("UPSTREAM_FAILED", `${label} cannot be reached: ${errorMessage(err)}`);
  };
  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw failure(err);
    }
  };
  const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

  return {
    dialect: "postgres",
    label,
    schema,
    tables: () =>
      run(async () => {
        const rows = await sql<Array<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>>`
          SELECT c.table_name, c.column_name, c.data_type, c.is_nullable
          FROM information_schema.columns c
          JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
          WHERE c.table_schema = ${schema}
          ORDER BY c.table_name, c.ordinal_position`;
        const tables: SqlTable[] = [];
        for (const r of rows) {
          let table = tables.at(-1);
          if (table?.name !== r.table_name) tables.push((table = { name: r.table_name, columns: [] }));
          table.columns.push({ name: r.column_name, type: r.data_type, nullable: r.is_nullable === "YES" });
        }
        return tables;
      }),
    sample: (table, n) =>
      run(
        async () =>
          [...(await sql.unsafe(`SELECT * FROM ${ident(schema)}.${ident(table)} LIMIT ${Math.max(0, Math.floor(n))}`))] as Record<
            string,
            unknown
          >[],
      ),
    query: (text, { maxRows, allowWrites }) =>
      run(async () => {
        const statement = checkStatement(text, allowWrites);
        return (await sql.begin(allowWrites ? "read write" : "read only", async (tx) => {
          await tx.unsafe(`SET LOCAL statement_timeout = ${PG_STATEMENT_TIMEOUT_MS}`);
          // The extended protocol runs one statement only; the cursor reads maxRows + 1 rows at most.
          for await (const batch of tx.unsafe(statement).cursor(maxRows + 1)) {
            const rows = batch as Record<string, unknown>[];
            return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
          }
          return { rows: [], truncated: false };
        })) as { rows: Record<string, unknown>[]; truncated: boolean };
      }),
    close: () => sql.end({ timeout: 1 }).catch(() => undefined),
  };
}
