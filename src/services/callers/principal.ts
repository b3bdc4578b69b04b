// Who an Authorization header names, as plain data (no HTTP): auth/bearer.ts reads it from a
// request, the run door (services/runs) from the caller its adapter describes.
import type { Env, Principal } from "../../env";
import { unauthorized } from "../../errors";
import { constantTimeEqual } from "../../lib/crypto";
import type { FoundKey } from "../apikeys";
import { looksLikeJwt, verifyJwt } from "./jwt";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer token of an Authorization header, or undefined (none, or not a bearer one: principalOf says why). */
export const bearerToken = (header: string | undefined): string | undefined => BEARER.exec(header ?? "")?.[1];

/** Finds the API key a token is (a route may answer it from a batch it already sent). */
export type KeyFinder = (token: string) => Promise<FoundKey | null>;

/**
 * Who an Authorization header names, without HTTP (the run door gets the header as data). No
 * header → null. A header that does not check out → 401, even where a flow is public: a caller
 * presenting bad credentials should know.
 */
export async function principalOf(
  header: string | undefined,
  env: Pick<Env, "ADMIN_API_KEY" | "JWT_SECRET">,
  findKey: KeyFinder,
): Promise<Principal | null> {
  if (!header) return null;
  const match = BEARER.exec(header);
  if (!match) throw unauthorized("Invalid authorization header: expected 'Bearer <token>'");
  const token = match[1];

  const admin = env.ADMIN_API_KEY;
  let principal: Principal | null = null;
  if (admin && constantTimeEqual(token, admin)) {
    principal = { kind: "admin" };
  } else if (looksLikeJwt(token)) {
    const claims = await verifyJwt(token, env.JWT_SECRET);
    if (claims) principal = { kind: "jwt", subject: claims.sub };
  } else {
    const key = await findKey(token);
    if (key) principal = { kind: "apikey", keyId: key.id, permissions: key.permissions, chatflows: key.chatflows };
  }
  if (!principal) throw unauthorized("Unauthorized: invalid API key or token");
  return principal;
}
