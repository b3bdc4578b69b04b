// Issue 30, item 2: the studio's Account Settings page (Flowise's GET /user?id= and PUT /user):
// a person reads an account and changes their own name, email and password — the old password
// required, the other sessions ended, the one in use kept.
import { describe, expect, it } from "vitest";
import { call, expectError } from "../helpers";
import { rowsOf } from "../seed";
import { keyWith } from "../security/keys";
import { PASSWORD, logIn, makeAccount, signedIn, studio } from "./helpers";

const NEW_PASSWORD = "Another-passw0rd!";

describe("GET /user?id=", () => {
  it("answers the account's id, name and email to a signed-in person; never its hash; 404 unknown; 403 without users:manage", async () => {
    const { cookie, id, email } = await signedIn();
    const res = await studio("GET", `/user?id=${id}`, { cookie });
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ id, email, name: "Test person" });
    expect(Object.keys(body).sort()).toEqual(["createdDate", "email", "id", "name"]);
    await expectError(await studio("GET", `/user?id=${crypto.randomUUID()}`, { cookie }), 404);
    const without = await keyWith(["chatflows:view"]);
    await expectError(await call("GET", `/user?id=${id}`, { token: without.apiKey }), 403);
  });
});

describe("PUT /user", () => {
  it("changes one's own name and email, answering {user}; the new email signs in", async () => {
    const { cookie, id } = await signedIn();
    const email = `${crypto.randomUUID()}@example.com`;
    const res = await studio("PUT", "/user", { cookie, body: { id, name: "Renamed", email: email.toUpperCase() } });
    expect(res.status).toBe(200);
    const { user } = await res.json<{ user: Record<string, unknown> }>();
    expect(user).toMatchObject({ id, name: "Renamed", email });
    expect(await logIn(email)).toMatch(/^edgeflow_session=/);
  });

  it("is refused for anyone else's account (403), to a bearer token (403), and for an email already taken (409)", async () => {
    const { cookie, id } = await signedIn();
    const other = await makeAccount();
    await expectError(await studio("PUT", "/user", { cookie, body: { id: other.id, name: "Hijacked" } }), 403);
    await expectError(await call("PUT", "/user", { body: { id, name: "By key" } }), 403);
    await expectError(await studio("PUT", "/user", { cookie, body: { id, email: other.email } }), 409);
    const [row] = await rowsOf<{ name: string }>("SELECT name FROM account WHERE id = ?", other.id);
    expect(row.name).toBe("Test person");
  });

  it("a new password needs the right old one and a matching confirmation; then the other sessions end and this one stays", async () => {
    const { cookie, id, email } = await signedIn();
    const elsewhere = await logIn(email);
    const change = (oldPassword: string, confirmPassword = NEW_PASSWORD) =>
      studio("PUT", "/user", { cookie, body: { id, oldPassword, newPassword: NEW_PASSWORD, confirmPassword } });
    expect((await expectError(await change("not the password"), 400)).message).toMatch(/old password/);
    expect((await expectError(await change(PASSWORD, "something else"), 400)).message).toMatch(/confirmation/);
    expect((await studio("GET", "/chatflows", { cookie: elsewhere })).status).toBe(200); // nothing changed yet

    expect((await change(PASSWORD)).status).toBe(200);
    expect((await studio("GET", "/chatflows", { cookie })).status).toBe(200);
    await expectError(await studio("GET", "/chatflows", { cookie: elsewhere }), 401);
    expect(await logIn(email, NEW_PASSWORD)).toMatch(/^edgeflow_session=/);
  });
});
