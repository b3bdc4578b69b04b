// The bindings any request may reach, checked once per environment object (an isolate keeps the
// same one), so a deployment that lacks one answers a 500 naming it at once, instead of failing
// somewhere inside a handler. AI and VECTORIZE are optional: local providers stand in for them.
// The simulated D1 round trips (lib/d1-simulation.ts) are refused here too outside development.
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Env } from "../env";
import { ApiError } from "../errors";
import { simulationOf } from "../lib/d1-simulation";

const REQUIRED = ["DB", "FILES", "ASSETS", "RATE_LIMITER", "UPSERT_QUEUE"] as const satisfies readonly (keyof Env)[];

const complete = new WeakSet<object>();

/** Throws a 500 naming every required binding `env` lacks; remembers an environment that has them all. */
export function assertBindings(env: Env): void {
  if (complete.has(env)) return;
  const missing = REQUIRED.filter((name) => env[name] === undefined || env[name] === null);
  if (missing.length) {
    throw new ApiError(
      500,
      `The worker is misconfigured: binding${missing.length > 1 ? "s" : ""} ${missing.join(", ")} missing ` +
        `(declare ${missing.length > 1 ? "them" : "it"} in wrangler.toml; see the README's Configuration)`,
    );
  }
  simulationOf(env); // the simulated D1 round trips: refused outside development
  complete.add(env);
}

export const checkBindings: MiddlewareHandler<AppEnv> = (c, next) => {
  assertBindings(c.env);
  return next();
};
