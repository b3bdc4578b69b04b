// Issue 30, item 2: signing in to the studio as Flowise's open-source mode does — settings, the
// first account through the setup page, sign-in with an HttpOnly session cookie, and what the
// stored password is. (The cookie's rules: session.test.ts; limits: sign-in-limits.test.ts.)
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { fromBase64, toBase64 } from "../../src/lib/crypto";
import { call, expectError, json } from "../helpers";
import { rowsOf } from "../seed";
import { PASSWORD, logIn, makeAccount, sessionCookie, studio } from "./helpers";

const USER_KEYS = [
  "id",
  "email",
  "name",
  "roleId",
  "activeOrganizationId",
  "activeOrganizationSubscriptionId",
  "activeOrganizationCustomerId",
  "activeOrganizationProductId",
  "isOrganizationAdmin",
  "activeWorkspaceId",
  "activeWorkspace",
  "assignedWorkspaces",
  "permissions",
  "features",
  "isSSO",
];

const register = (email: string, init: { origin?: string | null; password?: string } = {}) =>
  studio("POST", "/account/register", {
    origin: init.origin,
    body: { user: { name: "Owner", email, credential: init.password ?? PASSWORD } },
  });

const accountCount = async () => (await rowsOf<{ n: number }>("SELECT COUNT(*) AS n FROM account"))[0].n;

