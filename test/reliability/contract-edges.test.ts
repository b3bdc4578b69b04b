// Issue 9.6: contract edge cases. A PUT whose body is empty (zero bytes, no content type: what
// `curl -X PUT` and many clients send) is a 400, not a silent no-op 200; an anonymous PUT
// /feedback/{id} for an id that does not exist answers 401 like one that exists on a private
// chatflow, so anonymous callers cannot probe which feedback ids exist.
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { createFlow, seedMessages } from "../seed";

describe("PUT without a body", () => {
  it("PUT /chatflows/{id} with an empty body is a 400 and changes nothing", async () => {
    const flow = await json("POST", "/chatflows", { body: { name: "keep", flowData: '{"nodes":[],"edges":[]}' } });
    for (const raw of [new Uint8Array(0), undefined]) {
      const err = await expectError(await call("PUT", `/chatflows/${flow.id}`, raw ? { raw } : {}), 400);
      expect(err.message).toMatch(/body is required/i);
    }
    const stored = await json("GET", `/chatflows/${flow.id}`);
    expect(stored).toMatchObject({ name: "keep", updatedDate: flow.updatedDate });
    // An empty JSON object is a body: a partial update of no fields.
    expect((await call("PUT", `/chatflows/${flow.id}`, { body: {} })).status).toBe(200);
  });

  it("other all-optional PUTs answer the same 400", async () => {
    const tool = await json("POST", "/tools", { body: { name: "t", description: "d" } });
    await expectError(await call("PUT", `/tools/${tool.id}`, { raw: new Uint8Array(0) }), 400);
    expect((await json("GET", `/tools/${tool.id}`)).updatedDate).toBe(tool.updatedDate);
  });
});

describe("anonymous PUT /feedback/{id}", () => {
  it("answers 401 for an unknown id, as for a private chatflow's feedback; 404 only with a token", async () => {
    const unknown = uuid();
    await expectError(await call("PUT", `/feedback/${unknown}`, { token: null, body: { content: "x" } }), 401);
    await expectError(await call("PUT", `/feedback/${unknown}`, { body: { content: "x" } }), 404);

    const flow = await createFlow({ isPublic: false });
    const [, answer] = await seedMessages(flow.id, [
      { role: "userMessage", chatId: "c", createdDate: "2026-01-10T09:00:00.000Z" },
      { role: "apiMessage", chatId: "c", createdDate: "2026-01-10T09:00:01.000Z" },
    ]);
    const created = await json("POST", "/feedback", { body: { messageId: answer.id, rating: "THUMBS_UP" } });
    const known = await expectError(await call("PUT", `/feedback/${created.id}`, { token: null, body: { content: "x" } }), 401);
    const missing = await expectError(await call("PUT", `/feedback/${unknown}`, { token: null, body: { content: "x" } }), 401);
    expect(missing.message).toBe(known.message);
  });

  it("still works anonymously on a public chatflow's feedback", async () => {
    const flow = await createFlow({ isPublic: true });
    const [, answer] = await seedMessages(flow.id, [
      { role: "userMessage", chatId: "c", createdDate: "2026-01-10T09:00:00.000Z" },
      { role: "apiMessage", chatId: "c", createdDate: "2026-01-10T09:00:01.000Z" },
    ]);
    const created = await json("POST", "/feedback", { token: null, body: { messageId: answer.id, rating: "THUMBS_UP" } });
    expect(await json("PUT", `/feedback/${created.id}`, { token: null, body: { content: "thanks" } })).toMatchObject({
      id: created.id,
      content: "thanks",
    });
  });
});
