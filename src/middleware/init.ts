// init: the database client (built once per D1 binding) and the engine's ports (per request) on
// c.var, for the routes. The context map is declared here, with the middleware that fills it, so
// that neither env.ts (which everything imports) nor a service knows Hono's context.
import type { MiddlewareHandler } from "hono";
import { createDb } from "../db";
import type { AppEnv } from "../env";
import { createRuntime } from "../services/runtime";

declare module "hono" {
  interface ContextVariableMap {
    /** The engine's ports (services/runtime builds them; routes hand them to services). */
    runtime: ReturnType<typeof createRuntime>;
  }
}

export const init: MiddlewareHandler<AppEnv> = async (c, next) => {
  const db = createDb(c.env.DB);
  c.set("db", db);
  c.set("runtime", createRuntime(c.env, db));
  await next();
};
