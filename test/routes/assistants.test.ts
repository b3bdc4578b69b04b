import { describe, expect, it } from "vitest";
import { call, expectError, json, sleep, uuid } from "../helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const credential = () =>
  json("POST", "/credentials", {
    body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-assistant-secret" } },
  });

describe("assistants", () => {
  it("creates with details only and fills the defaults", async () => {
    const created = await json("POST", "/assistants", { body: { details: { name: "Helper" } } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      details: { name: "Helper" },
      credential: null,
      iconSrc: null,
      type: "CUSTOM",
      createdDate: expect.stringMatching(ISO),
      updatedDate: expect.stringMatching(ISO),
    });
    expect(await json("GET", `/assistants/${created.id}`)).toEqual(created);
  });

  it("round-trips the details object, unknown extra keys included", async () => {
    const cred = await credential();
    const details = {
      id: "asst_abc",
      name: "Researcher",
      description: "finds things",
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      temperature: 0.7,
      top_p: 1,
      tools: ["function", "code_interpreter", "file_search"],
      tool_resources: { file_search: { vector_store_ids: ["vs_1"] } },
      // Keys a Flowise export carries that the schema does not name:
      files: [{ id: "file-1", filename: "a.pdf" }],
      uploadFiles: "",
      nested: { deep: { list: [1, "two", null, true] } },
    };
    const id = uuid();
    const created = await json("POST", "/assistants", {
      body: { id, details, credential: cred.id, iconSrc: "https://x/icon.png", type: "OPENAI" },
    });
    expect(created).toEqual({
      id,
      details,
      credential: cred.id,
      iconSrc: "https://x/icon.png",
      type: "OPENAI",
      createdDate: expect.stringMatching(ISO),
      updatedDate: created.createdDate,
    });
    expect(await json("GET", `/assistants/${id}`)).toEqual(created);
    const listed = (await json("GET", "/assistants")).find((a: any) => a.id === id);
    expect(listed).toEqual(created);
  });

  it("validates details.tools: 422 on POST, 400 on PUT", async () => {
    const err = await expectError(await call("POST", "/assistants", { body: { details: { tools: ["function", "web_browser"] } } }), 422);
    expect(err.message).toContain("tools");
    await expectError(await call("POST", "/assistants", { body: { details: { tools: "function" } } }), 422);
    const a = await json("POST", "/assistants", { body: { details: { name: "t", tools: ["function"] } } });
    await expectError(await call("PUT", `/assistants/${a.id}`, { body: { details: { tools: ["retrieval"] } } }), 400);
    expect((await json("GET", `/assistants/${a.id}`)).details).toEqual({ name: "t", tools: ["function"] });
  });

  it("refuses out-of-range temperature and top_p, and other bad bodies", async () => {
    await expectError(await call("POST", "/assistants", { body: { details: { temperature: 2.5 } } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: { temperature: -0.1 } } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: { temperature: "hot" } } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: { top_p: 1.5 } } }), 422);
    await expectError(await call("POST", "/assistants", { body: {} }), 422); // details missing
    // Text holding a JSON object is accepted (Flowise's shape: writes accept both); other text is not.
    await expectError(await call("POST", "/assistants", { body: { details: "not json" } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: "[]" } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: [] } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: {}, type: "ANTHROPIC" } }), 422);
    await expectError(await call("POST", "/assistants", { body: { details: {}, credential: "not-a-uuid" } }), 422);
    await expectError(await call("POST", "/assistants", { body: [{ details: {} }] }), 400);
    await expectError(await call("POST", "/assistants", { raw: "{details", headers: { "content-type": "application/json" } }), 400);
    // Bounds are accepted.
    expect((await json("POST", "/assistants", { body: { details: { temperature: 0 } } })).details.temperature).toBe(0);
    expect((await json("POST", "/assistants", { body: { details: { temperature: 2 } } })).details.temperature).toBe(2);
    const a = await json("POST", "/assistants", { body: { details: { temperature: 1 } } });
    await expectError(await call("PUT", `/assistants/${a.id}`, { body: { details: { temperature: 3 } } }), 400);
    await expectError(await call("PUT", `/assistants/${a.id}`, { body: { type: "NOPE" } }), 400);
    expect((await json("GET", `/assistants/${a.id}`)).details).toEqual({ temperature: 1 });
  });

  it("requires the credential to exist (422 on POST, 400 on PUT)", async () => {
    const ghost = uuid();
    const err = await expectError(await call("POST", "/assistants", { body: { details: {}, credential: ghost } }), 422);
    expect(err.message).toContain(ghost);
    const cred = await credential();
    const a = await json("POST", "/assistants", { body: { details: {}, credential: cred.id } });
    expect(a.credential).toBe(cred.id);
    await expectError(await call("PUT", `/assistants/${a.id}`, { body: { credential: ghost } }), 400);
    expect((await json("GET", `/assistants/${a.id}`)).credential).toBe(cred.id);
    // Clearing it is allowed.
    expect((await json("PUT", `/assistants/${a.id}`, { body: { credential: null } })).credential).toBeNull();
  });

  it("updates partially: details replaced as a whole, other fields kept, updatedDate bumped", async () => {
    const cred = await credential();
    const a = await json("POST", "/assistants", { body: { details: { name: "v1", extra: 1 }, credential: cred.id, iconSrc: "i" } });
    await sleep();
    const renamed = await json("PUT", `/assistants/${a.id}`, { body: { details: { name: "v2", other: { x: [1] } } } });
    expect(renamed).toEqual({ ...a, details: { name: "v2", other: { x: [1] } }, updatedDate: expect.stringMatching(ISO) });
    expect(renamed.updatedDate > a.updatedDate).toBe(true);
    const typed = await json("PUT", `/assistants/${a.id}`, { body: { type: "AZURE" } });
    expect(typed).toEqual({ ...renamed, type: "AZURE", updatedDate: expect.stringMatching(ISO) });
    expect(await json("GET", `/assistants/${a.id}`)).toEqual(typed);
  });

  it("lists newest first, paged as {data, total}", async () => {
    const first = await json("POST", "/assistants", { body: { details: { name: "first" } } });
    await sleep();
    const second = await json("POST", "/assistants", { body: { details: { name: "second" } } });
    const all = await json("GET", "/assistants");
    expect(Array.isArray(all)).toBe(true);
    const ids = all.map((a: any) => a.id);
    expect(ids.indexOf(second.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdDate >= all[i].createdDate).toBe(true);
    expect(await json("GET", "/assistants?page=1&limit=1")).toEqual({ data: all.slice(0, 1), total: all.length });
    expect(await json("GET", "/assistants?page=2&limit=1")).toEqual({ data: all.slice(1, 2), total: all.length });
    await expectError(await call("GET", "/assistants?limit=abc"), 400);
  });

  it("answers 404 for unknown ids, 400 for malformed ones, 409 for a reused id", async () => {
    const ghost = uuid();
    await expectError(await call("GET", `/assistants/${ghost}`), 404);
    await expectError(await call("PUT", `/assistants/${ghost}`, { body: { iconSrc: "x" } }), 404);
    await expectError(await call("DELETE", `/assistants/${ghost}`), 404);
    await expectError(await call("GET", "/assistants/asst_123"), 400);
    await expectError(await call("PUT", "/assistants/asst_123", { body: {} }), 400);
    await expectError(await call("DELETE", "/assistants/asst_123"), 400);

    const id = uuid();
    await json("POST", "/assistants", { body: { id, details: { name: "orig" } } });
    await expectError(await call("POST", "/assistants", { body: { id, details: { name: "dup" } } }), 409);
    expect((await json("GET", `/assistants/${id}`)).details).toEqual({ name: "orig" });

    expect(await json("DELETE", `/assistants/${id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/assistants/${id}`), 404);
    await expectError(await call("DELETE", `/assistants/${id}`), 404);
    expect((await json("GET", "/assistants")).map((a: any) => a.id)).not.toContain(id);
  });
});
