// The studio's sign-in, as Flowise's open-source mode answers its web UI (STUDIO.md): settings,
// where to go first (setup or sign-in), the first account, signing in and out, refreshing the
// session; and, edgeflow's own, resetting a password. The session itself is auth/session.ts.
import type { z } from "@hono/zod-openapi";
import { assertAllowed, can } from "../auth/guard";
import { resolvePrincipal } from "../auth/bearer";
import { clearSessionCookie, sameOriginOnly, sessionToken, setSessionCookie } from "../auth/session";
import { ApiError, unauthorized } from "../errors";
import { clientIpOf } from "../rate-limit/check";
import {
  AccountAnswer,
  FlowiseUser,
  LoggedOut,
  LoginBody,
  LoginMethods,
  PasswordResetBody,
  RegisterBody,
  Resolve,
  Settings,
} from "../schemas/accounts";
import { createAccount, firstAccountExists, hasAccounts, resetPassword } from "../services/accounts/accounts";
import { endSession, primaryDb, refreshSession, sessionTimes, startSession } from "../services/accounts/sessions";
import { signIn } from "../services/accounts/sign-in";
import { flowiseUser } from "../services/accounts/user";
import { OPTIONAL_BEARER, createRouter, errorResponsesFor, jsonBody, jsonResponse, protectedRoute, publicRoute } from "./router";

const tags = ["studio"];

const noEmailRoute = (path: string, what: string) =>
  publicRoute({
    method: "post",
    path,
    tags,
    summary: `${what}: not available (edgeflow sends no email): 501 saying how a password is reset`,
    responses: errorResponsesFor([501]),
  });

const refuseResetByEmail = (): never => {
  throw new ApiError(
    501,
    "Password reset by email is not available: edgeflow sends no email. Another signed-in person, or the operator " +
      "with the admin key, sets a new one: PUT /api/v1/account/password {email, password}.",
  );
};
const created = (schema: z.ZodType, description = "Created") => ({ 201: { description, content: { "application/json": { schema } } } });

export const signInRoutes = createRouter()
  .openapi(
    publicRoute({
      method: "get",
      path: "/settings",
      tags,
      summary: "The platform the studio shows: open source (no organisations, roles or SSO)",
      responses: jsonResponse(Settings),
    }),
    (c) => c.json({ PLATFORM_TYPE: "open source" as const }, 200),
  )
  .openapi(
    publicRoute({
      method: "get",
      path: "/loginmethod/default",
      tags,
      summary: "Single sign-on providers the sign-in page offers: none (email and password only)",
      responses: jsonResponse(LoginMethods),
    }),
    (c) => c.json({ providers: [] }, 200),
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/auth/resolve",
      tags,
      summary: "Where the studio starts: the setup page while no account exists, else sign-in",
      responses: jsonResponse(Resolve),
    }),
    async (c) =>
      c.json({ redirectUrl: (await hasAccounts(c.var.services)) ? ("/signin" as const) : ("/organization-setup" as const) }, 200),
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/account/register",
      tags,
      summary: "Create an account: the first one without credentials (setup), later ones with users:manage",
      description:
        "While no account exists anyone may create the first one (the studio's setup page). Afterwards this " +
        "answers 403 unless the caller is signed in or holds a bearer token with `users:manage`.",
      middleware: [sameOriginOnly],
      security: OPTIONAL_BEARER,
      request: { body: jsonBody(RegisterBody) },
      responses: { ...created(AccountAnswer), ...errorResponsesFor([403, 409]) },
    }),
    async (c) => {
      const { user } = c.req.valid("json");
      const input = { name: user.name, email: user.email, password: user.credential };
      const trusted = (await resolvePrincipal(c)) !== null;
      if (trusted) await assertAllowed(c, ["users:manage"]);
      // Checked before hashing too: an anonymous call past setup costs no password hashing.
      else if (await hasAccounts(c.var.services)) throw firstAccountExists();
      const account = await createAccount(c.var.services, input, !trusted);
      return c.json({ ...account, message: "Account created: sign in with its email and password" }, 201);
    },
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/auth/login",
      tags,
      summary: "Sign in: answers Flowise's user object and sets the HttpOnly session cookie",
      description:
        "An unknown email and a wrong password get the same 401. Repeated failures for one account or from one client " +
        "are answered 429 for a while.",
      middleware: [sameOriginOnly],
      request: { body: jsonBody(LoginBody) },
      responses: { ...jsonResponse(FlowiseUser), ...errorResponsesFor([403, 429]) },
    }),
    async (c) => {
      const { email, password } = c.req.valid("json");
      const account = await signIn(c.var.services, email, password, clientIpOf(c.req.raw.headers, c.env));
      const times = sessionTimes(c.env);
      setSessionCookie(c, await startSession(c.var.services, account.id, times), times.idleMs / 1000);
      return c.json(flowiseUser(account), 200);
    },
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/auth/refreshToken",
      tags,
      summary: "Renew the session after a 401 `Token Expired` (the session cookie is the credential)",
      middleware: [sameOriginOnly],
      responses: { ...jsonResponse(FlowiseUser), ...errorResponsesFor([403]) },
    }),
    async (c) => {
      const token = sessionToken(c);
      const times = sessionTimes(c.env);
      const account = token ? await refreshSession({ db: primaryDb(c.env) }, token, times) : undefined;
      if (!account) throw unauthorized("Unauthorized: the session has ended; sign in again");
      setSessionCookie(c, token!, times.idleMs / 1000);
      return c.json(flowiseUser(account), 200);
    },
  )
  .openapi(
    publicRoute({
      method: "post",
      path: "/account/logout",
      tags,
      summary: "Sign out: the session ends at once (its cookie is refused from now on)",
      middleware: [sameOriginOnly],
      responses: { ...jsonResponse(LoggedOut), ...errorResponsesFor([403]) },
    }),
    async (c) => {
      const token = sessionToken(c);
      if (token) await endSession({ db: primaryDb(c.env) }, token);
      clearSessionCookie(c);
      return c.json({ message: "logged_out" as const, redirectTo: "/signin" }, 200);
    },
  )
  // The sign-in page's "Forgot password?" pages: Flowise mails a reset link; edgeflow sends no email,
  // so they answer how a password is reset here instead of "Route not found".
  .openapi(noEmailRoute("/account/forgot-password", "Password reset by email"), refuseResetByEmail)
  .openapi(noEmailRoute("/account/reset-password", "Setting a password from an emailed token"), refuseResetByEmail)
  .openapi(
    protectedRoute({
      method: "put",
      path: "/account/password",
      permission: can("users:manage"),
      tags,
      summary: "Set an account's password (a signed-in person, the admin key, or a key with users:manage)",
      description: "The account's sessions end: it signs in again with the new password.",
      request: { body: jsonBody(PasswordResetBody) },
      responses: jsonResponse(AccountAnswer),
    }),
    async (c) => {
      const { email, password } = c.req.valid("json");
      const account = await resetPassword(c.var.services, email, password);
      return c.json({ ...account, message: "Password set; the account's sessions have ended" }, 200);
    },
  );
