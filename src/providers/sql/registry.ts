// Which database a sqlDatabaseChain node's `database` and `url` inputs name. One entry per
// Flowise database option: "sqlite" is a D1 binding (D1 is SQLite; `url` names the binding, empty
// for the first one listed), "postgres" and "mysql" a connection string. MSSQL has no driver that
// runs on Workers here: a 400 says so.
import { fail } from "../../errors";
import { listVar } from "../../env";
import type { EndpointEnv } from "../../lib/outbound";
import { workLimits } from "../../lib/limits";
import { d1Database } from "./d1";
import { mysqlDatabase } from "./mysql/database";
import { postgresDatabase } from "./postgres";
import type { SqlDatabase } from "./types";

export interface SqlDeps {
  /** The worker's binding of that name, if it has one. */
  binding(name: string): unknown;
  /** SQL_D1_BINDINGS: the D1 bindings flows may query (the app's own DB only if listed). */
  d1Bindings: string[];
  /** SQL_D1_WRITE_BINDINGS: those a node with allowWrites may also change. */
  d1WriteBindings: string[];
  /** The endpoint rule's settings (OUTBOUND_ALLOW, ENVIRONMENT) for Postgres and MySQL hosts. */
  outbound: EndpointEnv;
  /** SQL_CONNECT_TIMEOUT_MS: how long a Postgres or MySQL server has to accept and sign in. */
  connectTimeoutMs: number;
}

/** The env vars the registry reads (README "Configuration"). */
export interface SqlEnv {
  SQL_D1_BINDINGS?: string;
  SQL_D1_WRITE_BINDINGS?: string;
}

export const sqlDepsFrom = (env: SqlEnv & EndpointEnv): SqlDeps => ({
  binding: (name) => (env as Record<string, unknown>)[name],
  d1Bindings: listVar(env.SQL_D1_BINDINGS),
  d1WriteBindings: listVar(env.SQL_D1_WRITE_BINDINGS),
  outbound: { OUTBOUND_ALLOW: env.OUTBOUND_ALLOW, ENVIRONMENT: env.ENVIRONMENT },
  connectTimeoutMs: workLimits(env).sqlConnectMs,
});

const isD1 = (v: unknown): v is D1Database =>
  !!v && typeof v === "object" && typeof (v as D1Database).prepare === "function" && typeof (v as D1Database).batch === "function";

/** `SALES`, `d1:SALES` or `d1://SALES` → SALES; empty → the first allowed binding. */
function openD1(url: string, deps: SqlDeps, allowWrites: boolean): SqlDatabase {
  const name = url.trim().replace(/^d1:(\/\/)?/i, "") || deps.d1Bindings[0];
  if (!name)
    throw fail(
      "OUTBOUND_REFUSED",
      "Sql Database Chain: no D1 database may be queried: list the bindings flows may query in SQL_D1_BINDINGS, " +
        "and name one in the url input",
    );
  if (!deps.d1Bindings.includes(name))
    throw fail("OUTBOUND_REFUSED", `Sql Database Chain: D1 binding ${name} is not one flows may query (SQL_D1_BINDINGS)`);
  if (allowWrites && !deps.d1WriteBindings.includes(name))
    throw fail("OUTBOUND_REFUSED", `Sql Database Chain: D1 binding ${name} may not be written by flows (SQL_D1_WRITE_BINDINGS)`);
  const binding = deps.binding(name);
  if (!isD1(binding)) throw fail("MISSING_CREDENTIAL", `Sql Database Chain: the worker has no D1 binding named ${name}`);
  return d1Database(binding, name);
}

const openers: Record<string, (url: string, deps: SqlDeps, allowWrites: boolean) => SqlDatabase> = {
  sqlite: openD1,
  d1: openD1,
  postgres: (url, deps) => postgresDatabase(url, deps.outbound, { connectTimeoutMs: deps.connectTimeoutMs }),
  mysql: (url, deps) => mysqlDatabase(url, deps.outbound, deps.connectTimeoutMs),
};

/** The database a node names; a 400 for one it cannot name or may not reach. */
export function openSqlDatabase(database: string, url: string, allowWrites: boolean, deps: SqlDeps): SqlDatabase {
  const open = Object.hasOwn(openers, database) ? openers[database] : undefined;
  if (!open)
    throw fail(
      "UNKNOWN_NODE",
      `Sql Database Chain: database "${database}" is not supported here (supported: sqlite — a D1 binding —, postgres, mysql)`,
    );
  return open(url, deps, allowWrites);
}
