// Calls as the studio makes them (Flowise's web UI): `x-request-from: internal`, the session cookie,
// and the page's own Origin. Other test files sign in with `signedIn()`.
import { env } from "cloudflare:workers";
import { BASE, call, json } from "../helpers";

export const ORIGIN = new URL(BASE).origin;
export const PASSWORD = "correct horse battery";

type StudioInit = { body?: unknown; cookie?: string; origin?: string | null; internal?: boolean; token?: string | null; ip?: string };

/** A call from the studio's page: no bearer token unless given, the UI's header, the page's Origin. */
export function studio(method: string, path: string, init: StudioInit = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.internal !== false) headers["x-request-from"] = "internal";
  if (init.cookie) headers.cookie = init.cookie;
  const origin = init.origin === undefined ? ORIGIN : init.origin;
  if (origin !== null) headers.origin = origin;
  if (init.ip) headers["cf-connecting-ip"] = init.ip;
  return call(method, path, { token: init.token ?? null, body: init.body, headers });
}

/** The `name=value` of the session cookie a response set (undefined: none), and its attributes. */
export function sessionCookie(res: Response): { pair: string; attributes: string } | undefined {
  const header = res.headers.getSetCookie().find((c) => c.startsWith("edgeflow_session="));
  if (!header) return undefined;
  const [pair, ...attributes] = header.split(";");
  return { pair: pair.trim(), attributes: attributes.join(";") };
}

/** Signs in; answers the cookie to send back. Throws unless the sign-in succeeds. */
export async function logIn(email: string, password = PASSWORD, init: StudioInit = {}): Promise<string> {
  const res = await studio("POST", "/auth/login", { ...init, body: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in as ${email}: ${res.status} ${await res.text()}`);
  const cookie = sessionCookie(res);
  if (!cookie) throw new Error("sign-in set no session cookie");
  return cookie.pair;
}

/** An account made with the admin key (never the first-account path: other files may have made one). */
export async function makeAccount(
  email = `${crypto.randomUUID()}@example.com`,
  password = PASSWORD,
): Promise<{ id: string; email: string }> {
  return json("POST", "/account/register", { body: { user: { name: "Test person", email, credential: password } } }, 201);
}

/** A fresh account, signed in: its session cookie. */
export async function signedIn(): Promise<{ cookie: string; email: string; id: string }> {
  const account = await makeAccount();
  return { ...account, cookie: await logIn(account.email) };
}

/** Moves a session's times (what the clock would do): `accessUntil` / `expiresAt` to ms from now. */
export async function ageSession(cookie: string, times: { accessUntil?: number; expiresAt?: number }): Promise<void> {
  const token = decodeURIComponent(cookie.split("=")[1]);
  const id = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const at = (ms: number | undefined) => (ms === undefined ? null : new Date(Date.now() + ms).toISOString());
  const result = await env.DB.prepare(
    "UPDATE account_session SET accessUntil = COALESCE(?, accessUntil), expiresAt = COALESCE(?, expiresAt) WHERE id = ?",
  )
    .bind(at(times.accessUntil), at(times.expiresAt), id)
    .run();
  if (result.meta.changes !== 1) throw new Error("no such session");
}
