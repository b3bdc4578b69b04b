// Issue 30, item 2: the studio's session cookie. It authenticates only the studio's own requests
// (`x-request-from: internal`, and for writes the worker's own Origin), ends at sign-out, expires
// into Flowise's "Token Expired" retry, and leaves bearer tokens exactly as they were.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, call, expectError, uuid } from "../helpers";
import { rowsOf } from "../seed";
import { ageSession, logIn, sessionCookie, signedIn, studio } from "./helpers";

let cookie = "";
beforeAll(async () => {
  cookie = (await signedIn()).cookie;
});

const variableNamed = async (name: string) => (await rowsOf("SELECT id FROM variable WHERE name = ?", name)).length;

describe("what the cookie authenticates", () => {
  it("with the studio's header: reads and writes, every permission (a signed-in person is an owner)", async () => {
    expect((await studio("GET", "/chatflows", { cookie })).status).toBe(200);
    const name = `v_${uuid().slice(0, 8)}`;
    expect((await studio("POST", "/variables", { cookie, body: { name, value: "1" } })).status).toBe(200);
    expect(await variableNamed(name)).toBe(1);
    const key = await studio("POST", "/apikey", { cookie, body: { keyName: `k-${name}` } });
    expect(key.status).toBe(200);
    expect((await studio("GET", "/auth/permissions/API_KEY", { cookie })).status).toBe(200);
  });

  it("without `x-request-from: internal` the cookie is not read: 401", async () => {
    const refused = await expectError(await studio("GET", "/chatflows", { cookie, internal: false }), 401);
    expect(refused).not.toHaveProperty("retry");
  });

  it("a write from another origin is refused even with the header, and changes nothing", async () => {
    const name = `v_${uuid().slice(0, 8)}`;
    await expectError(await studio("POST", "/variables", { cookie, body: { name, value: "1" }, origin: "https://evil.example" }), 403);
    await expectError(await studio("POST", "/variables", { cookie, body: { name, value: "1" }, origin: "null" }), 403);
    expect(await variableNamed(name)).toBe(0);
    // No Origin at all (not a browser page): the header and the cookie suffice.
    expect((await studio("POST", "/variables", { cookie, body: { name, value: "1" }, origin: null })).status).toBe(200);
  });

  it("another origin cannot make a browser send the studio's header: CORS never allows it", async () => {
    const preflight = await call("OPTIONS", "/chatflows", {
      token: null,
      headers: {
        origin: "https://evil.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-request-from",
      },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-headers") ?? "").not.toMatch(/x-request-from/i);
  });

  it("bearer tokens work as before: a cookie beside one is not read, and a bad token is 401 whatever the cookie", async () => {
    expect((await call("GET", "/chatflows", { headers: { cookie, "x-request-from": "internal" } })).status).toBe(200);
    await expectError(await call("GET", "/chatflows", { token: "not-a-key", headers: { cookie, "x-request-from": "internal" } }), 401);
    expect((await call("GET", "/chatflows", { token: ADMIN_KEY })).status).toBe(200);
  });

  it("a made-up session token is 401", async () => {
    await expectError(await studio("GET", "/chatflows", { cookie: "edgeflow_session=forged-token-value-that-names-nothing" }), 401);
  });
});

describe("expiry and refresh", () => {
  it("past its access window: 401 Token Expired with retry; refreshToken renews it (as the UI calls it) and the retry passes", async () => {
    const own = (await signedIn()).cookie;
    await ageSession(own, { accessUntil: -1000 });
    const expired = await expectError(await studio("GET", "/chatflows", { cookie: own }), 401);
    expect(expired).toMatchObject({ message: "Token Expired", retry: true });

    // The UI posts {} with the cookie and no x-request-from header.
    const refreshed = await studio("POST", "/auth/refreshToken", { cookie: own, body: {}, internal: false });
    expect(refreshed.status).toBe(200);
    const user = await refreshed.json<{ id: string; email: string }>();
    expect(user.id).toEqual(expect.any(String));
    expect(sessionCookie(refreshed)?.pair).toBe(own);
    expect(sessionCookie(refreshed)?.attributes).toMatch(/Max-Age=43200/);
    expect((await studio("GET", "/chatflows", { cookie: own })).status).toBe(200);

    // Sliding: the idle limit moved to 12 h from now.
    const rows = await rowsOf<{ expiresAt: string; accessUntil: string }>(
      "SELECT s.expiresAt, s.accessUntil FROM account_session s JOIN account a ON a.id = s.accountId WHERE a.id = ?",
      user.id,
    );
    const left = new Date(rows[0].expiresAt).getTime() - Date.now();
    expect(left).toBeGreaterThan(11.9 * 3600_000);
    expect(left).toBeLessThanOrEqual(12 * 3600_000);
    expect(new Date(rows[0].accessUntil).getTime()).toBeGreaterThan(Date.now());
  });

  it("idle past the limit: a plain 401 (no retry), and refreshToken cannot bring it back", async () => {
    const own = (await signedIn()).cookie;
    await ageSession(own, { accessUntil: -2000, expiresAt: -1000 });
    const ended = await expectError(await studio("GET", "/chatflows", { cookie: own }), 401);
    expect(ended).not.toHaveProperty("retry");
    await expectError(await studio("POST", "/auth/refreshToken", { cookie: own, body: {} }), 401);
  });

  it("refreshToken without a session is 401, and from another origin 403", async () => {
    await expectError(await studio("POST", "/auth/refreshToken", { body: {} }), 401);
    await expectError(await studio("POST", "/auth/refreshToken", { cookie, body: {}, origin: "https://evil.example" }), 403);
  });
});

describe("signing out", () => {
  it("ends the session at once: its row is gone, the cookie is cleared, and the old cookie is 401", async () => {
    const { cookie: own, id } = await signedIn();
    expect((await studio("GET", "/chatflows", { cookie: own })).status).toBe(200);
    const res = await studio("POST", "/account/logout", { cookie: own, body: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: "logged_out", redirectTo: "/signin" });
    expect(sessionCookie(res)?.attributes).toMatch(/Max-Age=0/);
    expect(await rowsOf("SELECT id FROM account_session WHERE accountId = ?", id)).toEqual([]);
    await expectError(await studio("GET", "/chatflows", { cookie: own }), 401);
    await expectError(await studio("POST", "/auth/refreshToken", { cookie: own, body: {} }), 401);
  });

  it("signing out of one session leaves the account's other sessions", async () => {
    const { cookie: first, email } = await signedIn();
    const second = await logIn(email);
    await studio("POST", "/account/logout", { cookie: first, body: {} });
    expect((await studio("GET", "/chatflows", { cookie: second })).status).toBe(200);
  });
});
