// Issue 30, item 2: accounts past the first — made by a signed-in person or a key with
// `users:manage` — and resetting a password (a signed-in person; the admin key for a deployment
// where nobody can sign in any more). A reset ends the account's sessions.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { rowsOf } from "../seed";
import { keyWith } from "../security/keys";
import { PASSWORD, logIn, makeAccount, signedIn, studio } from "./helpers";

const NEW_PASSWORD = "a different passphrase";
const newEmail = () => `${crypto.randomUUID()}@example.com`;
const person = (email: string) => ({ user: { name: "Another", email, credential: PASSWORD } });

describe("more accounts", () => {
  it("a signed-in person adds one from the studio, and it can sign in", async () => {
    const { cookie } = await signedIn();
    const email = newEmail();
    const res = await studio("POST", "/account/register", { cookie, body: person(email) });
    expect(res.status).toBe(201);
    expect(await logIn(email)).toMatch(/^edgeflow_session=/);
  });

  it("an API key needs users:manage; the admin key and a full key have it", async () => {
    const without = await keyWith(["chatflows:view"]);
    const refused = await expectError(await call("POST", "/account/register", { token: without.apiKey, body: person(newEmail()) }), 403);
    expect(refused.message).toContain('"users:manage"');
    const holder = await keyWith(["users:manage"]);
    expect((await call("POST", "/account/register", { token: holder.apiKey, body: person(newEmail()) })).status).toBe(201);
    expect((await call("POST", "/account/register", { body: person(newEmail()) })).status).toBe(201);
  });

  it("an email already taken (in any letter case) is 409", async () => {
    const { email } = await makeAccount();
    await expectError(await call("POST", "/account/register", { body: person(email.toUpperCase()) }), 409);
  });
});

describe("resetting a password", () => {
  it("with the admin key (the documented way back in): the old password and the old sessions stop working, the new password works", async () => {
    const { email, cookie } = await signedIn();
    const res = await json("PUT", "/account/password", { body: { email, password: NEW_PASSWORD } });
    expect(res).toMatchObject({ email, message: expect.any(String) });
    expect(JSON.stringify(res)).not.toContain(NEW_PASSWORD);
    await expectError(await studio("GET", "/chatflows", { cookie }), 401);
    await expectError(await studio("POST", "/auth/login", { body: { email, password: PASSWORD } }), 401);
    expect(await logIn(email, NEW_PASSWORD)).toMatch(/^edgeflow_session=/);
  });

  it("a signed-in person resets another account's password", async () => {
    const { cookie } = await signedIn();
    const other = await makeAccount();
    const res = await studio("PUT", "/account/password", { cookie, body: { email: other.email, password: NEW_PASSWORD } });
    expect(res.status).toBe(200);
    expect(await logIn(other.email, NEW_PASSWORD)).toMatch(/^edgeflow_session=/);
  });

  it("is refused without credentials (401), to a key without users:manage (403), and answers 404 for an unknown email", async () => {
    const { email } = await makeAccount();
    await expectError(await call("PUT", "/account/password", { token: null, body: { email, password: NEW_PASSWORD } }), 401);
    await expectError(await studio("PUT", "/account/password", { body: { email, password: NEW_PASSWORD } }), 401);
    const without = await keyWith(["apikeys:view"]);
    await expectError(await call("PUT", "/account/password", { token: without.apiKey, body: { email, password: NEW_PASSWORD } }), 403);
    await expectError(await call("PUT", "/account/password", { body: { email: newEmail(), password: NEW_PASSWORD } }), 404);
    // None of these changed it.
    expect(await logIn(email)).toMatch(/^edgeflow_session=/);
  });

  it("the new password must be a password: 400 when too short, and the stored hash is untouched", async () => {
    const { email } = await makeAccount();
    const [before] = await rowsOf<{ passwordHash: string }>("SELECT passwordHash FROM account WHERE email = ?", email);
    await expectError(await call("PUT", "/account/password", { body: { email, password: "short" } }), 400);
    const [after] = await rowsOf<{ passwordHash: string }>("SELECT passwordHash FROM account WHERE email = ?", email);
    expect(after.passwordHash).toBe(before.passwordHash);
  });
});
