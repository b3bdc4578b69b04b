import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { getCredentialData } from "../../src/services/credentials";
import { call, expectError, json, sleep, uuid } from "../helpers";
import type { Env } from "../../src/env";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const decrypt = (id: string) => getCredentialData({ db: createDb(env.DB), env: env as unknown as Env }, id);

const create = (body: Record<string, unknown> = {}) =>
  json("POST", "/credentials", { body: { name: "cred", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-1" }, ...body } });

describe("credentials", () => {
  it("creates, gets, lists, updates and deletes a credential", async () => {
    const created = await create({ name: "OpenAI prod", plainDataObj: { openAIApiKey: "sk-prod", basePath: "https://proxy.example/v1" } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "OpenAI prod",
      credentialName: "openAIApi",
      createdDate: expect.stringMatching(ISO),
      updatedDate: expect.stringMatching(ISO),
    });
    expect(await decrypt(created.id)).toEqual({ openAIApiKey: "sk-prod", basePath: "https://proxy.example/v1" });
    expect(await json("GET", `/credentials/${created.id}`)).toEqual(created);
    expect((await json("GET", "/credentials")).find((c: any) => c.id === created.id)).toEqual(created);

    await sleep();
    const renamed = await json("PUT", `/credentials/${created.id}`, { body: { name: "OpenAI staging" } });
    expect(renamed).toEqual({ ...created, name: "OpenAI staging", updatedDate: expect.stringMatching(ISO) });
    expect(renamed.updatedDate > created.updatedDate).toBe(true);
    expect(await json("GET", `/credentials/${created.id}`)).toEqual(renamed);
    // Renaming leaves the values alone.
    expect(await decrypt(created.id)).toEqual({ openAIApiKey: "sk-prod", basePath: "https://proxy.example/v1" });

    const retyped = await json("PUT", `/credentials/${created.id}`, { body: { credentialName: "azureOpenAIApi" } });
    expect(retyped.credentialName).toBe("azureOpenAIApi");

    expect(await json("DELETE", `/credentials/${created.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/credentials/${created.id}`), 404);
    await expectError(await call("DELETE", `/credentials/${created.id}`), 404);
    await expectError(await call("PUT", `/credentials/${created.id}`, { body: { name: "x" } }), 404);
    await expect(decrypt(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it("merges plainDataObj on update: given keys replace, others are kept", async () => {
    const c = await create({ plainDataObj: { openAIApiKey: "old-key", basePath: "https://a.example", org: "o1" } });
    const updated = await json("PUT", `/credentials/${c.id}`, {
      body: { plainDataObj: { openAIApiKey: "new-key", extra: { nested: [1, 2] } } },
    });
    expect(updated).toEqual({ ...c, updatedDate: expect.stringMatching(ISO) });
    expect(await decrypt(c.id)).toEqual({ openAIApiKey: "new-key", basePath: "https://a.example", org: "o1", extra: { nested: [1, 2] } });
    // An empty object changes no value.
    await json("PUT", `/credentials/${c.id}`, { body: { plainDataObj: {} } });
    expect(await decrypt(c.id)).toEqual({ openAIApiKey: "new-key", basePath: "https://a.example", org: "o1", extra: { nested: [1, 2] } });
    // Name and values together.
    const both = await json("PUT", `/credentials/${c.id}`, { body: { name: "both", plainDataObj: { org: "o2" } } });
    expect(both.name).toBe("both");
    expect((await decrypt(c.id)).org).toBe("o2");
    // The ciphertext changes when the values do, and never holds them in clear.
    const row = await env.DB.prepare("SELECT encryptedData FROM credential WHERE id = ?").bind(c.id).first<{ encryptedData: string }>();
    // Checked on the decoded bytes, with values long enough that random ciphertext cannot hold
    // them by chance (a 2-letter string turns up in random base64 a few percent of the time).
    const sealed = atob(row!.encryptedData);
    expect(sealed).not.toContain("new-key");
    expect(sealed).not.toContain('"org":"o2"');
    expect(row!.encryptedData).not.toContain(btoa('"org":"o2"').slice(0, 12));
  });

  it("filters by credentialName, one or a comma-separated list", async () => {
    const a = await create({ name: "a", credentialName: "filterA" });
    await sleep();
    const b = await create({ name: "b", credentialName: "filterB" });
    await sleep();
    const c = await create({ name: "c", credentialName: "filterC" });
    await sleep();
    const a2 = await create({ name: "a2", credentialName: "filterA" });

    const onlyA = await json("GET", "/credentials?credentialName=filterA");
    expect(onlyA).toEqual([a2, a]);
    const aAndC = await json("GET", "/credentials?credentialName=filterA,filterC");
    expect(aAndC).toEqual([a2, c, a]);
    const spaced = await json("GET", `/credentials?credentialName=${encodeURIComponent(" filterB , filterC ")}`);
    expect(spaced).toEqual([c, b]);
    expect(await json("GET", "/credentials?credentialName=nothingLikeThis")).toEqual([]);
    expect(await json("GET", "/credentials?credentialName=filterA&page=1&limit=1")).toEqual({ data: [a2], total: 2 });
    // An empty filter is no filter.
    const all = await json("GET", "/credentials");
    expect(await json("GET", "/credentials?credentialName=")).toEqual(all);
    expect(all.map((x: any) => x.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id, a2.id]));
    const ids = all.map((x: any) => x.id);
    expect(ids.indexOf(a2.id)).toBeLessThan(ids.indexOf(a.id));
  });

  it("keeps a client id; 409 when reused; 404 / 400 for unknown / malformed ids", async () => {
    const id = uuid();
    expect((await create({ id })).id).toBe(id);
    await expectError(
      await call("POST", "/credentials", { body: { id, name: "dup", credentialName: "x", plainDataObj: { k: "v" } } }),
      409,
    );
    expect(await decrypt(id)).toEqual({ openAIApiKey: "sk-1" });
    const ghost = uuid();
    await expectError(await call("GET", `/credentials/${ghost}`), 404);
    await expectError(await call("PUT", `/credentials/${ghost}`, { body: { plainDataObj: { a: "b" } } }), 404);
    await expectError(await call("DELETE", `/credentials/${ghost}`), 404);
    for (const method of ["GET", "DELETE"]) await expectError(await call(method, "/credentials/cred-1"), 400);
    await expectError(await call("PUT", "/credentials/cred-1", { body: { name: "x" } }), 400);
  });

  it("validates bodies with 400", async () => {
    const bad: unknown[] = [
      {},
      { name: "n", credentialName: "c" }, // plainDataObj missing
      { name: "n", plainDataObj: {} }, // credentialName missing
      { credentialName: "c", plainDataObj: {} }, // name missing
      { name: "", credentialName: "c", plainDataObj: {} },
      { name: "n", credentialName: " ", plainDataObj: {} },
      { name: "n", credentialName: "c", plainDataObj: "sk-123" },
      { name: "n", credentialName: "c", plainDataObj: ["a"] },
      { name: 1, credentialName: "c", plainDataObj: {} },
      [{ name: "n", credentialName: "c", plainDataObj: {} }],
    ];
    for (const body of bad) await expectError(await call("POST", "/credentials", { body }), 400);
    await expectError(await call("POST", "/credentials", { raw: "{", headers: { "content-type": "application/json" } }), 400);
    const c = await create();
    await expectError(await call("PUT", `/credentials/${c.id}`, { body: { plainDataObj: "x" } }), 400);
    await expectError(await call("PUT", `/credentials/${c.id}`, { body: { name: "" } }), 400);
    expect(await json("GET", `/credentials/${c.id}`)).toEqual(c);
    expect(await decrypt(c.id)).toEqual({ openAIApiKey: "sk-1" });
  });
});
