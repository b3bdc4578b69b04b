import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { type Seeded, createFlow, rowsOf, seedFeedback, seedMessages } from "../seed";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BAD_TOKEN = "not-a-real-key-not-a-real-key";

/** A chatflow with one chat: q1 a1 q2 a2 (answers ratable). */
async function chat(options: { isPublic?: boolean; chatId?: string } = {}) {
  const flow = await createFlow({ isPublic: options.isPublic });
  const chatId = options.chatId ?? `chat-${uuid().slice(0, 8)}`;
  const [q1, a1, q2, a2] = await seedMessages(flow.id, [
    { role: "userMessage", chatId, createdDate: "2026-01-10T09:00:00.000Z" },
    { role: "apiMessage", chatId, createdDate: "2026-01-10T09:00:01.000Z" },
    { role: "userMessage", chatId, createdDate: "2026-01-10T09:01:00.000Z" },
    { role: "apiMessage", chatId, createdDate: "2026-01-10T09:01:01.000Z" },
  ]);
  return { flow, chatId, q1, a1, q2, a2 };
}

const stored = async (id: string) => (await rowsOf("SELECT * FROM chat_message_feedback WHERE id = ?", id))[0];
const storedFor = async (messageId: string) => rowsOf("SELECT * FROM chat_message_feedback WHERE messageId = ?", messageId);

function expectRecord(body: any, message: Seeded, rating: string, content: string | null) {
  expect(Object.keys(body).sort()).toEqual(["chatId", "chatflowid", "content", "createdDate", "id", "messageId", "rating"]);
  expect(body).toEqual({
    id: expect.stringMatching(UUID),
    chatflowid: message.chatflowid,
    chatId: message.chatId,
    messageId: message.id,
    rating,
    content,
    createdDate: expect.stringMatching(ISO),
  });
}

