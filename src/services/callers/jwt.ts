import { verify } from "hono/jwt";

/**
 * Verifies an HS256 JWT signed with JWT_SECRET. hono/jwt refuses a past `exp` and a future `nbf`
 * but accepts a token without `exp`; such a token would be valid forever, so it is refused too.
 */
export async function verifyJwt(token: string, secret: string | undefined): Promise<{ sub: string | null } | null> {
  if (!secret) return null;
  try {
    const payload = await verify(token, secret, "HS256");
    if (typeof payload.exp !== "number" || !Number.isFinite(payload.exp)) return null;
    return { sub: typeof payload.sub === "string" ? payload.sub : null };
  } catch {
    return null;
  }
}

export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
