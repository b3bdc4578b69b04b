// What an outside sweep of hostile input found answering 500 or the wrong thing: a trigger-log page
// number past SQLite's 64-bit OFFSET, an import date number past Date's range, and two DELETEs of
// one chatflow at once both answering {"deleted": 1}. Each now answers as the contract says.
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";

const newFlow = (name: string) => json("POST", "/chatflows", { body: { name, flowData: '{"nodes":[],"edges":[]}' } });

describe("GET /chatflows/{id}/schedule/trigger-logs paging", () => {
  it("a page number too big for SQLite's OFFSET is a 400 naming the range, not a 500", async () => {
    const flow = await newFlow("trigger-log paging");
    for (const page of ["99999999999999999999", "1000001", "9007199254740993"]) {
      const err = await expectError(await call("GET", `/chatflows/${flow.id}/schedule/trigger-logs?page=${page}`), 400);
      expect(err.message).toBe("page must be an integer from 1 to 1000000");
    }
    const huge = await expectError(await call("GET", `/chatflows/${flow.id}/schedule/trigger-logs?limit=99999999999999999999`), 400);
    expect(huge.message).toMatch(/^limit must be an integer from 1 to/);
    // The largest page still answers (empty), its limit capped at 100 as before.
    expect(await json("GET", `/chatflows/${flow.id}/schedule/trigger-logs?page=1000000&limit=1000`)).toEqual({
      data: [],
      total: 0,
      page: 1000000,
      limit: 100,
    });
  });
});

describe("POST /export-import/import dates", () => {
  it("a date given as a number outside Date's range is a 400 and imports nothing", async () => {
    for (const createdDate of [1e308, -1e16, 8.64e15 + 1]) {
      const id = uuid();
      const file = {
        ChatFlow: [{ id, name: "far future", flowData: '{"nodes":[],"edges":[]}', type: "CHATFLOW", createdDate }],
      };
      const err = await expectError(await call("POST", "/export-import/import", { body: file }), 400);
      expect(err.message).toContain(`ChatFlow[0] (id ${id}, "far future"): createdDate: must be an ISO 8601 date`);
      await expectError(await call("GET", `/chatflows/${id}`), 404);
    }
    // A number inside the range is a time in milliseconds, as before.
    const id = uuid();
    const ok = { ChatFlow: [{ id, name: "epoch", flowData: '{"nodes":[],"edges":[]}', type: "CHATFLOW", createdDate: 0 }] };
    await json("POST", "/export-import/import", { body: ok });
    expect((await json("GET", `/chatflows/${id}`)).createdDate).toBe("1970-01-01T00:00:00.000Z");
  });
});

describe("DELETE /chatflows/{id} twice at once", () => {
  it("exactly one answers {deleted: 1}; the others 404, as a delete of what is gone", async () => {
    for (let round = 0; round < 6; round++) {
      const flow = await newFlow(`double delete ${round}`);
      const answers = await Promise.all([1, 2, 3].map(() => call("DELETE", `/chatflows/${flow.id}`)));
      const ok = answers.filter((r) => r.status === 200);
      expect(ok.length, `round ${round}: ${answers.map((r) => r.status)}`).toBe(1);
      expect(await ok[0].json()).toEqual({ deleted: 1 });
      for (const r of answers.filter((a) => a.status !== 200)) {
        expect((await expectError(r, 404)).message).toBe(`Chatflow ${flow.id} not found`);
      }
      await expectError(await call("GET", `/chatflows/${flow.id}`), 404);
    }
  });
});
