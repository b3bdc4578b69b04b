import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";

describe("tools", () => {
  it("creates, reads, lists, updates and deletes a tool", async () => {
    const created = await json("POST", "/tools", {
      body: { name: "date_tool", description: "dates", schema: '[{"property":"x","type":"string"}]', func: "return 1" },
    });
    expect(created).toMatchObject({ name: "date_tool", description: "dates", color: null, func: "return 1" });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    expect(await json("GET", `/tools/${created.id}`)).toEqual(created);
    const list = await json("GET", "/tools");
    expect(list.map((t: any) => t.id)).toContain(created.id);

    const updated = await json("PUT", `/tools/${created.id}`, { body: { color: "#fff" } });
    expect(updated).toMatchObject({ name: "date_tool", color: "#fff" });

    expect(await json("DELETE", `/tools/${created.id}`)).toEqual({ deleted: 1 });
    await expectError(await call("GET", `/tools/${created.id}`), 404);
  });

  it("keeps a client-chosen id and refuses it twice", async () => {
    const id = uuid();
    expect((await json("POST", "/tools", { body: { id, name: "t" } })).id).toBe(id);
    await expectError(await call("POST", "/tools", { body: { id, name: "t" } }), 409);
  });

  it("rejects bad input with 4xx JSON", async () => {
    await expectError(await call("POST", "/tools", { body: {} }), 400);
    await expectError(await call("POST", "/tools", { raw: "{not json", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/tools", { raw: "name=x", headers: { "content-type": "text/plain" } }), 415);
    await expectError(await call("GET", "/tools/not-a-uuid"), 400);
    await expectError(await call("POST", "/tools", { body: { name: "x", schema: "{oops" } }), 400);
    await expectError(await call("GET", "/tools", { token: null }), 401);
    await expectError(await call("GET", "/tools", { token: "wrong-token-wrong-token" }), 401);
  });
});
