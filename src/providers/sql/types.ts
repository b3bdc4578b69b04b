// A SQL database a flow may query (sqlDatabaseChain): D1 bindings, Postgres and MySQL over TCP. The engine
// reaches one through its `sql` port; nothing here knows about prompts or models.

export type SqlDialect = "sqlite" | "postgres" | "mysql";

interface SqlColumn {
  name: string;
  type: string;
  nullable: boolean;
}

export interface SqlTable {
  name: string;
  columns: SqlColumn[];
}

interface QueryResult {
  rows: Record<string, unknown>[];
  /** True when the statement had more rows than were read (maxRows). */
  truncated: boolean;
}

export interface SqlDatabase {
  /** The dialect named in the prompt (D1 is SQLite). */
  dialect: SqlDialect;
  /** How errors name it: "D1 database SALES" or "PostgreSQL database at host:5432/db" (never the password). */
  label: string;
  /** The schema tables are qualified with in the prompt (Postgres), if any. */
  schema?: string;
  /** Tables (and their columns) the database has, in name order. */
  tables(): Promise<SqlTable[]>;
  /** The first `n` rows of a table, for the prompt's table info. */
  sample(table: string, n: number): Promise<Record<string, unknown>[]>;
  /**
   * Runs one statement, reading at most `maxRows` rows. Throws SqlRefused for a statement the read-only
   * rule refuses, SqlQueryError when the database rejects it, a 502/504 ApiError when it cannot be reached.
   */
  query(sql: string, options: { maxRows: number; allowWrites: boolean }): Promise<QueryResult>;
  close(): Promise<void>;
}

/** The database rejected the statement (syntax, unknown column, read-only transaction): the model may see it. */
export class SqlQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SqlQueryError";
  }
}

/** The statement is not one this node may run (not a single read-only statement). */
export class SqlRefused extends SqlQueryError {
  constructor(message: string) {
    super(message);
    this.name = "SqlRefused";
  }
}
