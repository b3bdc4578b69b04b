import { verify } from "hono/jwt";

/** Verifies an HS256 JWT signed with JWT_SECRET; `exp` (and `nbf`) are honoured by hono/jwt. */
export async function verifyJwt(token: string, secret: string | undefined): Promise<{ sub: string | null } | null> {
  if (!secret) return null;
  try {
    const payload = await verify(token, secret, "HS256");
    return { sub: typeof payload.sub === "string" ? payload.sub : null };
  } catch {
    return null;
  }
}

export const looksLikeJwt = (token: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
