import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { countOf, createFlow, rowsOf } from "../seed";

interface History {
  id: string;
  chatflowid: string;
  result: string;
  flowData: string;
  date: string;
}

async function seedHistory(chatflowid: string, dates: string[]): Promise<History[]> {
  const rows = dates.map((date, i) => ({
    id: uuid(),
    chatflowid,
    result: JSON.stringify({
      numAdded: i + 1,
      numUpdated: 0,
      numSkipped: 0,
      numDeleted: 0,
      addedDocs: [{ pageContent: `doc ${i}`, metadata: { source: "a.txt" } }],
    }),
    flowData: JSON.stringify({ nodes: [{ id: "memoryVectorStore_0", data: { name: "memoryVectorStore" } }], edges: [] }),
    date,
  }));
  const insert = env.DB.prepare("INSERT INTO upsert_history (id, chatflowid, result, flowData, date) VALUES (?,?,?,?,?)");
  await env.DB.batch(rows.map((r) => insert.bind(r.id, r.chatflowid, r.result, r.flowData, r.date)));
  return rows;
}

/** Three upserts of one chatflow on Jan 10, 11 (twice, inserted out of order) and 12; one of another chatflow. */
async function histories() {
  const flow = await createFlow();
  const other = await createFlow();
  const [h3, h1, h2, h4] = await seedHistory(flow.id, [
    "2026-01-11T18:00:00.000Z",
    "2026-01-10T08:00:00.000Z",
    "2026-01-11T09:00:00.000Z",
    "2026-01-12T23:59:59.999Z",
  ]);
  const [elsewhere] = await seedHistory(other.id, ["2026-01-11T00:00:00.000Z"]);
  return { flow, other, h1, h2, h3, h4, elsewhere };
}

const get = (id: string, query = "") => json<History[]>("GET", `/upsert-history/${id}${query}`);
const patch = (ids: unknown, path = "/upsert-history") => call("PATCH", path, { body: { ids } });

