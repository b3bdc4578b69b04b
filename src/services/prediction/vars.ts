import type { Db, Env } from "../../env";
import { variable } from "../../db/schema";
import { readableEnvVar } from "../../lib/secrets";

/**
 * `{{$vars.x}}` values: static ones as stored, runtime ones from the worker's environment — only
 * the names RUNTIME_VARS lists, never a secret or a binding (an unreadable one is left out, as an
 * unset one is).
 */
export async function loadVariables(db: Db, env: Env): Promise<Record<string, string>> {
  return variablesOf(await variablesQuery(db).all(), env);
}

export const variablesQuery = (db: Db) => db.select({ name: variable.name, value: variable.value, type: variable.type }).from(variable);

export function variablesOf(rows: Array<{ name: string; value: string | null; type: string | null }>, env: Env): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const row of rows) {
    const value = row.type === "runtime" ? readableEnvVar(env, row.name) : row.value;
    if (typeof value === "string") vars[row.name] = value;
  }
  return vars;
}
