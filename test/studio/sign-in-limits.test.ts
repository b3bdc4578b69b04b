// Issue 30, item 2: repeated failed sign-ins are answered 429 for a while, per account (whoever
// tries) and per client (whichever accounts it tries), counted in the RateLimiter Durable Object.
// Clients are told apart by CF-Connecting-IP only behind Cloudflare (TRUST_CF_CONNECTING_IP), so
// these tests play a deployment there (setVars), each with addresses of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_LIMITS } from "../../src/rate-limit/sign-in";
import { expectError } from "../helpers";
import { setVars } from "../security/helpers";
import { PASSWORD, makeAccount, sessionCookie, studio } from "./helpers";

let restore: () => void;
beforeAll(() => {
  restore = setVars({ TRUST_CF_CONNECTING_IP: "true" });
});
afterAll(() => restore());

const ip = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
const attempt = (email: string, password: string, from: string) => studio("POST", "/auth/login", { body: { email, password }, ip: from });

describe("per account", () => {
  it(`after ${SIGN_IN_LIMITS.account} failures the account answers 429, even to its right password and from other clients; other accounts are unaffected`, async () => {
    const { email } = await makeAccount();
    for (let i = 0; i < SIGN_IN_LIMITS.account; i++) await expectError(await attempt(email, `wrong ${i}`, `198.51.100.${i + 1}`), 401);
    const blocked = await attempt(email, PASSWORD, "198.51.100.99");
    const body = await expectError(blocked, 429);
    expect(body.message).toMatch(/Too many failed sign-in attempts: try again in \d+ minutes?/);
    expect(body).toMatchObject({ type: "authentication_rate_limit" }); // the UI's sign-in page shows its own line for it
    expect(sessionCookie(blocked)).toBeUndefined();

    const other = await makeAccount();
    expect((await attempt(other.email, PASSWORD, "198.51.100.99")).status).toBe(200);
  });

  it("an unknown email is counted the same way (the answer never tells whether it has an account)", async () => {
    const email = `nobody-${crypto.randomUUID()}@example.com`;
    for (let i = 0; i < SIGN_IN_LIMITS.account; i++) await expectError(await attempt(email, "wrong", ip()), 401);
    await expectError(await attempt(email, "wrong", ip()), 429);
  });

  it("a success starts the account's count again", async () => {
    const { email } = await makeAccount();
    const from = "198.51.100.120";
    for (let i = 0; i < SIGN_IN_LIMITS.account - 1; i++) await expectError(await attempt(email, "wrong", from), 401);
    expect((await attempt(email, PASSWORD, from)).status).toBe(200);
    for (let i = 0; i < SIGN_IN_LIMITS.account - 1; i++) await expectError(await attempt(email, "wrong", from), 401);
    expect((await attempt(email, PASSWORD, from)).status).toBe(200);
  });
});

describe("per client", () => {
  it(`after ${SIGN_IN_LIMITS.client} failures across accounts the client answers 429; another client is unaffected`, async () => {
    const from = "192.0.2.10";
    for (let i = 0; i < SIGN_IN_LIMITS.client; i++)
      await expectError(await attempt(`guess-${i}-${crypto.randomUUID()}@example.com`, "wrong", from), 401);
    const { email } = await makeAccount();
    await expectError(await attempt(email, PASSWORD, from), 429);
    expect((await attempt(email, PASSWORD, "192.0.2.11")).status).toBe(200);
  });
});
