import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Principal } from "../env";
import { unauthorized } from "../errors";
import { findApiKeyByToken } from "../services/apikeys";
import { type KeyFinder, bearerToken, principalOf } from "../services/callers/principal";
import { sessionPrincipal } from "./session";

export type { KeyFinder };

/** The request's bearer token, or undefined (no header, or not a bearer one: resolvePrincipal says why). */
export const bearerTokenOf = (c: Context<AppEnv>): string | undefined => bearerToken(c.req.header("Authorization"));

/**
 * The request's principal, read once per request: its bearer token (principalOf), or, without an
 * Authorization header, the studio's session cookie (session.ts: only with `x-request-from: internal`).
 */
export async function resolvePrincipal(c: Context<AppEnv>, findKey?: KeyFinder): Promise<Principal | null> {
  const cached = c.get("principal") as Principal | null | undefined;
  if (cached !== undefined) return cached;
  const header = c.req.header("Authorization");
  const principal = header
    ? await principalOf(header, c.env, findKey ?? ((t: string) => findApiKeyByToken(c.get("db"), t)))
    : await sessionPrincipal(c);
  c.set("principal", principal);
  return principal;
}

/** Route middleware: a valid bearer token is required. */
export const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const principal = await resolvePrincipal(c);
  if (!principal) throw unauthorized("Unauthorized: missing bearer token");
  await next();
};

/** Route middleware for widget-facing routes: the handler decides, using the chatflow. */
export const optionalAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  await resolvePrincipal(c);
  await next();
};
