// What every HTTP adapter over the run door (src/services/runs) hands it from its request: the
// ports (db, env, runtime, waitUntil), the caller as plain data, and a signal for a client that
// goes away.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { clientIpOf } from "../rate-limit/check";
import type { Caller, RunDeps } from "../services/runs";
import { abortOnDisconnect } from "./runnable";

/** The request's services container (c.var.services, built by init): it is the door's RunDeps. */
export const runDepsOf = (c: Context<AppEnv>): RunDeps => c.var.services;

/** The Authorization and Origin headers and the client's address, for the door's caller checks. */
export const callerOf = (c: Context<AppEnv>): Caller => ({
  authorization: c.req.header("Authorization"),
  origin: c.req.header("origin"),
  clientIp: clientIpOf(c.req.raw.headers, c.env),
});

/** Aborts (reason: "Client disconnected") when the caller goes away: the run stops with it. */
export function disconnectSignal(c: Context<AppEnv>): AbortSignal {
  const controller = new AbortController();
  abortOnDisconnect(c, controller);
  return controller.signal;
}
