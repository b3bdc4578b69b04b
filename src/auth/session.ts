// The studio's session cookie, beside bearer tokens (bearer.ts). The cookie is HttpOnly, Path=/,
// SameSite=Lax and Secure on https. It authenticates a request only when the request also says it
// comes from the studio (`x-request-from: internal`, a header no other site can make a browser
// send here: CORS never allows it) or from one of this origin's pages (`Sec-Fetch-Site:
// same-origin`, set by the browser), and a write only when its Origin, if the browser sent one, is
// this worker's own. A request with an Authorization header is a bearer request: the cookie is
// not read. Sign-in and sign-out themselves (routes/sign-in.ts) take the same Origin rule.
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv, Principal } from "../env";
import { ApiError, forbidden, unauthorized } from "../errors";
import { checkSession, primaryDb } from "../services/accounts/sessions";

export const SESSION_COOKIE = "edgeflow_session";

/** The UI's header on every API call (Flowise's `x-request-from: internal`). */
export const isStudioRequest = (c: Context<AppEnv>): boolean => c.req.header("x-request-from")?.toLowerCase() === "internal";

const isRead = (method: string) => method === "GET" || method === "HEAD";

/**
 * A request the browser itself says a page of this origin made (`Sec-Fetch-Site: same-origin`, a
 * header no page can set or fake for another site). Flowise's UI embeds a chat (flowise-embed) in
 * the custom assistant's page whose calls (/public-chatbotConfig, /prediction, /feedback, …) carry
 * the cookie but not the UI's header; with this, they run the signed-in person's private flows, as
 * Flowise's preview does. Another site's page still gets nothing from the cookie.
 */
const fromOwnPage = (c: Context<AppEnv>): boolean => c.req.header("sec-fetch-site") === "same-origin";

/** 403 when a browser says the request comes from another origin (no Origin header: not a browser, or a same-origin GET). */
export function assertSameOrigin(c: Context<AppEnv>): void {
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin)
    throw forbidden("Forbidden: the studio's session is not accepted from another origin");
}

/** Route middleware of the sign-in routes: same-origin requests (or none from a browser) only. */
export const sameOriginOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  assertSameOrigin(c);
  await next();
};

/** The session token the request carries (undefined: none). */
export const sessionToken = (c: Context<AppEnv>): string | undefined => getCookie(c, SESSION_COOKIE) || undefined;

/**
 * The principal of the request's session: null when it has no cookie or is not the studio's. A
 * write from another origin is 403; a session past its access window is Flowise's 401 "Token
 * Expired" with `retry: true` (the UI refreshes it and tries again); an ended one a plain 401.
 */
export async function sessionPrincipal(c: Context<AppEnv>): Promise<Principal | null> {
  const token = sessionToken(c);
  const studio = isStudioRequest(c);
  if (!token || !(studio || fromOwnPage(c))) return null;
  if (!isRead(c.req.method)) assertSameOrigin(c);
  const session = await checkSession({ db: primaryDb(c.env) }, token);
  if (session.state === "valid") return { kind: "session", accountId: session.accountId };
  // The embedded chat never refreshes a session: past its access window it is simply not signed in.
  if (!studio) return null;
  if (session.state === "refresh") throw new ApiError(401, "Token Expired", { retry: true });
  throw unauthorized("Unauthorized: the session has ended; sign in again");
}

export function setSessionCookie(c: Context<AppEnv>, token: string, maxAgeSeconds: number): void {
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: new URL(c.req.url).protocol === "https:",
    maxAge: Math.floor(maxAgeSeconds),
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Lax", secure: new URL(c.req.url).protocol === "https:" });
}

/** 403 unless the request is the signed-in person of account `id` (a profile is changed by its person only). */
export function assertOwnAccount(c: Context<AppEnv>, id: string): string {
  const principal = c.get("principal");
  const token = sessionToken(c);
  if (principal?.kind !== "session" || principal.accountId !== id || !token)
    throw forbidden("Forbidden: an account's profile and password are changed by its signed-in person (others: PUT /account/password)");
  return token;
}