describe("GET /upsert-history/{chatflowid}", () => {
  it("lists the chatflow's upserts oldest first (the service document's default), result and flowData as JSON strings", async () => {
    const s = await histories();
    const body = await get(s.flow.id);
    expect(body).toEqual([s.h1, s.h2, s.h3, s.h4]);
    expect(typeof body[0].result).toBe("string");
    expect(JSON.parse(body[0].result)).toMatchObject({ numAdded: 2 });
    expect(JSON.parse(body[0].flowData).nodes[0].id).toBe("memoryVectorStore_0");
    expect(await get(s.other.id)).toEqual([s.elsewhere]);
    expect(await get((await createFlow()).id)).toEqual([]);
  });

  it("orders ASC or DESC, case-insensitively", async () => {
    const s = await histories();
    expect(await get(s.flow.id, "?order=ASC")).toEqual([s.h1, s.h2, s.h3, s.h4]);
    expect(await get(s.flow.id, "?order=DESC")).toEqual([s.h4, s.h3, s.h2, s.h1]);
    expect(await get(s.flow.id, "?order=desc")).toEqual([s.h4, s.h3, s.h2, s.h1]);
  });

  it("bounds by startDate, endDate (a date includes its whole day) or both", async () => {
    const s = await histories();
    expect(await get(s.flow.id, "?startDate=2026-01-11")).toEqual([s.h2, s.h3, s.h4]);
    expect(await get(s.flow.id, "?startDate=2026-01-11T09:00:00.001Z")).toEqual([s.h3, s.h4]);
    expect(await get(s.flow.id, "?endDate=2026-01-11")).toEqual([s.h1, s.h2, s.h3]);
    expect(await get(s.flow.id, "?endDate=2026-01-12")).toEqual([s.h1, s.h2, s.h3, s.h4]);
    expect(await get(s.flow.id, "?startDate=2026-01-11&endDate=2026-01-11&order=DESC")).toEqual([s.h3, s.h2]);
    expect(await get(s.flow.id, "?startDate=2026-01-11T00:00:00.000Z&endDate=2026-01-11T12:00:00.000Z")).toEqual([s.h2]);
  });

  it("lists the upserts recorded under a document store id, as Flowise does", async () => {
    const storeId = uuid();
    await env.DB.prepare("INSERT INTO document_store (id, name, createdDate, updatedDate) VALUES (?,?,?,?)")
      .bind(storeId, "docs", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z")
      .run();
    const [h] = await seedHistory(storeId, ["2026-01-05T00:00:00.000Z"]);
    expect(await get(storeId)).toEqual([h]);
  });

  it("needs a token; 404 for an unknown chatflow; 400 for bad input", async () => {
    const s = await histories();
    await expectError(await call("GET", `/upsert-history/${s.flow.id}`, { token: null }), 401);
    await expectError(await call("GET", `/upsert-history/${s.flow.id}`, { token: "not-a-real-key-not-a-real-key" }), 401);
    await expectError(await call("GET", `/upsert-history/${uuid()}`), 404);
    await expectError(await call("GET", "/upsert-history/not-a-uuid"), 400);
    for (const query of ["order=sideways", "startDate=notadate", "endDate=2026-13-01"]) {
      await expectError(await call("GET", `/upsert-history/${s.flow.id}?${query}`), 400);
    }
  });
});

describe("PATCH /upsert-history", () => {
  it("deletes the listed records and answers {deleted}", async () => {
    const s = await histories();
    const res = await patch([s.h1.id, s.h3.id]);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: 2 });
    expect(await get(s.flow.id)).toEqual([s.h2, s.h4]);
    expect(await rowsOf("SELECT id FROM upsert_history WHERE id IN (?, ?)", s.h1.id, s.h3.id)).toEqual([]);
    expect(await get(s.other.id)).toEqual([s.elsewhere]);
  });

  it("counts only the records that exist; 404 when none does", async () => {
    const s = await histories();
    expect(await (await patch([s.h1.id, uuid(), s.h1.id])).json()).toEqual({ deleted: 1 });
    await expectError(await patch([s.h1.id]), 404);
    await expectError(await patch([uuid(), uuid()]), 404);
    expect(await get(s.flow.id)).toEqual([s.h2, s.h3, s.h4]);
  });

  it("answers on /upsert-history/ too, and takes upper-case ids", async () => {
    const s = await histories();
    expect(await (await patch([s.h2.id.toUpperCase()], "/upsert-history/")).json()).toEqual({ deleted: 1 });
    expect(await get(s.flow.id)).toEqual([s.h1, s.h3, s.h4]);
  });

  it("deletes more than 100 records at once", async () => {
    const flow = await createFlow();
    const rows = await seedHistory(
      flow.id,
      Array.from({ length: 150 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()),
    );
    expect(await (await patch(rows.map((r) => r.id))).json()).toEqual({ deleted: 150 });
    expect(await countOf("upsert_history", "chatflowid = ?", flow.id)).toBe(0);
  });

  it("PATCH /upsert-history/{chatflowid} (the service document's path) deletes only that chatflow's records", async () => {
    const s = await histories();
    const res = await patch([s.h1.id, s.elsewhere.id], `/upsert-history/${s.flow.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: 1 });
    expect(await get(s.flow.id)).toEqual([s.h2, s.h3, s.h4]);
    expect(await get(s.other.id)).toEqual([s.elsewhere]);
    await expectError(await patch([s.elsewhere.id], `/upsert-history/${s.flow.id}`), 404);
    await expectError(await patch([s.h2.id], `/upsert-history/${uuid()}`), 404);
    await expectError(await patch([s.h2.id], "/upsert-history/not-a-uuid"), 400);
  });

  it("answers 400 for bad ids or bodies and 401 without a token, deleting nothing", async () => {
    const s = await histories();
    for (const ids of [[], ["not-a-uuid"], [s.h1.id, "nope"], "x", [1], null]) {
      await expectError(await patch(ids), 400);
    }
    await expectError(await call("PATCH", "/upsert-history", { body: {} }), 400);
    await expectError(await call("PATCH", "/upsert-history", { body: [s.h1.id] }), 400);
    await expectError(await call("PATCH", "/upsert-history", { raw: "{oops", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("PATCH", "/upsert-history"), 400);
    await expectError(await call("PATCH", "/upsert-history", { token: null, body: { ids: [s.h1.id] } }), 401);
    expect(await get(s.flow.id)).toEqual([s.h1, s.h2, s.h3, s.h4]);
  });
});
