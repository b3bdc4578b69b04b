import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Principal } from "../env";
import { unauthorized } from "../errors";
import { constantTimeEqual } from "../lib/crypto";
import { findApiKeyByToken } from "../services/apikeys";
import { looksLikeJwt, verifyJwt } from "./jwt";

/**
 * Reads the bearer token once per request. No header → null. A header that does not
 * check out → 401, even on public routes: a caller presenting bad credentials should know.
 */
export async function resolvePrincipal(c: Context<AppEnv>): Promise<Principal | null> {
  const cached = c.get("principal") as Principal | null | undefined;
  if (cached !== undefined) return cached;

  const header = c.req.header("Authorization");
  if (!header) {
    c.set("principal", null);
    return null;
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized("Invalid authorization header: expected 'Bearer <token>'");
  const token = match[1];

  const admin = c.env.ADMIN_API_KEY;
  let principal: Principal | null = null;
  if (admin && constantTimeEqual(token, admin)) {
    principal = { kind: "admin" };
  } else if (looksLikeJwt(token)) {
    const claims = await verifyJwt(token, c.env.JWT_SECRET);
    if (claims) principal = { kind: "jwt", subject: claims.sub };
  } else {
    const key = await findApiKeyByToken(c.get("db"), token);
    if (key) principal = { kind: "apikey", keyId: key.id, permissions: key.permissions, chatflows: key.chatflows };
  }
  if (!principal) throw unauthorized("Unauthorized: invalid API key or token");
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
