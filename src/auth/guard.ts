// The guard factory: each protected route declares the permission it needs (router.ts's
// `protectedRoute({ permission })`), and the guard refuses with a 403 naming it. Guards run after
// the bearer check and before validation; callers with full access pass without a lookup.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env";
import { type ApiError, forbidden, unauthorized } from "../errors";
import { isUuid } from "../lib/ids";
import { type Access, accessOf, allowsAny, isFull, outOfScope } from "../services/callers/access";
import { resolvePrincipal } from "./bearer";
import { isPermissionName } from "../schemas/permissions";

/** A route's access rule, with a line saying what it needs (for the API reference). */
export type Guard = MiddlewareHandler<AppEnv> & { needs: string };

/** The caller's access; 401 without a valid bearer token. */
export async function accessFrom(c: Context<AppEnv>): Promise<Access> {
  const principal = await resolvePrincipal(c);
  if (!principal) throw unauthorized("Unauthorized: missing bearer token");
  return accessOf(principal);
}

export function lacking(names: readonly string[]): ApiError {
  return forbidden(`Forbidden: this API key lacks the permission ${names.map((n) => `"${n}"`).join(" or ")}`);
}

export { outOfScope };

/**
 * A record id from the path, lower-cased; undefined when malformed (validation then answers 400).
 * A guard naming a parameter its route lacks would check nothing: that is a bug, so it throws.
 */
export function pathId(c: Context<AppEnv>, param: string): string | undefined {
  const raw = c.req.param(param);
  if (raw === undefined) throw new Error(`Route guard reads path parameter "${param}", which ${c.req.routePath} does not have`);
  const id = raw.toLowerCase();
  return isUuid(id) ? id : undefined;
}

/** A guard from a check that only limited callers need to pass. */
export function guard(needs: string, check: (c: Context<AppEnv>, access: Access) => Promise<void> | void): Guard {
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const access = await accessFrom(c);
    if (!isFull(access)) await check(c, access);
    await next();
  };
  return Object.assign(middleware, { needs });
}

/** Needs one of these permissions (Flowise's checkAnyPermission). A misspelt name fails at startup, not as a 403 forever. */
export function can(...names: string[]): Guard {
  const unknown = names.filter((n) => !isPermissionName(n));
  if (unknown.length) throw new Error(`Unknown permission name in a route guard: ${unknown.join(", ")}`);
  return guard(names.join(" or "), (_c, access) => {
    if (!allowsAny(access, names)) throw lacking(names);
  });
}

/** Any valid bearer token will do (e.g. the permission list itself). */
export const AUTHENTICATED: Guard = guard("any valid bearer token", () => {});

/** 403 unless the caller holds one of `names`: for checks that depend on the validated body. */
export async function assertAllowed(c: Context<AppEnv>, names: readonly string[]): Promise<void> {
  if (!allowsAny(await accessFrom(c), names)) throw lacking(names);
}
