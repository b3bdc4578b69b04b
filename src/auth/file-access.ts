// Who loads a chat's file (GET /get-upload-file). The studio and the widget show stored images and
// file links with plain <img src> and <a href>, which carry neither a bearer token nor the
// studio's `x-request-from` header; so, besides the usual principal (bearer, or the studio's
// session on its own requests), the session cookie is accepted here when the browser itself says
// the request comes from this origin (`Sec-Fetch-Site: same-origin`, a header no page can set).
// A read only: another site can neither make that header nor read what it would load.
import type { Context } from "hono";
import type { AppEnv, Principal } from "../env";
import { checkSession, primaryDb } from "../services/accounts/sessions";
import { resolvePrincipal } from "./bearer";
import { isStudioRequest, sessionToken } from "./session";

export async function filePrincipal(c: Context<AppEnv>): Promise<Principal | null> {
  const principal = await resolvePrincipal(c);
  if (principal || c.req.header("authorization") || isStudioRequest(c)) return principal;
  const token = sessionToken(c);
  if (!token || c.req.header("sec-fetch-site") !== "same-origin") return null;
  const session = await checkSession({ db: primaryDb(c.env) }, token);
  if (session.state !== "valid") return null;
  const own: Principal = { kind: "session", accountId: session.accountId };
  c.set("principal", own);
  return own;
}
