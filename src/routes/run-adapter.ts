// What every HTTP adapter over the run door (src/services/runs) hands it from its request beside
// the request's services container (c.var.services, the door's RunDeps): the caller as plain data,
// and a signal for a client that goes away.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { clientIpOf } from "../rate-limit/check";
import type { Caller } from "../services/runs";
import { abortOnDisconnect } from "./runnable";

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
