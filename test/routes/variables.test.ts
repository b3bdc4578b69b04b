import { describe, expect, it } from "vitest";
import { call, expectError, json, sleep, uuid } from "../helpers";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("variables", () => {
  it("creates a static variable by default and a runtime one on request", async () => {
    const s = await json("POST", "/variables", { body: { name: "greeting", value: "hello" } });
    expect(s).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "greeting",
      value: "hello",
      type: "static",
      createdDate: expect.stringMatching(ISO),
      updatedDate: expect.stringMatching(ISO),
    });
    const r = await json("POST", "/variables", { body: { name: "OPENAI_MODEL", type: "runtime" } });
    expect(r).toMatchObject({ name: "OPENAI_MODEL", value: null, type: "runtime" });
    const listed = await json("GET", "/variables");
    expect(listed.find((v: any) => v.id === s.id)).toEqual(s);
    expect(listed.find((v: any) => v.id === r.id)).toEqual(r);
  });

  it("refuses invalid bodies with 422 and malformed ones with 400", async () => {
    await expectError(await call("POST", "/variables", { body: { value: "v" } }), 422); // name missing
    await expectError(await call("POST", "/variables", { body: { name: "" } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: "x", type: "dynamic" } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: "x", type: "STATIC" } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: 12 } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: "x", value: 12 } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: "x", value: { a: 1 } } }), 422);
    await expectError(await call("POST", "/variables", { body: { name: "x".repeat(256) } }), 422);
    await expectError(await call("POST", "/variables", { raw: '{"name": "x",', headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/variables", { body: [{ name: "x" }] }), 400);
    await expectError(await call("POST", "/variables", { body: "x" }), 400);
    await expectError(await call("POST", "/variables"), 400);
    expect((await json("GET", "/variables")).map((v: any) => v.name)).not.toContain("x");
  });

  it("refuses a duplicate name with 409, on create and on rename", async () => {
    const a = await json("POST", "/variables", { body: { name: "dup_a", value: "1" } });
    const b = await json("POST", "/variables", { body: { name: "dup_b", value: "2" } });
    const err = await expectError(await call("POST", "/variables", { body: { name: "dup_a", value: "other" } }), 409);
    expect(err.message).toContain("dup_a");
    await expectError(await call("PUT", `/variables/${b.id}`, { body: { name: "dup_a" } }), 409);
    expect((await json("GET", "/variables")).filter((v: any) => v.name === "dup_a")).toEqual([a]);
    expect((await json("GET", "/variables")).find((v: any) => v.id === b.id)).toEqual(b);
    // Renaming to its own name is fine; a freed name can be taken again.
    expect((await json("PUT", `/variables/${a.id}`, { body: { name: "dup_a" } })).name).toBe("dup_a");
    await json("DELETE", `/variables/${a.id}`);
    expect((await json("POST", "/variables", { body: { name: "dup_a" } })).name).toBe("dup_a");
  });

  it("409 for a reused id", async () => {
    const id = uuid();
    expect((await json("POST", "/variables", { body: { id, name: "with_id" } })).id).toBe(id);
    await expectError(await call("POST", "/variables", { body: { id, name: "with_id_2" } }), 409);
  });

  it("updates partially and bumps updatedDate; validates the update with 400", async () => {
    const v = await json("POST", "/variables", { body: { name: "partial", value: "one" } });
    await sleep();
    const valued = await json("PUT", `/variables/${v.id}`, { body: { value: "two" } });
    expect(valued).toEqual({ ...v, value: "two", updatedDate: expect.stringMatching(ISO) });
    expect(valued.updatedDate > v.updatedDate).toBe(true);
    const typed = await json("PUT", `/variables/${v.id}`, { body: { type: "runtime" } });
    expect(typed).toEqual({ ...valued, type: "runtime", updatedDate: expect.stringMatching(ISO) });
    const renamed = await json("PUT", `/variables/${v.id}`, { body: { name: "partial_renamed" } });
    expect(renamed).toEqual({ ...typed, name: "partial_renamed", updatedDate: expect.stringMatching(ISO) });
    const cleared = await json("PUT", `/variables/${v.id}`, { body: { value: null } });
    expect(cleared.value).toBeNull();
    expect((await json("GET", "/variables")).find((x: any) => x.id === v.id)).toEqual(cleared);

    await expectError(await call("PUT", `/variables/${v.id}`, { body: { type: "dynamic" } }), 400);
    await expectError(await call("PUT", `/variables/${v.id}`, { body: { name: "" } }), 400);
    await expectError(await call("PUT", `/variables/${v.id}`, { body: { value: 3 } }), 400);
    await expectError(await call("PUT", `/variables/${v.id}`, { raw: "{", headers: { "content-type": "application/json" } }), 400);
    expect((await json("GET", "/variables")).find((x: any) => x.id === v.id)).toEqual(cleared);
  });

  it("deletes once; 404 for unknown ids, 400 for malformed ones", async () => {
    const v = await json("POST", "/variables", { body: { name: "gone" } });
    expect(await json("DELETE", `/variables/${v.id}`)).toEqual({ deleted: 1 });
    expect((await json("GET", "/variables")).map((x: any) => x.id)).not.toContain(v.id);
    await expectError(await call("DELETE", `/variables/${v.id}`), 404);
    await expectError(await call("PUT", `/variables/${v.id}`, { body: { value: "x" } }), 404);
    await expectError(await call("PUT", "/variables/gone", { body: { value: "x" } }), 400);
    await expectError(await call("DELETE", "/variables/gone"), 400);
  });

  it("lists newest first and pages", async () => {
    const a = await json("POST", "/variables", { body: { name: "list_a" } });
    await sleep();
    const b = await json("POST", "/variables", { body: { name: "list_b" } });
    const all = await json("GET", "/variables");
    const ids = all.map((v: any) => v.id);
    expect(ids.indexOf(b.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));
    expect(await json("GET", "/variables?page=1&limit=1")).toEqual({ data: all.slice(0, 1), total: all.length });
    expect(await json("GET", `/variables?page=${all.length}&limit=1`)).toEqual({ data: all.slice(-1), total: all.length });
    await expectError(await call("GET", "/variables?page=0"), 400);
  });
});