describe("POST /feedback", () => {
  it("rates an API message, filling chatflowid and chatId from the message", async () => {
    const s = await chat();
    const before = Date.now();
    const body = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    expectRecord(body, s.a1, "THUMBS_UP", null);
    expect(Date.parse(body.createdDate)).toBeGreaterThanOrEqual(before - 1000);
    expect(await stored(body.id)).toEqual(body);
  });

  it("keeps content and accepts chatflowid/chatId that agree with the message", async () => {
    const s = await chat();
    const body = await json("POST", "/feedback", {
      body: { chatflowid: s.flow.id, chatId: s.chatId, messageId: s.a2.id, rating: "THUMBS_DOWN", content: "wrong answer" },
    });
    expectRecord(body, s.a2, "THUMBS_DOWN", "wrong answer");
    expect(await stored(body.id)).toEqual(body);
    // An upper-case chatflow id is the same chatflow.
    const s2 = await chat();
    const upper = await json("POST", "/feedback", {
      body: { chatflowid: s2.flow.id.toUpperCase(), messageId: s2.a1.id.toUpperCase(), rating: "THUMBS_UP" },
    });
    expectRecord(upper, s2.a1, "THUMBS_UP", null);
  });

  it("refuses a chatflowid or chatId that disagrees with the message (400), storing nothing", async () => {
    const s = await chat();
    const other = await createFlow();
    let error = await expectError(
      await call("POST", "/feedback", { body: { chatflowid: other.id, messageId: s.a1.id, rating: "THUMBS_UP" } }),
      400,
    );
    expect(error.message).toMatch(/chatflowid/);
    error = await expectError(
      await call("POST", "/feedback", { body: { chatId: "another-chat", messageId: s.a1.id, rating: "THUMBS_UP" } }),
      400,
    );
    expect(error.message).toMatch(/chatId/);
    expect(await storedFor(s.a1.id)).toEqual([]);
  });

  it("answers 404 for an unknown message and for a user message", async () => {
    const s = await chat();
    await expectError(await call("POST", "/feedback", { body: { messageId: uuid(), rating: "THUMBS_UP" } }), 404);
    const error = await expectError(await call("POST", "/feedback", { body: { messageId: s.q1.id, rating: "THUMBS_UP" } }), 404);
    expect(error.message).toContain(s.q1.id);
    expect(await storedFor(s.q1.id)).toEqual([]);
  });

  it("allows one feedback per message: a second is 409 and changes nothing", async () => {
    const s = await chat();
    const first = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP", content: "first" } });
    await expectError(await call("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_DOWN", content: "second" } }), 409);
    await expectError(await call("POST", `/feedback/${s.flow.id}`, { body: { messageId: s.a1.id, rating: "THUMBS_DOWN" } }), 409);
    expect(await storedFor(s.a1.id)).toEqual([first]);
  });

  it("validates the body (400)", async () => {
    const s = await chat();
    for (const body of [
      { messageId: s.a1.id, rating: "MEH" },
      { messageId: s.a1.id, rating: "thumbs_up" },
      { messageId: s.a1.id },
      { rating: "THUMBS_UP" },
      { messageId: "not-a-uuid", rating: "THUMBS_UP" },
      { messageId: s.a1.id, rating: "THUMBS_UP", chatflowid: "not-a-uuid" },
      { messageId: s.a1.id, rating: "THUMBS_UP", content: 42 },
      [],
      "text",
    ]) {
      await expectError(await call("POST", "/feedback", { body }), 400);
    }
    await expectError(await call("POST", "/feedback", { raw: "{oops", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/feedback"), 400);
    expect(await storedFor(s.a1.id)).toEqual([]);
  });
});

describe("POST /feedback/{chatflowid} (the chat widget's form)", () => {
  it("takes the chatflow id from the path", async () => {
    const s = await chat();
    const body = await json("POST", `/feedback/${s.flow.id}`, { body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    expectRecord(body, s.a1, "THUMBS_UP", null);
    expect(await stored(body.id)).toEqual(body);
    const same = await json("POST", `/feedback/${s.flow.id}/`, {
      body: { chatflowid: s.flow.id, chatId: s.chatId, messageId: s.a2.id, rating: "THUMBS_DOWN", content: "meh" },
    });
    expectRecord(same, s.a2, "THUMBS_DOWN", "meh");
  });

  it("refuses a body chatflowid other than the path's, and a path other than the message's chatflow (400)", async () => {
    const s = await chat();
    const other = await createFlow();
    const error = await expectError(
      await call("POST", `/feedback/${s.flow.id}`, { body: { chatflowid: other.id, messageId: s.a1.id, rating: "THUMBS_UP" } }),
      400,
    );
    expect(error.message).toMatch(/match/);
    await expectError(await call("POST", `/feedback/${other.id}`, { body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 400);
    await expectError(await call("POST", "/feedback/not-a-uuid", { body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 400);
    expect(await storedFor(s.a1.id)).toEqual([]);
  });

  it("answers 404 for an unknown message", async () => {
    const s = await chat();
    await expectError(await call("POST", `/feedback/${s.flow.id}`, { body: { messageId: uuid(), rating: "THUMBS_UP" } }), 404);
  });
});

describe("PUT /feedback/{id}", () => {
  it("updates content, then rating, answering the updated record each time", async () => {
    const s = await chat();
    const created = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    const withContent = await json("PUT", `/feedback/${created.id}`, { body: { content: "Great answer" } });
    expect(withContent).toEqual({ ...created, content: "Great answer" });
    expect(await stored(created.id)).toEqual(withContent);
    const flipped = await json("PUT", `/feedback/${created.id}`, { body: { rating: "THUMBS_DOWN" } });
    expect(flipped).toEqual({ ...created, content: "Great answer", rating: "THUMBS_DOWN" });
    expect(await stored(created.id)).toEqual(flipped);
    const both = await json("PUT", `/feedback/${created.id}/`, { body: { rating: "THUMBS_UP", content: "changed my mind" } });
    expect(both).toEqual({ ...created, rating: "THUMBS_UP", content: "changed my mind" });
    // An empty update changes nothing and answers the record.
    expect(await json("PUT", `/feedback/${created.id}`, { body: {} })).toEqual(both);
  });

  it("answers 404 for an unknown id, 400 for a bad id or body", async () => {
    const s = await chat();
    const created = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    await expectError(await call("PUT", `/feedback/${uuid()}`, { body: { content: "x" } }), 404);
    await expectError(await call("PUT", "/feedback/not-a-uuid", { body: { content: "x" } }), 400);
    await expectError(await call("PUT", `/feedback/${created.id}`, { body: { rating: "MEH" } }), 400);
    await expectError(await call("PUT", `/feedback/${created.id}`, { body: { content: 7 } }), 400);
    await expectError(await call("PUT", `/feedback/${created.id}`, { raw: "nope", headers: { "content-type": "application/json" } }), 400);
    expect(await stored(created.id)).toEqual(created);
  });
});

describe("feedback access from chat widgets", () => {
  it("a public chatflow takes POST /feedback, POST /feedback/{chatflowid} and PUT /feedback/{id} without a token", async () => {
    const s = await chat({ isPublic: true });
    const a = await json("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    expectRecord(a, s.a1, "THUMBS_UP", null);
    const b = await json("POST", `/feedback/${s.flow.id}`, { token: null, body: { messageId: s.a2.id, rating: "THUMBS_DOWN" } });
    expectRecord(b, s.a2, "THUMBS_DOWN", null);
    expect(await json("PUT", `/feedback/${b.id}`, { token: null, body: { content: "from the widget" } })).toEqual({
      ...b,
      content: "from the widget",
    });
    // Validation and conflicts still apply to anonymous callers.
    await expectError(await call("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 409);
    await expectError(await call("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "NOPE" } }), 400);
  });

  it("a private chatflow answers 401 to anonymous callers and works with a token", async () => {
    const s = await chat({ isPublic: false });
    await expectError(await call("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 401);
    await expectError(
      await call("POST", `/feedback/${s.flow.id}`, { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }),
      401,
    );
    // A claim about the message's chat does not get an anonymous caller past the 401.
    await expectError(
      await call("POST", "/feedback", { token: null, body: { messageId: s.a1.id, chatId: "guess", rating: "THUMBS_UP" } }),
      401,
    );
    expect(await storedFor(s.a1.id)).toEqual([]);

    const created = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    await expectError(await call("PUT", `/feedback/${created.id}`, { token: null, body: { content: "anon" } }), 401);
    expect(await stored(created.id)).toEqual(created);
    expect(await json("PUT", `/feedback/${created.id}`, { body: { content: "admin" } })).toEqual({ ...created, content: "admin" });
    const viaPath = await json("POST", `/feedback/${s.flow.id}`, { body: { messageId: s.a2.id, rating: "THUMBS_DOWN" } });
    expectRecord(viaPath, s.a2, "THUMBS_DOWN", null);
  });

  it("a chatflow made public later opens up, and closing it again shuts anonymous callers out", async () => {
    const s = await chat({ isPublic: false });
    await expectError(await call("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 401);
    await json("PUT", `/chatflows/${s.flow.id}`, { body: { isPublic: true } });
    const created = await json("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    await json("PUT", `/chatflows/${s.flow.id}`, { body: { isPublic: false } });
    await expectError(await call("PUT", `/feedback/${created.id}`, { token: null, body: { content: "x" } }), 401);
  });

  it("a wrong token is 401 even on a public chatflow", async () => {
    const s = await chat({ isPublic: true });
    await expectError(await call("POST", "/feedback", { token: BAD_TOKEN, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }), 401);
    await expectError(
      await call("POST", `/feedback/${s.flow.id}`, { token: BAD_TOKEN, body: { messageId: s.a1.id, rating: "THUMBS_UP" } }),
      401,
    );
    expect(await storedFor(s.a1.id)).toEqual([]);
    const created = await json("POST", "/feedback", { token: null, body: { messageId: s.a1.id, rating: "THUMBS_UP" } });
    await expectError(await call("PUT", `/feedback/${created.id}`, { token: BAD_TOKEN, body: { content: "x" } }), 401);
    await expectError(
      await call("PUT", `/feedback/${created.id}`, { headers: { Authorization: "Basic abc" }, token: null, body: { content: "x" } }),
      401,
    );
    expect(await stored(created.id)).toEqual(created);
  });

  it("answers CORS preflight for any origin on the widget paths", async () => {
    const s = await chat({ isPublic: true });
    for (const path of ["/feedback", `/feedback/${s.flow.id}`]) {
      const res = await call("OPTIONS", path, {
        token: null,
        headers: {
          Origin: "https://shop.example",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type",
        },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    }
    const res = await call("POST", "/feedback", {
      token: null,
      headers: { Origin: "https://shop.example" },
      body: { messageId: s.a1.id, rating: "THUMBS_UP" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    const created = await res.json<{ id: string }>();
    const put = await call("OPTIONS", `/feedback/${created.id}`, {
      token: null,
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "content-type" },
    });
    expect(put.headers.get("Access-Control-Allow-Origin")).toBe("https://shop.example");
    expect(put.headers.get("Access-Control-Allow-Methods")).toContain("PUT");
  });
});

describe("GET /feedback/{chatflowid}", () => {
  /** Two chats of one chatflow with feedback on three days, plus feedback of another chatflow. */
  async function rated() {
    const flow = await createFlow();
    const other = await createFlow();
    const [, a1, , a2] = await seedMessages(flow.id, [
      { role: "userMessage", chatId: "c1", createdDate: "2026-01-10T09:00:00.000Z" },
      { role: "apiMessage", chatId: "c1", createdDate: "2026-01-10T09:00:01.000Z" },
      { role: "userMessage", chatId: "c2", createdDate: "2026-01-11T09:00:00.000Z" },
      { role: "apiMessage", chatId: "c2", createdDate: "2026-01-11T09:00:01.000Z" },
    ]);
    const [, a3] = await seedMessages(flow.id, [
      { role: "userMessage", chatId: "c1", createdDate: "2026-01-12T09:00:00.000Z" },
      { role: "apiMessage", chatId: "c1", createdDate: "2026-01-12T09:00:01.000Z" },
    ]);
    const [elsewhere] = await seedMessages(other.id, [{ role: "apiMessage", chatId: "c1", createdDate: "2026-01-11T00:00:00.000Z" }]);
    // Inserted out of date order, so ordering is by createdDate, not by insertion.
    const [f2, f3, f1] = await seedFeedback([
      { message: a2, rating: "THUMBS_DOWN", content: "no", createdDate: "2026-01-11T10:00:00.000Z" },
      { message: a3, rating: "THUMBS_UP", createdDate: "2026-01-12T23:59:59.999Z" },
      { message: a1, rating: "THUMBS_UP", content: "yes", createdDate: "2026-01-10T10:00:00.000Z" },
    ]);
    await seedFeedback([{ message: elsewhere, rating: "THUMBS_UP" }]);
    return { flow, f1, f2, f3 };
  }
  const get = (flowId: string, query = "") => json<any[]>("GET", `/feedback/${flowId}${query}`);

  it("lists the chatflow's feedback, oldest first by default", async () => {
    const r = await rated();
    expect(await get(r.flow.id)).toEqual([r.f1, r.f2, r.f3]);
    expect(await get((await createFlow()).id)).toEqual([]);
  });

  it("sorts by sortOrder, or Flowise's order alias, either case", async () => {
    const r = await rated();
    expect(await get(r.flow.id, "?sortOrder=asc")).toEqual([r.f1, r.f2, r.f3]);
    expect(await get(r.flow.id, "?sortOrder=desc")).toEqual([r.f3, r.f2, r.f1]);
    expect(await get(r.flow.id, "?sortOrder=DESC")).toEqual([r.f3, r.f2, r.f1]);
    expect(await get(r.flow.id, "?order=desc")).toEqual([r.f3, r.f2, r.f1]);
    expect(await get(r.flow.id, "?order=ASC")).toEqual([r.f1, r.f2, r.f3]);
    // sortOrder, the documented name, wins when both are given.
    expect(await get(r.flow.id, "?sortOrder=asc&order=desc")).toEqual([r.f1, r.f2, r.f3]);
  });

  it("filters by chatId, startDate, endDate and their combinations", async () => {
    const r = await rated();
    expect(await get(r.flow.id, "?chatId=c1")).toEqual([r.f1, r.f3]);
    expect(await get(r.flow.id, "?chatId=c2")).toEqual([r.f2]);
    expect(await get(r.flow.id, "?chatId=none")).toEqual([]);
    expect(await get(r.flow.id, "?startDate=2026-01-11")).toEqual([r.f2, r.f3]);
    expect(await get(r.flow.id, "?startDate=2026-01-11T10:00:00.001Z")).toEqual([r.f3]);
    expect(await get(r.flow.id, "?endDate=2026-01-11")).toEqual([r.f1, r.f2]);
    expect(await get(r.flow.id, "?endDate=2026-01-12")).toEqual([r.f1, r.f2, r.f3]);
    expect(await get(r.flow.id, "?startDate=2026-01-11&endDate=2026-01-11")).toEqual([r.f2]);
    expect(await get(r.flow.id, "?chatId=c1&startDate=2026-01-10T10:00:00.000Z&endDate=2026-01-12&sortOrder=desc")).toEqual([r.f3, r.f1]);
  });

  it("includes feedback given through the API", async () => {
    const s = await chat();
    const created = await json("POST", "/feedback", { body: { messageId: s.a1.id, rating: "THUMBS_UP", content: "ok" } });
    expect(await get(s.flow.id)).toEqual([created]);
    expect(await get(s.flow.id, `?chatId=${s.chatId}`)).toEqual([created]);
  });

  it("needs a token; answers 404 for an unknown chatflow and 400 for bad input", async () => {
    const r = await rated();
    await expectError(await call("GET", `/feedback/${r.flow.id}`, { token: null }), 401);
    await expectError(await call("GET", `/feedback/${r.flow.id}`, { token: BAD_TOKEN }), 401);
    const pub = await chat({ isPublic: true });
    await expectError(await call("GET", `/feedback/${pub.flow.id}`, { token: null }), 401);
    await expectError(await call("GET", `/feedback/${uuid()}`), 404);
    await expectError(await call("GET", "/feedback/not-a-uuid"), 400);
    for (const query of ["sortOrder=sideways", "order=up", "startDate=notadate", "endDate=2026-13-01"]) {
      await expectError(await call("GET", `/feedback/${r.flow.id}?${query}`), 400);
    }
  });
});
