// /oauth2-credential: the authorization URL (signed state), the callback trading the code for tokens
// at the credential's token endpoint (test/standin/oauth2.mjs) and storing only the token fields, the
// refresh, and a run's fresh tokens (refreshed within 5 minutes of expiry, once when two runs race,
// without losing an edit made meanwhile).
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { createDb } from "../../src/db";
import type { Env } from "../../src/env";
import { createServices } from "../../src/services/container";
import { getCredentialData } from "../../src/services/credentials";
import { call, expectError, json, uuid } from "../helpers";

const oauth = () => inject("oauth2Url");
const deps = () => ({ db: createDb(env.DB), env: env as unknown as Env });
const stored = (id: string) => getCredentialData(deps(), id);
const services = () => createServices({ ...deps(), request: { waitUntil: () => undefined } });

async function oauthCredential(extra: Record<string, unknown> = {}) {
  const marker = uuid();
  const created = await json("POST", "/credentials", {
    body: {
      name: `gmail ${marker}`,
      credentialName: "gmailOAuth2",
      plainDataObj: {
        clientId: "oauth-client",
        clientSecret: "oauth-secret",
        authorizationUrl: "https://accounts.example.com/o/oauth2/auth",
        accessTokenUrl: `${oauth()}/token`,
        scope: `mail.read ${marker}`,
        ...extra,
      },
    },
  });
  return { id: created.id as string, marker };
}

async function authorizeUrl(id: string): Promise<URL> {
  const body = await json("POST", `/oauth2-credential/authorize/${id}`);
  return new URL(body.authorizationUrl);
}

const callback = (query: Record<string, string>) =>
  call("GET", `/oauth2-credential/callback?${new URLSearchParams(query)}`, { token: null });
const tokenRequests = async (marker: string): Promise<any[]> =>
  (await fetch(`${oauth()}/requests?contains=${encodeURIComponent(marker)}`)).json();

async function connected(extra: Record<string, unknown> = {}, code = "good-code") {
  const cred = await oauthCredential(extra);
  const state = (await authorizeUrl(cred.id)).searchParams.get("state") as string;
  const res = await callback({ code: `${code}-${cred.marker}`, state });
  expect(res.status).toBe(200);
  return cred;
}