describe("the first account, through the setup page", () => {
  // Other files make accounts of their own (with the admin key): this one starts from none.
  beforeAll(async () => {
    await env.DB.batch([env.DB.prepare("DELETE FROM account_session"), env.DB.prepare("DELETE FROM account")]);
  });

  it("GET /settings says open source, and /auth/resolve sends to setup while no account exists; both without credentials", async () => {
    expect(await (await studio("GET", "/settings")).json()).toEqual({ PLATFORM_TYPE: "open source" });
    expect(await (await studio("GET", "/loginmethod/default")).json()).toEqual({ providers: [] });
    const res = await studio("POST", "/auth/resolve", { body: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ redirectUrl: "/organization-setup" });
  });

  it("a register posted from another origin is refused and creates nothing", async () => {
    await expectError(await register("owner@example.com", { origin: "https://evil.example" }), 403);
    expect(await accountCount()).toBe(0);
  });

  it("two setup pages racing: exactly one first account is created, the other is refused 403", async () => {
    const [a, b] = await Promise.all([register("First@Example.com"), register("second@example.com")]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
    expect(await accountCount()).toBe(1);
    const winner = (await (a.status === 201 ? a : b).json()) as Record<string, unknown>;
    expect(Object.keys(winner).sort()).toEqual(["createdDate", "email", "id", "message", "name"]);
    expect(JSON.stringify(winner)).not.toContain(PASSWORD);
  });

  it("once an account exists: resolve sends to sign-in, and anonymous registering is 403", async () => {
    expect(await (await studio("POST", "/auth/resolve", { body: {} })).json()).toEqual({ redirectUrl: "/signin" });
    const refused = await expectError(await register("third@example.com"), 403);
    expect(refused.message).toMatch(/account exists already/);
    await expectError(
      await call("POST", "/account/register", { token: null, body: { user: { name: "x", email: "x@example.com", credential: PASSWORD } } }),
      403,
    );
    expect(await accountCount()).toBe(1);
  });

  it("bad registrations are 400 with the field named: short password, not an email", async () => {
    expect((await expectError(await register("short@example.com", { password: "short" }), 400)).message).toContain("user.credential");
    const notEmail = await json("POST", "/account/register", { body: { user: { name: "n", email: "nope", credential: PASSWORD } } }, 400);
    expect(notEmail.message).toContain("user.email");
  });
});

describe("signing in", () => {
  let email = "";
  beforeAll(async () => {
    email = (await makeAccount()).email;
  });

  it("answers Flowise's user object (every key the UI stores) and an HttpOnly, SameSite, Path=/ session cookie", async () => {
    const res = await studio("POST", "/auth/login", { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(res.status).toBe(200);
    const user = await res.json<Record<string, any>>();
    expect(Object.keys(user).sort()).toEqual([...USER_KEYS].sort());
    expect(user.email).toBe(email);
    expect(user.isOrganizationAdmin).toBe(true);
    expect(user.assignedWorkspaces).toEqual([
      { id: user.activeWorkspaceId, name: user.activeWorkspace, role: expect.any(String), organizationId: user.activeOrganizationId },
    ]);
    expect(user.permissions).toEqual(expect.arrayContaining(["chatflows:view", "agentflows:update", "users:manage"]));
    expect(JSON.stringify(user)).not.toContain(PASSWORD);
    const cookie = sessionCookie(res)!;
    expect(cookie.pair).toMatch(/^edgeflow_session=[\w-]{40,}$/);
    expect(cookie.attributes).toMatch(/HttpOnly/);
    expect(cookie.attributes).toMatch(/SameSite=Lax/);
    expect(cookie.attributes).toMatch(/Path=\//);
    expect(cookie.attributes).toMatch(/Max-Age=43200/); // 12 h: SESSION_IDLE_MINUTES' default
    expect(cookie.attributes).not.toMatch(/Secure/); // plain http (local): a Secure cookie would never come back
  });

  it("over https the cookie is Secure", async () => {
    const res = await (exports as unknown as { default: Fetcher }).default.fetch(
      new Request("https://edgeflow.test/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-from": "internal" },
        body: JSON.stringify({ email, password: PASSWORD }),
      }),
    );
    expect(res.status).toBe(200);
    expect(sessionCookie(res)!.attributes).toMatch(/Secure/);
  });

  it("an unknown email and a wrong password get the same 401, and neither sets a cookie", async () => {
    const wrong = await studio("POST", "/auth/login", { body: { email, password: "not the password" } });
    const unknown = await studio("POST", "/auth/login", { body: { email: "nobody@example.com", password: PASSWORD } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(sessionCookie(wrong)).toBeUndefined();
    expect(sessionCookie(unknown)).toBeUndefined();
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("a sign-in posted from another origin is refused before any check", async () => {
    const res = await studio("POST", "/auth/login", { body: { email, password: PASSWORD }, origin: "https://evil.example" });
    await expectError(res, 403);
    expect(sessionCookie(res)).toBeUndefined();
  });

  it("the stored password is PBKDF2-SHA256, at least 100,000 iterations, with its own salt per account; the session row keeps only a hash", async () => {
    const other = (await makeAccount()).email; // same password as `email`
    const [a, b] = await Promise.all(
      [email, other].map(
        async (e) => (await rowsOf<{ passwordHash: string }>("SELECT passwordHash FROM account WHERE email = ?", e))[0].passwordHash,
      ),
    );
    const parts = [a, b].map((h) => h.split("$"));
    for (const [scheme, iterations, salt, hash] of parts) {
      expect(scheme).toBe("pbkdf2-sha256");
      expect(Number(iterations)).toBeGreaterThanOrEqual(100_000);
      expect(fromBase64(salt).length).toBeGreaterThanOrEqual(16);
      // Derive it again here: the hash is what PBKDF2-SHA256 gives for the password, salt and count.
      const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(PASSWORD), "PBKDF2", false, ["deriveBits"]);
      const bits = await crypto.subtle.deriveBits(
        { name: "PBKDF2", hash: "SHA-256", salt: fromBase64(salt), iterations: Number(iterations) },
        key,
        256,
      );
      expect(toBase64(new Uint8Array(bits))).toBe(hash);
    }
    expect(parts[0][2]).not.toBe(parts[1][2]);
    expect(parts[0][3]).not.toBe(parts[1][3]);

    const cookie = await logIn(email);
    const token = decodeURIComponent(cookie.split("=")[1]);
    const stored = await rowsOf<{ id: string }>("SELECT id FROM account_session");
    expect(stored.some((r) => r.id === token)).toBe(false);
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.id))).toBe(true);
  });
});

describe("the sign-in page's Forgot password? pages", () => {
  it("answer a 501 in the API's error shape that says how a password is reset here (no email is sent), and change nothing", async () => {
    const { email } = await makeAccount();
    for (const [path, body] of [
      ["/account/forgot-password", { user: { email } }],
      ["/account/reset-password", { user: { email, tempToken: "x", password: "Another-Passw0rd!" } }],
    ] as const) {
      const err = await expectError(await studio("POST", path, { body }), 501);
      expect(err.message).toMatch(/edgeflow sends no email.*PUT \/api\/v1\/account\/password/);
    }
    expect((await studio("POST", "/auth/login", { body: { email, password: PASSWORD } })).status).toBe(200);
  });
});
