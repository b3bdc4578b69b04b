import type { Db, Env } from "../../env";
import type { Deps } from "../deps";
import { variable } from "../../db/schema";
import { readableEnvVar } from "../../lib/secrets";

/**
 * `{{$vars.x}}` values: static ones as stored, runtime ones from the worker's environment — only
 * the names RUNTIME_VARS lists, never a secret or a binding (an unreadable one is left out, as an
 * unset one is).
 */
export async function loadVariables({ db, env }: Deps<"db" | "env">): Promise<Record<string, string>> {
  return variablesOf(await variablesQuery(db).all(), env);
}

export const variablesQuery = (db: Db) => db.select({ name: variable.name, value: variable.value, type: variable.type }).from(variable);

/**
 * The variables a flow's graph can reach (?1: its id): those its flowData names as `$vars.<name>`,
 * matched inside SQLite so a prediction never reads the whole table (a name that only prefixes a
 * longer one is read too, harmlessly). An id that names no chatflow (an assistant) gets them all.
 * Code the flow runs (custom tools, functions) may reach any variable: the code port loads the rest.
 */
export const FLOW_VARIABLES_SQL = `
  SELECT name, value, type FROM variable
  WHERE NOT EXISTS (SELECT 1 FROM chat_flow WHERE id = ?1)
     OR instr((SELECT flowData FROM chat_flow WHERE id = ?1), '$vars.' || name) > 0`;

export type VariableRow = { name: string; value: string | null; type: string | null };

export function variablesOf(rows: VariableRow[], env: Env): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const row of rows) {
    const value = row.type === "runtime" ? readableEnvVar(env, row.name) : row.value;
    if (typeof value === "string") vars[row.name] = value;
  }
  return vars;
}