describe("POST /oauth2-credential/authorize/{id}", () => {
  it("answers the provider's URL with the client, a signed state and this server's callback", async () => {
    const { id, marker } = await oauthCredential({ additionalParameters: "access_type=offline&prompt=consent&client_id=evil" });
    const body = await json("POST", `/oauth2-credential/authorize/${id}`);
    expect(body).toMatchObject({ success: true, credentialId: id, redirectUri: "http://edgeflow.test/api/v1/oauth2-credential/callback" });
    const url = new URL(body.authorizationUrl);
    expect(url.origin + url.pathname).toBe("https://accounts.example.com/o/oauth2/auth");
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      client_id: "oauth-client",
      response_type: "code",
      response_mode: "query",
      redirect_uri: "http://edgeflow.test/api/v1/oauth2-credential/callback",
      scope: `mail.read ${marker}`,
      access_type: "offline",
      prompt: "consent",
    });
    // Not the bare credential id (Flowise's state), and never the secret.
    expect(q.state).not.toBe(id);
    expect(q.state.length).toBeGreaterThan(40);
    expect(body.authorizationUrl).not.toContain("oauth-secret");
  });

  it("needs a caller who may edit credentials, a stored credential, a client id and an http(s) URL", async () => {
    const { id } = await oauthCredential();
    await expectError(await call("POST", `/oauth2-credential/authorize/${id}`, { token: null }), 401);
    await expectError(await call("POST", `/oauth2-credential/authorize/${uuid()}`), 404);
    await expectError(await call("POST", "/oauth2-credential/authorize/not-an-id"), 400);
    const noClient = await oauthCredential({ clientId: "" });
    const res = await call("POST", `/oauth2-credential/authorize/${noClient.id}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("clientId");
    const tenant = await oauthCredential({ authorizationUrl: "https://login.microsoftonline.com/<tenantId>/oauth2/v2.0/authorize" });
    const placeholder = await call("POST", `/oauth2-credential/authorize/${tenant.id}`);
    expect(placeholder.status).toBe(400);
    expect(((await placeholder.json()) as { message: string }).message).toContain("<tenantId>");
    const script = await oauthCredential({ authorizationUrl: "javascript:alert(1)" });
    expect((await call("POST", `/oauth2-credential/authorize/${script.id}`)).status).toBe(400);
  });
});

describe("GET /oauth2-credential/callback", () => {
  it("trades the code for tokens, stores only the token fields, and tells the opener", async () => {
    const { id, marker } = await oauthCredential();
    const state = (await authorizeUrl(id)).searchParams.get("state") as string;
    const before = Date.now();
    const res = await callback({ code: `good-${marker}`, state });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'.*script-src 'sha256-/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const page = await res.text();
    expect(page).toContain('data-type="OAUTH2_SUCCESS"');
    expect(page).toContain(`data-credential="${id}"`);
    expect(page).toContain("postMessage(m,window.location.origin)");

    const [sent] = await tokenRequests(`good-${marker}`);
    expect(sent.contentType).toBe("application/x-www-form-urlencoded");
    expect(sent.form).toEqual({
      client_id: "oauth-client",
      client_secret: "oauth-secret",
      code: `good-${marker}`,
      grant_type: "authorization_code",
      redirect_uri: "http://edgeflow.test/api/v1/oauth2-credential/callback",
      scope: `mail.read ${marker}`,
    });
    const data = await stored(id);
    expect(data).toMatchObject({
      clientId: "oauth-client",
      clientSecret: "oauth-secret",
      access_token: expect.stringMatching(new RegExp(`^at-good-${marker}-`)),
      refresh_token: `rt-good-${marker}`,
      token_type: "Bearer",
      expires_in: 3600,
    });
    expect(data.credentialName).toBeUndefined();
    const expiresAt = Date.parse(data.expires_at as string);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    expect(Date.parse(data.token_received_at as string)).toBeGreaterThanOrEqual(before - 1000);
    // The credential's record still hides its values.
    expect(JSON.stringify(await json("GET", `/credentials/${id}`))).not.toContain("at-good");
  });

  it("refuses a state it did not sign (Flowise's bare credential id), a tampered one, and stores nothing", async () => {
    const { id, marker } = await oauthCredential();
    const state = (await authorizeUrl(id)).searchParams.get("state") as string;
    for (const forged of [id, `${state.slice(0, -2)}xy`, `${state}.x`, "a.b"]) {
      const res = await callback({ code: `good-${marker}`, state: forged });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('data-type="OAUTH2_ERROR"');
    }
    expect(await tokenRequests(`good-${marker}`)).toEqual([]);
    expect((await stored(id)).access_token).toBeUndefined();
    expect((await callback({ state })).status).toBe(400);
  });

  it("shows the provider's refusal escaped, and a token endpoint's refusal without the client secret", async () => {
    const denied = await callback({ error: "access_denied", error_description: '<script>alert("x")</script>' });
    expect(denied.status).toBe(400);
    const page = await denied.text();
    expect(page).not.toContain("<script>alert");
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");

    const { id, marker } = await oauthCredential();
    const state = (await authorizeUrl(id)).searchParams.get("state") as string;
    const bad = await callback({ code: `bad-${marker}`, state });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain("The authorization code is invalid or expired");
    expect(text).not.toContain("oauth-secret");
    expect((await stored(id)).access_token).toBeUndefined();

    // Slack answers a refused code with 200 and {ok: false, error}: the same 400 with its reason.
    const slack = await oauthCredential();
    const slackState = (await authorizeUrl(slack.id)).searchParams.get("state") as string;
    const refused = await callback({ code: `slack-${slack.marker}`, state: slackState });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("The token endpoint refused: invalid_code");
    expect((await stored(slack.id)).access_token).toBeUndefined();
  });

  it("refuses a token endpoint on a private address (the outbound policy)", async () => {
    const { id, marker } = await oauthCredential({ accessTokenUrl: "http://10.0.0.7/token" });
    const state = (await authorizeUrl(id)).searchParams.get("state") as string;
    const res = await callback({ code: `good-${marker}`, state });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("accessTokenUrl refused by the outbound policy");
  });
});

describe("POST /oauth2-credential/refresh/{id}", () => {
  it("asks for a new access token with the refresh token and stores it, keeping the refresh token", async () => {
    const { id, marker } = await connected();
    const before = await stored(id);
    const body = await json("POST", `/oauth2-credential/refresh/${id}`);
    expect(body).toMatchObject({ success: true, credentialId: id, tokenInfo: { token_type: "Bearer", has_new_refresh_token: false } });
    const after = await stored(id);
    expect(after.access_token).toMatch(/^at-refreshed-/);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).toBe(`rt-good-code-${marker}`);
    expect(body.tokenInfo.expires_at).toBe(after.expires_at);
    const refreshes = (await tokenRequests(`rt-good-code-${marker}`)).filter((r: any) => r.form.grant_type === "refresh_token");
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0].form).toMatchObject({
      client_id: "oauth-client",
      client_secret: "oauth-secret",
      refresh_token: `rt-good-code-${marker}`,
    });
  });

  it("needs a signed-in editor (Flowise leaves it open), a refresh token, and reports a revoked one", async () => {
    const { id } = await connected();
    await expectError(await call("POST", `/oauth2-credential/refresh/${id}`, { token: null }), 401);
    const never = await oauthCredential();
    expect((await call("POST", `/oauth2-credential/refresh/${never.id}`)).status).toBe(400);
    await json("PUT", `/credentials/${id}`, { body: { plainDataObj: { refresh_token: "revoked-1" } } });
    const res = await call("POST", `/oauth2-credential/refresh/${id}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("Token has been expired or revoked");
  });
});

