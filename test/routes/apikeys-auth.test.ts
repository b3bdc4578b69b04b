import { env } from "cloudflare:workers";
import { sign } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { BASE, call, expectError, json, sleep, uuid } from "../helpers";
import { exports } from "cloudflare:workers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const JWT_SECRET = "test-jwt-secret";
const now = () => Math.floor(Date.now() / 1000);

/** A request with an arbitrary Authorization header value (or none). */
function withAuthorization(method: string, path: string, authorization: string | null): Promise<Response> {
  const headers = new Headers();
  if (authorization !== null) headers.set("Authorization", authorization);
  return (exports as unknown as { default: Fetcher }).default.fetch(`${BASE}${path}`, { method, headers });
}

const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

describe("API keys", () => {
  it("shows the full key once; lists and gets it masked", async () => {
    const created = await json("POST", "/apikey", { body: { keyName: "my app" } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      keyName: "my app",
      apiKey: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/),
      permissions: null,
      chatflows: null,
      createdDate: expect.stringMatching(ISO),
      updatedDate: expect.stringMatching(ISO),
    });
    const key: string = created.apiKey;

    const listed = (await json("GET", "/apikey")).find((k: any) => k.id === created.id);
    expect(listed).toEqual({ ...created, apiKey: expect.any(String) });
    expect(listed.apiKey).toContain("…");
    expect(listed.apiKey).not.toContain(key);
    expect(listed.apiKey).toBe(`${key.slice(0, 4)}…${key.slice(-4)}`);
    const got = await json("GET", `/apikey/${created.id}`);
    expect(got).toEqual(listed);

    // Nothing anywhere holds the key or its hash.
    const row = await env.DB.prepare("SELECT * FROM apikey WHERE id = ?").bind(created.id).first<Record<string, string>>();
    expect(Object.values(row!).join(" ")).not.toContain(key);
    const listText = await (await call("GET", "/apikey")).text();
    expect(listText).not.toContain(key);
    expect(listText).not.toContain(row!.keyHash);
    expect(listText).not.toContain("keyHash");
    expect(await (await call("GET", "/apikey?page=1&limit=100")).text()).not.toContain(key);

    // Two keys are never the same.
    const other = await json("POST", "/apikey", { body: { keyName: "my app" } });
    expect(other.apiKey).not.toBe(key);
  });

  it("a new key authenticates; renaming keeps it working; deleting revokes it at once", async () => {
    const created = await json("POST", "/apikey", { body: { keyName: "ci" } });
    const res = await call("GET", "/tools", { token: created.apiKey });
    expect(res.status).toBe(200);
    expect(Array.isArray(await res.json())).toBe(true);

    await sleep();
    const renamed = await json("PUT", `/apikey/${created.id}`, { body: { keyName: "ci-renamed" } });
    expect(renamed).toEqual({
      ...created,
      keyName: "ci-renamed",
      apiKey: `${created.apiKey.slice(0, 4)}…${created.apiKey.slice(-4)}`,
      updatedDate: expect.stringMatching(ISO),
    });
    expect(renamed.updatedDate > created.updatedDate).toBe(true);
    expect((await json("GET", `/apikey/${created.id}`)).keyName).toBe("ci-renamed");
    expect((await call("GET", "/tools", { token: created.apiKey })).status).toBe(200);

    // A key created without permissions can manage keys too (it has full access).
    const made = await json("POST", "/apikey", { token: created.apiKey, body: { keyName: "made by key" } });
    expect(made.keyName).toBe("made by key");

    expect(await json("DELETE", `/apikey/${created.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", "/tools", { token: created.apiKey }), 401);
    await expectError(await call("GET", "/apikey", { token: created.apiKey }), 401);
    await expectError(await call("GET", `/apikey/${created.id}`), 404);
    await expectError(await call("DELETE", `/apikey/${created.id}`), 404);
    // The key it made still works.
    expect((await call("GET", "/tools", { token: made.apiKey })).status).toBe(200);
  });

  it("validates keyName and ids", async () => {
    await expectError(await call("POST", "/apikey", { body: {} }), 400);
    await expectError(await call("POST", "/apikey", { body: { keyName: "" } }), 400);
    await expectError(await call("POST", "/apikey", { body: { keyName: 7 } }), 400);
    await expectError(await call("POST", "/apikey", { body: ["k"] }), 400);
    await expectError(await call("POST", "/apikey", { raw: "{", headers: { "content-type": "application/json" } }), 400);
    const k = await json("POST", "/apikey", { body: { keyName: "v" } });
    await expectError(await call("PUT", `/apikey/${k.id}`, { body: {} }), 400);
    await expectError(await call("PUT", `/apikey/${k.id}`, { body: { keyName: "  " } }), 400);
    await expectError(await call("PUT", `/apikey/${uuid()}`, { body: { keyName: "x" } }), 404);
    await expectError(await call("GET", `/apikey/${uuid()}`), 404);
    await expectError(await call("GET", "/apikey/abc"), 400);
    await expectError(await call("DELETE", "/apikey/abc"), 400);
    expect((await json("GET", `/apikey/${k.id}`)).keyName).toBe("v");
  });

  it("lists newest first and pages", async () => {
    const a = await json("POST", "/apikey", { body: { keyName: "a" } });
    await sleep();
    const b = await json("POST", "/apikey", { body: { keyName: "b" } });
    const all = await json("GET", "/apikey");
    const ids = all.map((k: any) => k.id);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(ids.indexOf(b.id)).toBeGreaterThanOrEqual(0);
    expect(await json("GET", "/apikey?page=1&limit=1")).toEqual({ data: all.slice(0, 1), total: all.length });
  });
});

describe("bearer authentication", () => {
  it("refuses a missing, unknown or malformed Authorization header with 401 JSON", async () => {
    for (const header of [
      null,
      "Bearer wrong-token-wrong-token",
      "Bearer ",
      "Bearer",
      "Basic dXNlcjpwYXNz",
      "Basic x",
      "test-admin-key",
      "Bearer test-admin-key extra",
      "Token test-admin-key",
    ]) {
      const err = await expectError(await withAuthorization("GET", "/tools", header), 401);
      expect(err.stack).toEqual({});
    }
    // The admin key is case sensitive, and "bearer" is not.
    await expectError(await withAuthorization("GET", "/tools", "Bearer TEST-ADMIN-KEY"), 401);
    expect((await withAuthorization("GET", "/tools", "bearer test-admin-key")).status).toBe(200);
  });

  it("accepts an HS256 JWT signed with JWT_SECRET", async () => {
    const token = await sign({ sub: "user-1", exp: now() + 600 }, JWT_SECRET, "HS256");
    const res = await call("GET", "/tools", { token });
    expect(res.status).toBe(200);
    expect(Array.isArray(await res.json())).toBe(true);
    // Without exp a token would be valid forever: refused (test/security/jwt.test.ts).
    await expectError(await call("GET", "/chatflows", { token: await sign({ sub: "user-2" }, JWT_SECRET, "HS256") }), 401);
    // A JWT can create things.
    expect((await json("POST", "/tools", { token, body: { name: "via-jwt" } })).name).toBe("via-jwt");
  });

  it("refuses expired, foreign, tampered, unsigned and other-algorithm JWTs", async () => {
    const expired = await sign({ sub: "u", exp: now() - 60 }, JWT_SECRET, "HS256");
    await expectError(await call("GET", "/tools", { token: expired }), 401);

    const notYet = await sign({ sub: "u", nbf: now() + 3600 }, JWT_SECRET, "HS256");
    await expectError(await call("GET", "/tools", { token: notYet }), 401);

    const foreign = await sign({ sub: "u", exp: now() + 600 }, "some-other-secret", "HS256");
    await expectError(await call("GET", "/tools", { token: foreign }), 401);

    const good = await sign({ sub: "u", exp: now() + 600 }, JWT_SECRET, "HS256");
    const [h, , s] = good.split(".");
    const tampered = `${h}.${b64url(JSON.stringify({ sub: "admin", exp: now() + 600 }))}.${s}`;
    await expectError(await call("GET", "/tools", { token: tampered }), 401);

    const header = b64url(JSON.stringify({ alg: "none", typ: "JWT" }));
    const payload = b64url(JSON.stringify({ sub: "u", exp: now() + 600 }));
    await expectError(await call("GET", "/tools", { token: `${header}.${payload}.` }), 401);
    await expectError(await call("GET", "/tools", { token: `${header}.${payload}.${s}` }), 401);
    // alg none with the signature of a real token over the same header+payload is still refused.
    const noneHeaderGood = `${header}.${good.split(".")[1]}.${s}`;
    await expectError(await call("GET", "/tools", { token: noneHeaderGood }), 401);

    const hs512 = await sign({ sub: "u", exp: now() + 600 }, JWT_SECRET, "HS512");
    await expectError(await call("GET", "/tools", { token: hs512 }), 401);

    await expectError(await call("GET", "/tools", { token: "a.b.c" }), 401);
  });
});

// Every endpoint that needs a bearer token. Ids are valid UUIDs so that only auth can refuse.
const id = "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";
const PROTECTED: [string, string, unknown?][] = [
  ["GET", "/tools"],
  ["POST", "/tools", { name: "t" }],
  ["GET", `/tools/${id}`],
  ["PUT", `/tools/${id}`, { name: "t" }],
  ["DELETE", `/tools/${id}`],
  ["GET", "/chatflows"],
  ["POST", "/chatflows", { name: "f", flowData: "{}" }],
  ["GET", `/chatflows/${id}`],
  ["PUT", `/chatflows/${id}`, { name: "f" }],
  ["DELETE", `/chatflows/${id}`],
  ["GET", "/chatflows/apikey/{KEY}"], // {KEY}: a real API key, made in the test
  ["GET", "/assistants"],
  ["POST", "/assistants", { details: {} }],
  ["GET", `/assistants/${id}`],
  ["PUT", `/assistants/${id}`, { details: {} }],
  ["DELETE", `/assistants/${id}`],
  ["GET", "/apikey"],
  ["POST", "/apikey", { keyName: "k" }],
  ["GET", `/apikey/${id}`],
  ["PUT", `/apikey/${id}`, { keyName: "k" }],
  ["DELETE", `/apikey/${id}`],
  ["GET", `/chatmessage/${id}`],
  ["DELETE", `/chatmessage/${id}`],
  ["GET", `/feedback/${id}`],
  ["GET", `/leads/${id}`],
  ["GET", "/variables"],
  ["POST", "/variables", { name: "v" }],
  ["PUT", `/variables/${id}`, { value: "x" }],
  ["DELETE", `/variables/${id}`],
  ["GET", "/credentials"],
  ["POST", "/credentials", { name: "c", credentialName: "openAIApi", plainDataObj: {} }],
  ["GET", `/credentials/${id}`],
  ["PUT", `/credentials/${id}`, { name: "c" }],
  ["DELETE", `/credentials/${id}`],
  ["GET", `/upsert-history/${id}`],
  ["PATCH", "/upsert-history", { ids: [id] }],
];

describe("auth on every protected route", () => {
  it.each(PROTECTED)("%s %s → 401 JSON without a token, with a wrong one and with a bad JWT", async (method, template, body) => {
    const path = template.includes("{KEY}")
      ? template.replace("{KEY}", (await json("POST", "/apikey", { body: { keyName: "path key" } })).apiKey)
      : template;
    const badJwt = await sign({ sub: "u" }, "not-the-secret", "HS256");
    for (const token of [null, "wrong-token-wrong-token-wrong", badJwt]) {
      const err = await expectError(await call(method, path, { token, body }), 401);
      expect(err.message.length).toBeGreaterThan(0);
    }
    // With the admin key the same request is not refused for auth.
    expect((await call(method, path, { body })).status).not.toBe(401);
  });

  it("a refused write stores nothing", async () => {
    await call("POST", "/tools", { token: null, body: { name: "sneaky-tool" } });
    await call("POST", "/variables", { token: "nope-nope-nope-nope", body: { name: "sneaky_var" } });
    expect((await json("GET", "/tools")).map((t: any) => t.name)).not.toContain("sneaky-tool");
    expect((await json("GET", "/variables")).map((v: any) => v.name)).not.toContain("sneaky_var");
  });
});

describe("responses never contain secrets", () => {
  it("credential answers carry no values, and the stored row holds none in plain text", async () => {
    const secret = "sk-live-VERY-SECRET-0123456789";
    const other = "other-secret-value-987";
    const created = await json("POST", "/credentials", {
      body: { name: "prod openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: secret, basePath: other } },
    });
    const texts = [
      JSON.stringify(created),
      await (await call("GET", "/credentials")).text(),
      await (await call("GET", "/credentials?page=1&limit=10")).text(),
      await (await call("GET", "/credentials?credentialName=openAIApi")).text(),
      await (await call("GET", `/credentials/${created.id}`)).text(),
      await (await call("PUT", `/credentials/${created.id}`, { body: { plainDataObj: { extra: other } } })).text(),
      await (await call("GET", "/openapi.json", { token: null })).text(),
    ];
    for (const text of texts) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(other);
      expect(text).not.toContain("encryptedData");
    }
    for (const text of texts.slice(0, 6)) expect(text).not.toContain("plainDataObj");
    expect(Object.keys(created).sort()).toEqual(["createdDate", "credentialName", "id", "name", "updatedDate"]);

    const row = await env.DB.prepare("SELECT encryptedData FROM credential WHERE id = ?")
      .bind(created.id)
      .first<{ encryptedData: string }>();
    expect(row!.encryptedData.length).toBeGreaterThan(0);
    expect(row!.encryptedData).not.toContain(secret);
    expect(row!.encryptedData).not.toContain(other);
    expect(row!.encryptedData).not.toContain("openAIApiKey");
    for (const text of texts) expect(text).not.toContain(row!.encryptedData);
  });

  it("error answers do not echo a presented token", async () => {
    const token = "leaky-token-0123456789abcdef";
    const res = await call("GET", "/tools", { token });
    expect(await res.text()).not.toContain(token);
  });
});