describe("a run's OAuth2 credential", () => {
  it("is used as stored while the token lasts, and refreshed (and stored) within 5 minutes of expiry", async () => {
    const fresh = await connected();
    const data = await services().getCredential(fresh.id, { oauth2: true });
    expect(data.access_token).toBe((await stored(fresh.id)).access_token);
    expect(await tokenRequests(`rt-good-code-${fresh.marker}`)).toEqual([]);

    const short = await connected({}, "short-code");
    const renewed = await services().getCredential(short.id, { oauth2: true });
    expect(renewed.access_token).toMatch(/^at-refreshed-/);
    expect((await stored(short.id)).access_token).toBe(renewed.access_token);
    // Without the option the reader answers what is stored, as for any credential.
    expect((await services().getCredential(short.id)).access_token).toBe(renewed.access_token);
  });

  it("says so when the credential was never authorized, or expired with no refresh token", async () => {
    const never = await oauthCredential();
    await expect(services().getCredential(never.id, { oauth2: true })).rejects.toMatchObject({
      status: 400,
      message: /not authorized yet/,
    });
    const short = await connected({}, "short-code");
    await json("PUT", `/credentials/${short.id}`, { body: { plainDataObj: { refresh_token: "" } } });
    await expect(services().getCredential(short.id, { oauth2: true })).rejects.toMatchObject({
      status: 400,
      message: /authorize it again/,
    });
  });

  it("two runs refreshing at once both get the one stored token; an edit made meanwhile is kept", async () => {
    const { id } = await connected({}, "short-code");
    await json("PUT", `/credentials/${id}`, { body: { plainDataObj: { refresh_token: `slow-${uuid()}` } } });
    const [a, b] = await Promise.all([services().getCredential(id, { oauth2: true }), services().getCredential(id, { oauth2: true })]);
    const after = await stored(id);
    expect(a.access_token).toBe(after.access_token);
    expect(b.access_token).toBe(after.access_token);

    const other = await connected({}, "short-code");
    await json("PUT", `/credentials/${other.id}`, { body: { plainDataObj: { refresh_token: `slow-${uuid()}` } } });
    const [run] = await Promise.all([
      services().getCredential(other.id, { oauth2: true }),
      json("PUT", `/credentials/${other.id}`, { body: { plainDataObj: { note: "edited while refreshing" } } }),
    ]);
    const both = await stored(other.id);
    expect(both.note).toBe("edited while refreshing");
    expect(both.access_token).toBe(run.access_token);
    expect(both.access_token).toMatch(/^at-refreshed-/);
  });
});
